import { Suspense } from "react";
import { RunsList } from "@/components/runs/runs-list";

export const dynamic = "force-dynamic";

export default function RunsPage() {
  return (
    <Suspense fallback={<p className="text-sm text-slate-500">Loading runs…</p>}>
      <RunsList />
    </Suspense>
  );
}

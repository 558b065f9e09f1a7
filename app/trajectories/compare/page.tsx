import { Suspense } from "react";
import { TrajectoryPair } from "@/components/trajectories/trajectory-pair";

export const dynamic = "force-dynamic";

/** Any two trajectories side by side (`?a=<id>&b=<id>`), of one run or of two. */
export default async function CompareTrajectoriesPage({ searchParams }: { searchParams: Promise<{ a?: string; b?: string }> }) {
  const { a, b } = await searchParams;
  return (
    <Suspense fallback={<p className="text-sm text-slate-500">Loading trajectories…</p>}>
      <TrajectoryPair a={a ?? ""} b={b ?? ""} />
    </Suspense>
  );
}

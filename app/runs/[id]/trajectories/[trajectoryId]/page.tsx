import { Suspense } from "react";
import { TrajectoryInspector } from "@/components/trajectories/trajectory-inspector";
import { requireTrajectory } from "@/server/pages/require-entity";

export const dynamic = "force-dynamic";

export default async function TrajectoryPage({ params }: { params: Promise<{ id: string; trajectoryId: string }> }) {
  const { id, trajectoryId } = await params;
  await requireTrajectory(id, trajectoryId);
  return (
    <Suspense fallback={<p className="text-sm text-slate-500">Loading trajectory…</p>}>
      <TrajectoryInspector runId={id} trajectoryId={trajectoryId} />
    </Suspense>
  );
}

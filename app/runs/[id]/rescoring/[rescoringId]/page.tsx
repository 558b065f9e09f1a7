import { RescoringView } from "@/components/rescoring/rescoring-view";
import { requireRescoring } from "@/server/pages/require-entity";

export const dynamic = "force-dynamic";

export default async function RescoringResultPage({ params }: { params: Promise<{ id: string; rescoringId: string }> }) {
  const { id, rescoringId } = await params;
  await requireRescoring(id, rescoringId);
  return <RescoringView runId={id} rescoringId={rescoringId} />;
}

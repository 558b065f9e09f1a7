import { RescoringPage } from "@/components/rescoring/rescoring-page";

export const dynamic = "force-dynamic";

export default async function RunRescoringPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ step?: string; group?: string }>;
}) {
  const { id } = await params;
  const { step, group } = await searchParams;
  const n = step === undefined ? NaN : Number(step);
  return <RescoringPage runId={id} step={Number.isInteger(n) && n >= 0 ? n : undefined} groupId={group} />;
}

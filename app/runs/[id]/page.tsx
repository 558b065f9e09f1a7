import { HydrationBoundary } from "@tanstack/react-query";
import { RunDetail } from "@/components/runs/run-detail";
import { prefetchRunPage } from "@/server/api/prefetch";

export const dynamic = "force-dynamic";

export default async function RunPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { id } = await params;
  // The charts' data arrives with the HTML (server/api/prefetch.ts): no query waterfall before the first chart.
  const state = await prefetchRunPage(id, await searchParams);
  return (
    <HydrationBoundary state={state}>
      <RunDetail runId={id} />
    </HydrationBoundary>
  );
}

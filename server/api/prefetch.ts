/**
 * Server-side prefetch for pages whose first paint waits on a chain of queries. The run page's charts needed three
 * round trips after hydration (the run, its metric keys, then the series of the keys shown); here the server runs
 * the same tRPC procedures while it renders and ships the results in the HTML (react-query's dehydrated state,
 * superjson-encoded like the HTTP link), so the browser draws the first chart without asking. A query that fails is
 * left out: the client asks again and shows its error as it always did.
 */
import { QueryClient, dehydrate, type DehydratedState } from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import superjson from "superjson";
import { CHART_MAX_POINTS, chartKeysShown, chartViewFromParams } from "../../lib/chart-keys";
import { appRouter } from "./root";
import { createTrpcContext } from "./trpc";

type SearchParams = Record<string, string | string[] | undefined>;

function newProxy() {
  const queryClient = new QueryClient();
  return { queryClient, trpc: createTRPCOptionsProxy({ router: appRouter, ctx: () => createTrpcContext(), queryClient }) };
}

const dehydrated = (queryClient: QueryClient): DehydratedState => dehydrate(queryClient, { serializeData: superjson.serialize });

/** The run, its metric keys and the series the page will draw for this URL's view (filter, folds, pins). */
export async function prefetchRunPage(id: string, search: SearchParams): Promise<DehydratedState> {
  const { queryClient, trpc } = newProxy();
  const run = queryClient.prefetchQuery(trpc.runs.get.queryOptions({ id }));
  const keys = await queryClient.fetchQuery(trpc.runs.metricKeys.queryOptions({ id })).catch(() => null);
  if (keys?.length) {
    const first = (name: string) => {
      const v = search[name];
      return (Array.isArray(v) ? v[0] : v) ?? null;
    };
    const { shown } = chartKeysShown(keys, chartViewFromParams(first));
    if (shown.length)
      await queryClient.prefetchQuery(trpc.runs.metricSeries.queryOptions({ id, keys: shown, maxPoints: CHART_MAX_POINTS }));
  }
  await run;
  return dehydrated(queryClient);
}

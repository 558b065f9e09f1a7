/**
 * Comparing runs: which config settings differ (flattened key paths) and which metric keys each run recorded.
 * The curves themselves come from `runs.metricSeries`, already downsampled per run.
 */
import { runConfigSchema } from "../../lib/run-config";
import { diffManyJson } from "../../lib/state-diff";
import type { PrismaClient } from "../../db/client";
import { AppError } from "../errors";

/**
 * A config as the diff sees it: with the schema's defaults filled in where it is a Rollout Lab config (one stored
 * before a field existed lacks it, though it trained with the default), and without its name, which the compare
 * page shows as the column heading. Imported runs' configs (verl, TRL, …) are compared as they are.
 */
function comparableConfig(config: unknown): unknown {
  const parsed = runConfigSchema.safeParse(config);
  const full = parsed.success ? parsed.data : config;
  if (!full || typeof full !== "object" || Array.isArray(full)) return full;
  const { name: _name, ...rest } = full as Record<string, unknown>;
  void _name;
  return rest;
}

export async function compareRuns(db: PrismaClient, input: { runIds: string[] }) {
  const ids = [...new Set(input.runIds)];
  const runs = await db.run.findMany({
    where: { id: { in: ids } },
    select: {
      id: true,
      name: true,
      status: true,
      environment: true,
      policyModel: true,
      step: true,
      totalSteps: true,
      latestReward: true,
      createdAt: true,
      config: true,
    },
  });
  const missing = ids.filter((id) => !runs.some((r) => r.id === id));
  if (missing.length) {
    throw new AppError(
      "NOT_FOUND",
      `Run${missing.length > 1 ? "s" : ""} ${missing.map((m) => `"${m}"`).join(", ")} ${missing.length > 1 ? "do" : "does"} not exist; remove ${missing.length > 1 ? "them" : "it"} from ?runs=.`,
      "runIds",
    );
  }
  const ordered = ids.map((id) => runs.find((r) => r.id === id)!);
  const keys = await db.$queryRaw<{ key: string; runIds: string[] }[]>`
    SELECT key, array_agg(DISTINCT "runId") AS "runIds" FROM "MetricPoint" WHERE "runId" = ANY(${ids}) GROUP BY key ORDER BY key`;
  const diff = diffManyJson(
    ordered.map((r) => comparableConfig(r.config)),
    { emptyIsAbsent: true },
  );
  return {
    runs: ordered.map(({ config: _c, ...r }) => {
      void _c;
      return r;
    }),
    configDiff: diff.differing.map((row) => ({
      path: row.path,
      values: row.values.map((v) => (v === undefined ? null : JSON.stringify(v))),
    })),
    sameConfigCount: diff.sameCount,
    metricKeys: keys.map((k) => ({ key: k.key, runIds: k.runIds })),
  };
}

/**
 * A job queue in a Postgres table, leased: the run queue (trainer/worker/lease.ts) and the re-scoring queue
 * (trainer/rescore/queue.ts) are both this. Several workers on several hosts share one database; `FOR UPDATE SKIP
 * LOCKED` lets each claim a different row without blocking on the others (the pattern pg-boss and graphile-worker
 * use). A row whose lease expired (its worker died) is claimable again. Times come from the database clock, never
 * the worker's, so hosts with skewed clocks still agree on when a lease expired. Columns are TIMESTAMP without zone
 * holding UTC (Prisma's convention), hence `now() AT TIME ZONE 'UTC'`.
 */
import type { PrismaClient } from "../generated/prisma/client";

/** The database's clock, in the columns' convention (UTC without zone). */
export const DB_NOW = `(now() AT TIME ZONE 'UTC')`;

/** SQL for "lease ends leaseMs from now"; `param` is the placeholder holding leaseMs (e.g. "$3"). */
export function leaseEndSql(param: string): string {
  return `${DB_NOW} + make_interval(secs => ${param}::double precision / 1000)`;
}

/**
 * A leased table. Each needs the columns id, status ('queued' | 'running' | …), "workerId", "leaseExpiresAt" and
 * "createdAt". Table names are a closed list: they are spliced into SQL.
 */
export interface LeasedQueue {
  table: "Run" | "Rescoring" | "Preflight";
  /** The table also has claims (counted up by each claim) and "startedAt" (set by the first). */
  countsClaims: boolean;
  /** An extra SQL condition a row must meet to be claimed (e.g. only runs this product trains). */
  onlyWhere?: string;
  /** Extra SQL assignments made by the claim; they see the row as it was before the claim. */
  alsoSet?: string;
  /** The RETURNING list of the claim. */
  returning: string;
  /** Which queued row a worker takes first: the oldest (a fair queue, the default) or the newest. */
  order?: "oldest" | "newest";
}

const COUNT_CLAIM = `, claims = claims + 1, "startedAt" = COALESCE("startedAt", ${DB_NOW})`;

/**
 * Claim the oldest (or, by `order`, the newest) queued row, or a running one whose lease expired, for `workerId`: status running, a fresh lease
 * (and, when the table counts claims, claims + 1 and startedAt kept from the first claim). The locking SELECT and the UPDATE share one transaction.
 * Returns the claimed row's `returning` columns, or null when there is nothing to do.
 */
export async function claimLeased<Row>(db: PrismaClient, queue: LeasedQueue, workerId: string, leaseMs: number): Promise<Row | null> {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
      `SELECT id FROM "${queue.table}"
        WHERE ${queue.onlyWhere ? `(${queue.onlyWhere}) AND ` : ""}
              (status = 'queued' OR (status = 'running' AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < ${DB_NOW})))
        ORDER BY ${queue.order === "newest" ? `"createdAt" DESC, id DESC` : `"createdAt", id`}
        LIMIT 1
        FOR UPDATE SKIP LOCKED`,
    );
    if (rows.length === 0) return null;
    const claimed = await tx.$queryRawUnsafe<Row[]>(
      `UPDATE "${queue.table}"
          SET status = 'running', "workerId" = $2, "leaseExpiresAt" = ${leaseEndSql("$3")}${queue.countsClaims ? COUNT_CLAIM : ""}
              ${queue.alsoSet ? `, ${queue.alsoSet}` : ""}
        WHERE id = $1
        RETURNING ${queue.returning}`,
      rows[0].id,
      workerId,
      leaseMs,
    );
    return claimed[0] ?? null;
  });
}

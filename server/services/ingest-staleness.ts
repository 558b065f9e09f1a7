/**
 * External runs whose client went silent. Nothing tells the server a trainer died, a laptop slept or a browser tab
 * closed half way through an import, so an external run with no data for its `staleAfterSeconds` (default
 * ROLLOUT_LAB_STALE_AFTER_S, else 30 min) is marked — `stale` (the client's next data makes it running again) or,
 * when it asked for `onStale: "fail"` (imports do), `failed` with the reason — and the run's event log says when.
 *
 * Marking happens lazily, before the reads that show a run's status (runs list, run page, REST status) and before
 * every ingest write: no background job is needed, and whoever looks sees the truth. One UPDATE over the few
 * running rows, at most once a second per process (a dashboard polls every 2 s, a CLI every 100 ms); it matches
 * nothing almost always.
 */
import type { PrismaClient } from "../../db/client";
import type { Prisma } from "../../generated/prisma/client";
import { DEFAULT_STALE_AFTER_SECONDS } from "../../lib/ingest";
import { INTERNAL_SOURCE } from "../../lib/run-status";

export function defaultStaleAfterSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const raw = Number(env.ROLLOUT_LAB_STALE_AFTER_S);
  return Number.isInteger(raw) && raw > 0 ? raw : DEFAULT_STALE_AFTER_SECONDS;
}

type Sql = Pick<PrismaClient | Prisma.TransactionClient, "$executeRaw">;

const SWEEP_EVERY_MS = 1000;
let lastSweep = 0;

/** Marks every silent external run (unless this process looked less than a second ago); returns how many. */
export async function markSilentExternalRuns(db: Sql, defaultSeconds = defaultStaleAfterSeconds()): Promise<number> {
  const now = Date.now();
  if (now - lastSweep < SWEEP_EVERY_MS) return 0;
  lastSweep = now;
  return db.$executeRaw`
    WITH silent AS (
      SELECT id, COALESCE("staleAfterSeconds", ${defaultSeconds}) AS secs, COALESCE("lastDataAt", "startedAt", "createdAt") AS last,
             "onStale" = 'fail' AS fail
      FROM "Run"
      WHERE status = 'running' AND source <> ${INTERNAL_SOURCE}
        AND COALESCE("lastDataAt", "startedAt", "createdAt") < (now() AT TIME ZONE 'UTC') - make_interval(secs => COALESCE("staleAfterSeconds", ${defaultSeconds}))
      FOR UPDATE SKIP LOCKED
    ), marked AS (
      UPDATE "Run" r SET
        status = CASE WHEN s.fail THEN 'failed'::"RunStatus" ELSE 'stale'::"RunStatus" END,
        "finishedAt" = CASE WHEN s.fail THEN now() AT TIME ZONE 'UTC' ELSE NULL END,
        phase = NULL,
        "updatedAt" = now() AT TIME ZONE 'UTC',
        error = 'No data from its client for ' || s.secs || ' s (last at ' || to_char(s.last, 'YYYY-MM-DD HH24:MI:SS') || ' UTC): ' ||
          CASE WHEN s.fail
            THEN 'it stopped before finishing, so the run holds only what arrived until then. Importing the same files again continues it.'
            ELSE 'its trainer may be gone or paused. Its next data (or POST /external-runs/' || r.id || '/resume) makes it running again; cancel it if the trainer is gone.'
          END
      FROM silent s WHERE r.id = s.id
      RETURNING r.id, r.error, s.fail
    )
    INSERT INTO "RunEvent" ("runId", level, message)
    SELECT id, (CASE WHEN fail THEN 'error' ELSE 'warn' END)::"EventLevel", (CASE WHEN fail THEN 'Failed. ' ELSE 'Stale. ' END) || error
    FROM marked`;
}

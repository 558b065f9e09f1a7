/**
 * The worker process: resolve and check the database, run a TrainerWorker until SIGTERM / SIGINT, then let the
 * current run stop at a step boundary (checkpointed, back in the queue) and exit 0. A second signal exits at once
 * (the run's lease then expires and another worker resumes it from its last checkpoint) — but only one that comes
 * later than REPEAT_WINDOW_MS after the first: one Ctrl-C often arrives twice (the terminal signals the whole
 * foreground group, and npm forwards the same signal to its script), and that must not turn a stop into a crash.
 */
import { createPrismaClient } from "../../db/client";
import { checkWorkerDatabase, resolveWorkerDatabaseUrl } from "./database";
import { TrainerWorker, type RunExecutor } from "./worker";
import { claimRunById } from "./lease";
import { checkWorkerEnv, readEnvVar } from "../../lib/env";

export interface WorkerProcessOptions {
  executeRun: RunExecutor;
  leaseMs?: number;
  heartbeatMs?: number;
  pollMs?: number;
  /** Started once the database is known to work, e.g. the re-scoring loop beside training. */
  alongside?: (databaseUrl: string) => void;
  workerId?: string;
  /** Claims this one run and exits when it is settled (a Slurm job's trainer, trainer/slurm/job-main.ts). */
  onlyRun?: { runId: string };
}

const REPEAT_WINDOW_MS = 2_000;

export async function runWorkerProcess(opts: WorkerProcessOptions): Promise<never> {
  let url: string;
  let embeddedDefault: boolean;
  try {
    checkWorkerEnv();
    ({ url, embeddedDefault } = resolveWorkerDatabaseUrl());
    await checkWorkerDatabase(url, embeddedDefault);
  } catch (err) {
    console.error(`[worker] ${(err as Error).message}`);
    process.exit(1);
  }
  opts.alongside?.(url);
  const db = createPrismaClient(url, 3);
  const only = opts.onlyRun;
  const worker = new TrainerWorker({
    db,
    databaseUrl: url,
    executeRun: opts.executeRun,
    workerId: opts.workerId,
    ...(only ? { claim: (d, w, lease) => claimRunById(d, only.runId, w, lease) } : {}),
    leaseMs: opts.leaseMs ?? readEnvVar("WORKER_LEASE_MS"),
    heartbeatMs: opts.heartbeatMs ?? readEnvVar("WORKER_HEARTBEAT_MS"),
    pollMs: opts.pollMs ?? readEnvVar("WORKER_POLL_MS"),
  });
  let firstSignalAt = 0;
  const onSignal = (signal: string) => {
    if (worker.isStopping) {
      if (Date.now() - firstSignalAt <= REPEAT_WINDOW_MS) return; // the same request, delivered twice
      console.log(`[worker ${worker.workerId}] ${signal} again: exiting now; the run will be resumed after its lease expires.`);
      process.exit(1);
    }
    firstSignalAt = Date.now();
    console.log(`[worker ${worker.workerId}] ${signal}: stopping at the next step boundary (a second signal after 2 s exits at once)…`);
    if (!only) return worker.stop();
    // A Slurm job gets SIGTERM both from scancel (the run's cancel, sent by the launcher) and at its time limit:
    // the run's cancel flag says which, so a cancel ends the run cancelled and a time limit puts it back in the queue.
    void db.run
      .findUnique({ where: { id: only.runId }, select: { cancelRequested: true } })
      .then((r) => worker.stop(r?.cancelRequested ? "cancel" : "shutdown"))
      .catch(() => worker.stop());
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  console.log(`[worker ${worker.workerId}] waiting for runs on ${new URL(url).host}${embeddedDefault ? " (embedded database)" : ""}`);
  if (only) {
    if (!(await worker.runOnce())) {
      console.log(
        `[worker ${worker.workerId}] run ${only.runId} is not waiting to be trained (finished, cancelled, or held by another trainer).`,
      );
    }
  } else {
    await worker.start();
  }
  await db.$disconnect();
  process.exit(0);
}

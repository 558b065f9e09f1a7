/** A run's lifecycle states, for the router's filters and the dashboard (the same as Prisma's RunStatus; a test keeps them equal). */
export const RUN_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled", "stale"] as const;
export type RunStatusName = (typeof RUN_STATUSES)[number];

/** The `source` of runs this product's workers train; anything else was trained elsewhere and imported. */
export const INTERNAL_SOURCE = "rollout-lab";

/** Seconds a queued run waits before an idle worker would have claimed it (workers poll every 2 s by default). */
const CLAIM_GRACE_S = 10;

/** What a queued run's page says: why it waits and where it is in the queue. */
export function describeQueueStanding(q: { position: number; queued: number; training: number; queuedSeconds: number }): string {
  const place = `Queued: ${q.position === 1 ? "next to start" : `position ${q.position}`} of ${q.queued} queued run${q.queued === 1 ? "" : "s"}.`;
  if (q.training > 0) {
    const busy = `${q.training} run${q.training === 1 ? " is" : "s are"} training now, and each worker trains one run at a time`;
    const after =
      q.position === 1 ? "it starts when a worker finishes its run" : `it starts once the ${q.position - 1} queued before it have started`;
    return `${place} ${busy}: ${after}. Start another worker (npm run worker) to train more runs at once.`;
  }
  if (q.queuedSeconds < CLAIM_GRACE_S) return `${place} Waiting for a worker to claim it.`;
  return `${place} No run is training and no worker has claimed this one in ${q.queuedSeconds} s, so no trainer worker seems to be running. Start one with npm run worker (npm start starts one unless START_WORKER=false).`;
}

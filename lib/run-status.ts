/** A run's lifecycle states, for the router's filters and the dashboard (the same as Prisma's RunStatus; a test keeps them equal). */
export const RUN_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled", "stale"] as const;
export type RunStatusName = (typeof RUN_STATUSES)[number];

/** The `source` of runs this product's workers train; anything else was trained elsewhere and imported. */
export const INTERNAL_SOURCE = "rollout-lab";

/**
 * Which runs the trainer workers' queue holds. A run whose execution.launcher is "slurm" is submitted by a Slurm
 * launcher and trained by its job (trainer/slurm/), so workers never claim it and it stands in no worker queue. Runs
 * stored before execution existed have no such key: they are worker runs.
 */
export const WORKER_LAUNCHED_SQL = `COALESCE(config->'execution'->>'launcher', 'worker') = 'worker'`;

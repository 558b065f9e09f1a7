import { test } from "node:test";
import assert from "node:assert/strict";
import { queuePositions } from "./slurm-cli";

test("a pending job's place is counted in its own partition, higher priority first, then the older job", () => {
  const job = (job_id: number, partition: string, priority: number, submit_time: number, job_state = "PENDING") => ({
    job_id,
    name: `j${job_id}`,
    job_state,
    partition,
    priority,
    submit_time,
  });
  const positions = queuePositions([
    job(1, "gpu", 100, 10, "RUNNING"),
    job(2, "gpu", 100, 20),
    job(3, "gpu", 500, 30),
    job(4, "cpu", 100, 5),
    job(5, "gpu", 100, 15),
  ]);
  assert.deepEqual(Object.fromEntries(positions), { 3: 1, 5: 2, 2: 3, 4: 1 });
});

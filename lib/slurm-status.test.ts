import { test } from "node:test";
import assert from "node:assert/strict";
import { describeSlurmJob, explainEndedJob, isEndedSlurmState, shouldRequeue } from "./slurm-status";

test("the run page's line names the job, Slurm's state and its reason or nodes", () => {
  assert.equal(describeSlurmJob({ jobId: "12", state: "PENDING", reason: "Resources", nodes: null }), "Slurm job 12: PENDING (Resources)");
  assert.equal(describeSlurmJob({ jobId: "12", state: "RUNNING", reason: "None", nodes: "gpu-a7" }), "Slurm job 12: RUNNING on gpu-a7");
  assert.equal(
    describeSlurmJob({ jobId: "14", state: "PENDING", reason: "Priority", nodes: null, queuePosition: 3 }),
    "Slurm job 14: PENDING (Priority), #3 in its partition's queue",
  );
  assert.match(
    describeSlurmJob({ jobId: null, state: "REFUSED", reason: "invalid partition specified: nope", nodes: null }),
    /refused.*nope/,
  );
});

test("ended states end the job; pending, running and Slurm's own requeue do not", () => {
  for (const s of ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY", "LOST"])
    assert.ok(isEndedSlurmState(s), s);
  for (const s of ["PENDING", "RUNNING", "COMPLETING", "CONFIGURING", "REQUEUED", "SUSPENDED"]) assert.ok(!isEndedSlurmState(s), s);
});

test("why a job stopped the run is said in words, with Slurm's reason", () => {
  assert.equal(explainEndedJob("TIMEOUT", "TimeLimit"), "reached its time limit (execution.slurm.time) (Slurm: TimeLimit)");
  assert.match(explainEndedJob("OUT_OF_MEMORY", null), /raise execution.slurm.mem/);
});

test("requeue only while configured and under maxRequeues", () => {
  assert.equal(shouldRequeue({ requeue: true, maxRequeues: 2 }, 0), true);
  assert.equal(shouldRequeue({ requeue: true, maxRequeues: 2 }, 2), false);
  assert.equal(shouldRequeue({ requeue: false, maxRequeues: 2 }, 0), false);
});

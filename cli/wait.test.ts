import { test } from "node:test";
import assert from "node:assert/strict";
import { progressLine, type RunStatus } from "./wait";

const base: RunStatus = {
  id: "r1",
  status: "queued",
  phase: null,
  step: 0,
  totalSteps: 40,
  latestReward: null,
  latestMetrics: {},
  error: null,
  cancelRequested: false,
  url: "http://127.0.0.1/runs/r1",
};

test("--wait's line says where a Slurm run's job stands; a worker run's line is as before", () => {
  assert.equal(progressLine(base), "queued step 0/40 reward —");
  assert.equal(
    progressLine({ ...base, slurm: { description: "Slurm job 14: PENDING (Resources), #2 in its partition's queue" } }),
    "queued step 0/40 reward — — Slurm job 14: PENDING (Resources), #2 in its partition's queue",
  );
});

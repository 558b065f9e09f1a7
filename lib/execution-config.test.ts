import { test } from "node:test";
import assert from "node:assert/strict";
import { parseRunConfig } from "./run-config";
import { configIssues } from "./testing/config-issues";

const issues = configIssues;

test("a config without execution trains on a worker, as before", () => {
  const c = parseRunConfig({});
  assert.equal(c.execution.launcher, "worker");
  assert.equal(c.execution.requeue, true);
  assert.equal(c.execution.maxRequeues, 3);
  assert.deepEqual(c.execution.setup, []);
});

test("a Slurm execution keeps its resources, with Slurm's defaults filled", () => {
  const c = parseRunConfig({
    execution: {
      launcher: "slurm",
      slurm: { partition: "gpu", nodes: 1, gpusPerNode: 8, mem: "64G", time: "12:00:00", qos: "high", extraSbatch: ["--exclusive"] },
      setup: ["module load cuda/12.4", "source ~/venv/bin/activate"],
      maxRequeues: 5,
    },
  });
  assert.equal(c.execution.launcher, "slurm");
  assert.equal(c.execution.slurm.partition, "gpu");
  assert.equal(c.execution.slurm.gpusPerNode, 8);
  assert.equal(c.execution.slurm.cpusPerTask, 1);
  assert.equal(c.execution.maxRequeues, 5);
});

test("each bad Slurm field is reported at its path with what to write instead", () => {
  const found = issues({
    execution: {
      launcher: "slurm",
      slurm: {
        partition: "gpu; rm -rf /",
        nodes: 0,
        gpusPerNode: -1,
        mem: "lots",
        time: "tomorrow",
        account: "a b",
        constraint: "a100\n#SBATCH --uid=0",
        extraSbatch: ["--partition=other", "echo hi", "--gres=gpu:2\nrm -rf /", "--exclusive", "--uid=0", "--input=/etc/shadow"],
      },
    },
  });
  assert.match(found["execution.slurm.partition"], /Slurm name/);
  assert.ok(found["execution.slurm.nodes"]);
  assert.ok(found["execution.slurm.gpusPerNode"]);
  assert.match(found["execution.slurm.mem"], /"16G"/);
  assert.match(found["execution.slurm.time"], /"12:00:00"/);
  assert.match(found["execution.slurm.account"], /Slurm name/);
  assert.match(found["execution.slurm.constraint"], /feature expression/);
  assert.match(found["execution.slurm.extraSbatch.0"], /--partition is set by Rollout Lab or not allowed/);
  assert.match(found["execution.slurm.extraSbatch.4"], /--uid is set by Rollout Lab or not allowed/);
  assert.match(found["execution.slurm.extraSbatch.5"], /--input is set by Rollout Lab or not allowed/);
  assert.match(found["execution.slurm.extraSbatch.1"], /not an sbatch option/);
  assert.match(found["execution.slurm.extraSbatch.2"], /not an sbatch option/);
  assert.equal(found["execution.slurm.extraSbatch.3"], undefined);
});

test("setup lines are one line each and only for Slurm jobs", () => {
  assert.match(issues({ execution: { launcher: "slurm", setup: ["module load x\necho pwned"] } })["execution.setup.0"], /one line/);
  assert.match(issues({ execution: { setup: ["module load x"] } })["execution.setup"], /launcher to "slurm"/);
  assert.match(issues({ execution: { launcher: "kubernetes" } })["execution.launcher"], /worker|slurm/);
  assert.match(issues({ execution: { launcher: "slurm", slurm: { gpus: 8 } } })["execution.slurm"], /Unrecognized key/);
});

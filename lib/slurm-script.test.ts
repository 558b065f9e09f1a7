import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseRunConfig } from "./run-config";
import { renderSlurmJobScript, shellQuote } from "./slurm-script";

const site = { workDir: "/shared/rollout lab", nodeBin: "/opt/node/bin/node", dataDir: "/shared/data", logDir: "/shared/data/slurm-logs/" };

function render(execution: unknown, runId = "cmrun1") {
  return renderSlurmJobScript({ runId, jobName: `rollout-lab-${runId}-1`, execution: parseRunConfig({ execution }).execution, site });
}

test("the job script asks Slurm for the configured resources and runs the trainer for this run only", () => {
  const script = render({
    launcher: "slurm",
    slurm: {
      partition: "gpu",
      gpusPerNode: 8,
      cpusPerTask: 16,
      mem: "64G",
      time: "12:00:00",
      account: "lab",
      extraSbatch: ["--exclusive"],
    },
    setup: ["module load cuda/12.4"],
  });
  const sbatch = script.split("\n").filter((l) => l.startsWith("#SBATCH "));
  assert.deepEqual(sbatch, [
    "#SBATCH --job-name=rollout-lab-cmrun1-1",
    "#SBATCH --output=/shared/data/slurm-logs/cmrun1/%j.out",
    "#SBATCH --error=/shared/data/slurm-logs/cmrun1/%j.err",
    "#SBATCH --partition=gpu",
    "#SBATCH --nodes=1",
    "#SBATCH --ntasks-per-node=1",
    "#SBATCH --cpus-per-task=16",
    "#SBATCH --gpus-per-node=8",
    "#SBATCH --mem=64G",
    "#SBATCH --time=12:00:00",
    "#SBATCH --account=lab",
    "#SBATCH --no-requeue",
    "#SBATCH --exclusive",
  ]);
  assert.ok(script.startsWith("#!/bin/bash\n"));
  assert.match(script, /^cd '\/shared\/rollout lab'$/m);
  assert.match(script, /^module load cuda\/12\.4$/m);
  // setup comes before the trainer, which replaces the shell so Slurm's signals reach it.
  assert.ok(script.indexOf("module load") < script.indexOf("exec "));
  assert.match(script, /^exec '\/opt\/node\/bin\/node' --import tsx trainer\/slurm\/job-main\.ts 'cmrun1'$/m);
});

test("without a partition or GPUs the script leaves them to the cluster's defaults", () => {
  const script = render({ launcher: "slurm" });
  assert.doesNotMatch(script, /--partition|--gpus-per-node|--mem|--account|--qos|--constraint/);
  assert.match(script, /#SBATCH --time=1:00:00/);
});

test("the script holds no database URL and bash parses it", () => {
  const script = render({ launcher: "slurm", setup: ['echo "it\'s $HOME"'] });
  assert.doesNotMatch(script, /DATABASE_URL|postgres(ql)?:\/\//);
  const dir = mkdtempSync(path.join(os.tmpdir(), "slurm-script-"));
  try {
    const file = path.join(dir, "job.sh");
    writeFileSync(file, script);
    execFileSync("bash", ["-n", file]); // throws on a syntax error
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("shellQuote keeps any value one word", () => {
  const value = `a b'c$HOME"; rm -rf /`;
  assert.equal(execFileSync("bash", ["-c", `printf %s ${shellQuote(value)}`]).toString(), value);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { readSlurmSettings } from "./settings";

test("ROLLOUT_LAB_SLURM unset: not a launcher; 1: the defaults, paths made absolute", () => {
  assert.equal(readSlurmSettings({}, "/srv/rl"), null);
  const s = readSlurmSettings({ ROLLOUT_LAB_SLURM: "1", ROLLOUT_LAB_DATA_DIR: "data" }, "/srv/rl")!;
  assert.equal(s.workDir, "/srv/rl");
  assert.equal(s.dataDir, "/srv/rl/data");
  assert.equal(s.logDir, "/srv/rl/data/slurm-logs");
  assert.equal(s.pollMs, 5000);
  assert.equal(s.runSetup, "deny");
});

test("key=value pairs override; a bad key or value names itself", () => {
  const s = readSlurmSettings({ ROLLOUT_LAB_SLURM: "workDir=/shared/rl, dataDir=/shared/data ,pollMs=2000,runSetup=allow" }, "/x")!;
  assert.deepEqual(
    [s.workDir, s.dataDir, s.logDir, s.pollMs, s.runSetup],
    ["/shared/rl", "/shared/data", "/shared/data/slurm-logs", 2000, "allow"],
  );
  assert.throws(() => readSlurmSettings({ ROLLOUT_LAB_SLURM: "partition=gpu" }), /ROLLOUT_LAB_SLURM: .*partition/);
  assert.throws(() => readSlurmSettings({ ROLLOUT_LAB_SLURM: "pollMs=fast" }), /ROLLOUT_LAB_SLURM: pollMs/);
  assert.throws(() => readSlurmSettings({ ROLLOUT_LAB_SLURM: "yes please" }), /not key=value/);
});

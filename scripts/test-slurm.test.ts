/** The test Slurm: a real one-node cluster that runs a batch job and leaves nothing behind (skipped without slurm-wlm). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { slurmUnavailable, startTestSlurm, testSlurmConf } from "./test-slurm";

const why = process.env.TEST_SLURM_CONF ? null : slurmUnavailable();

test("the test cluster's slurm.conf keeps to loopback, its own folder and munge socket", () => {
  const conf = testSlurmConf({ dir: "/tmp/x", host: "node1", ctldPort: 3331, slurmdPort: 3332, mungeSocket: "/tmp/x/munge/s" });
  assert.match(conf, /^SlurmctldHost=node1\(127\.0\.0\.1\)$/m);
  assert.match(conf, /^AuthInfo=socket=\/tmp\/x\/munge\/s$/m);
  assert.match(conf, /^StateSaveLocation=\/tmp\/x\/state$/m);
  assert.match(conf, /^NodeName=node1 NodeAddr=127\.0\.0\.1 CPUs=2 /m);
});

test("without slurm-wlm the reason is one line saying what to install", () => {
  const line = slurmUnavailable(() => false);
  // On a machine with slurm-wlm and root, the only thing missing here is the munge key the stub hides.
  assert.ok(line);
  assert.doesNotMatch(line, /\n/);
  assert.match(line, /^slurm: not run — .*(apt-get install|root)/);
});

test("a started cluster runs a batch job, and stop() leaves no daemon or job step behind", { skip: why ?? undefined }, async () => {
  const cluster = await startTestSlurm();
  const env = { ...process.env, ...cluster.env };
  try {
    const id = execFileSync("sbatch", ["--parsable", "--output=/dev/null", "--wrap", "sleep 60"], { env }).toString().trim();
    assert.match(id, /^\d+$/);
    let state = "";
    for (let i = 0; i < 80 && state !== "RUNNING"; i++) {
      state = execFileSync("squeue", ["-h", "-j", id, "-o", "%T"], { env }).toString().trim();
      if (state !== "RUNNING") await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(state, "RUNNING");
  } finally {
    await cluster.stop();
  }
  assert.equal(existsSync(cluster.dir), false);
  const leftovers = readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .map((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").replace(/\0/g, " ");
      } catch {
        return "";
      }
    })
    .filter((cmd) => cmd.includes(cluster.dir));
  assert.deepEqual(leftovers, []);
});

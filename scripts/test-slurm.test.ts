/** The test Slurm: a real one-node cluster that runs a batch job and leaves nothing behind (skipped without slurm-wlm). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { clusterLogTail, clusterProcesses, slurmUnavailable, startTestSlurm, testSlurmConf } from "./test-slurm";

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
    const id = execFileSync("sbatch", ["--parsable", "--output=/dev/null", "--wrap", "sleep 120"], { env }).toString().trim();
    assert.match(id, /^\d+$/);
    // Seconds when quiet; the bound is for a machine whose two cores the other test files keep busy.
    let state = "";
    for (const end = Date.now() + 60_000; state !== "RUNNING" && Date.now() < end;) {
      state = execFileSync("squeue", ["-h", "-j", id, "-o", "%T"], { env }).toString().trim();
      if (state !== "RUNNING") await new Promise((r) => setTimeout(r, 250));
    }
    const reason = () => execFileSync("squeue", ["-h", "-j", id, "-o", "%T %r"], { env }).toString().trim();
    assert.equal(state, "RUNNING", `job ${id}: ${reason()}\n${clusterLogTail(cluster.dir)}`);
  } finally {
    await cluster.stop();
  }
  assert.equal(existsSync(cluster.dir), false);
  assert.deepEqual(clusterProcesses(cluster.dir), []);
});

test(
  "a job whose step daemon died first is still ended by stop() (its processes were left orphaned)",
  { skip: why ?? undefined },
  async () => {
    const cluster = await startTestSlurm();
    const env = { ...process.env, ...cluster.env };
    let job: { pid: number; cmd: string }[] = [];
    try {
      execFileSync("sbatch", ["--parsable", "--output=/dev/null", "--wrap", "sleep 120"], { env });
      for (const end = Date.now() + 60_000; !job.some((p) => p.cmd === "sleep 120") && Date.now() < end;) {
        job = clusterProcesses(cluster.dir).filter((p) => p.cmd.includes("slurm_script") || p.cmd === "sleep 120");
        if (job.length < 2) await new Promise((r) => setTimeout(r, 250));
      }
      assert.equal(job.length, 2, `the job's script and its sleep never both ran\n${clusterLogTail(cluster.dir)}`);
      for (const p of clusterProcesses(cluster.dir).filter((q) => q.cmd.startsWith("slurmstepd"))) process.kill(p.pid, "SIGKILL");
    } finally {
      await cluster.stop();
    }
    assert.deepEqual(clusterProcesses(cluster.dir), []);
    // Gone, or a zombie waiting for a parent that is not this process to reap it.
    const running = job.filter(({ pid }) => existsSync(`/proc/${pid}/stat`) && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8")));
    assert.deepEqual(running, []);
  },
);

/**
 * Runs launched as Slurm jobs, against a real one-node Slurm (slurm-wlm: munged, slurmctld, slurmd started for the
 * file, scripts/test-slurm.ts): the launcher submits with sbatch, the job trains the run with this checkout's trainer,
 * and the launcher follows Slurm's state, copies the job's output into the run's log, cancels with scancel and
 * requeues a killed job, which resumes from the checkpoint. Skipped, with the reason in one line, without slurm-wlm.
 */
import { test } from "node:test";
import { spawn, spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { findEnvironment } from "../../lib/environments";
import type { RunConfigInput } from "../../lib/run-config";
import { createCaller } from "../../server/api/root";
import { createTrpcContext } from "../../server/api/trpc";
import { cancelRun, createRun } from "../../server/services/run-lifecycle";
import { checkpointDirName } from "../../trainer/checkpoint/checkpoint";
import { slurmSkipReason, useSlurm } from "./helpers/slurm-harness";

const h = useSlurm("rl_slurm");
const skip = slurmSkipReason ?? undefined;

/** A small guess-number run: a few steps of a tiny policy, checkpointed every step. */
function tinyRun(name: string, steps: number, execution: Record<string, unknown> = {}): RunConfigInput {
  return {
    name,
    environment: "guess-number",
    seed: 3,
    policy: { model: "tiny", contextLength: 64 },
    grpo: { steps, groupsPerStep: 2, groupSize: 2, minibatchSize: 4 },
    rollout: { maxTurns: 3, maxNewTokens: 4, concurrency: 4 },
    checkpoint: { saveFreq: 1, keepLast: 100 },
    evaluation: { testFreq: 0 },
    execution: { launcher: "slurm", ...execution, slurm: { partition: "debug", time: "10:00", ...((execution.slurm as object) ?? {}) } },
  };
}

const run = (id: string) => h.db().prisma.run.findUniqueOrThrow({ where: { id } });
const jobsOf = (runId: string) => h.db().prisma.slurmJob.findMany({ where: { runId }, orderBy: { id: "asc" } });
const events = async (runId: string) =>
  (await h.db().prisma.runEvent.findMany({ where: { runId }, orderBy: { id: "asc" } })).map((e) => `${e.level}: ${e.message}`);
const rewardSteps = async (runId: string) =>
  (await h.db().prisma.metricPoint.findMany({ where: { runId, key: "reward/mean" }, orderBy: { step: "asc" } })).map((p) => p.step);

test(
  "guess-number launched through Slurm trains to the end and learns; its job's output is in the run's log",
  { skip, timeout: 400_000 },
  async () => {
    const preset = findEnvironment("guess-number")!.preset;
    const created = await createRun(h.db().prisma, {
      config: {
        ...preset,
        name: "learns on slurm",
        environment: "guess-number",
        seed: 1,
        execution: { launcher: "slurm", slurm: { partition: "debug", cpusPerTask: 2, time: "20:00" } },
      },
      launchedBy: "api",
    });
    const launcher = h.startLauncher();
    await h.waitFor("the run to finish", async () => !["queued", "running"].includes((await run(created.id)).status), 360_000);
    await h.waitFor("the launcher to see the job end", async () => (await jobsOf(created.id)).every((j) => !j.active), 60_000);
    await launcher.stop();
    const done = await run(created.id);
    assert.equal(done.status, "succeeded", `${done.error}\n${(await events(created.id)).join("\n")}`);
    const steps = preset.grpo!.steps!;
    assert.equal(done.step, steps);
    // The same check as the local learning proof (trainer/loop/real/learns.test.ts): the last fifth beats the first.
    const rewards = (
      await h.db().prisma.metricPoint.findMany({ where: { runId: created.id, key: "reward/mean" }, orderBy: { step: "asc" } })
    ).map((p) => p.value);
    const w = Math.floor(steps / 5);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    assert.ok(
      mean(rewards.slice(-w)) > mean(rewards.slice(0, w)) + 0.08,
      `reward did not rise: ${mean(rewards.slice(0, w)).toFixed(3)} -> ${mean(rewards.slice(-w)).toFixed(3)}`,
    );

    // One job trained it all: a second one means the first ended with the run unfinished and was requeued (the
    // events say why: under heavy load, a lapsed 6 s lease is the suspect); say so rather than fail on its job id.
    const jobs = await jobsOf(created.id);
    assert.equal(jobs.length, 1, `${jobs.length} jobs for one run:\n${(await events(created.id)).join("\n")}`);
    const [job] = jobs;
    assert.equal(job.state, "COMPLETED");
    assert.equal(job.active, false);
    assert.match(done.workerId ?? "", /^$/);
    const log = await events(created.id);
    assert.ok(log.some((l) => l === `info: Submitted to Slurm as job ${job.jobId} (${job.jobName}).`));
    assert.ok(log.some((l) => l.startsWith(`info: Slurm job ${job.jobId}: RUNNING on `)));
    assert.ok(
      log.some((l) => l.startsWith(`info: [slurm job ${job.jobId}] [slurm job ${job.jobId}] training run ${created.id}`)),
      log.join("\n"),
    );
    assert.ok(
      log.some((l) => /Started by worker slurm-job-/.test(l)),
      "the trainer in the job claimed the run as a worker does",
    );

    // The API shows the job: the status CI polls and the run page's query.
    const caller = createCaller(createTrpcContext(h.db().prisma));
    const status = await caller.runActions.status({ id: created.id });
    assert.equal(status.slurm?.jobId, job.jobId);
    assert.equal(status.slurm?.state, "COMPLETED");
    assert.equal((await caller.runs.get({ id: created.id })).slurm?.description, `Slurm job ${job.jobId}: COMPLETED`);
  },
);

test(
  "cancel while the job trains: scancel, the run cancelled with a checkpoint at its last step, no job left",
  { skip, timeout: 300_000 },
  async () => {
    const created = await createRun(h.db().prisma, { config: tinyRun("cancel on slurm", 400), launchedBy: "api" });
    const launcher = h.startLauncher();
    await h.waitFor("two trained steps", async () => (await run(created.id)).step >= 2, 240_000);
    const answer = await cancelRun(h.db().prisma, created.id);
    assert.equal(answer.cancelRequested, true);
    await h.waitFor("the run to be cancelled", async () => (await run(created.id)).status === "cancelled", 120_000);
    const [job] = await jobsOf(created.id);
    await h.waitFor("the launcher to see the job end", async () => !(await jobsOf(created.id))[0].active, 60_000);
    await launcher.stop();
    const done = await run(created.id);
    assert.ok(done.step >= 2 && done.step < 400);
    assert.ok(
      existsSync(path.join(h.settings().dataDir, "checkpoints", created.id, checkpointDirName(done.step))),
      `a checkpoint at the last step (${done.step})`,
    );
    assert.ok(await h.db().prisma.checkpoint.findUnique({ where: { runId_step: { runId: created.id, step: done.step } } }));
    // Two paths reach the trainer in the job, and either may win: the launcher's scancel (SIGTERM) on its next poll,
    // or the trainer itself seeing the run's cancel request between steps, as any worker does, and exiting before
    // that poll. The log says which: the scancel, or the job's end with the run cancelled.
    const log = await events(created.id);
    assert.ok(
      log.some((l) => l.includes(`scancel ${job.jobId}`)) ||
        log.some((l) => l.includes(`Slurm job ${job.jobId} ended`) && l.includes("the run is cancelled")),
      `the log says how the job ended:\n${log.join("\n")}`,
    );
    assert.equal(
      h.slurm("squeue", ["-h", "-j", job.jobId!, "-t", "PENDING,RUNNING,COMPLETING,SUSPENDED", "-o", "%i"]).trim(),
      "",
      "no job left",
    );
  },
);

/** Pids of the trainer processes a job started for `runId` (node … trainer/slurm/job-main.ts <runId>). */
function trainerPids(runId: string): number[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const cmd = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0");
        return cmd.includes("trainer/slurm/job-main.ts") && cmd.includes(runId);
      } catch {
        return false;
      }
    })
    .map(Number);
}

test(
  "a job killed mid-run (scancel --signal=KILL, then kill -9 of its trainer) is requeued and resumed from the checkpoint, steps contiguous",
  { skip, timeout: 500_000 },
  async () => {
    const steps = 14;
    const created = await createRun(h.db().prisma, { config: tinyRun("killed on slurm", steps), launchedBy: "api" });
    const launcher = h.startLauncher();
    await h.waitFor("three trained steps", async () => (await run(created.id)).step >= 3, 240_000);
    const [first] = await jobsOf(created.id);
    const firstTrainers = trainerPids(created.id);
    h.slurm("scancel", ["--signal=KILL", first.jobId!]);
    // The KILL lands a moment later and the first trainer may train a step or two more: the second job's progress is
    // counted from the step where the first trainer was gone, and it must have a trainer of its own to be killed.
    await h.waitFor(
      "the first job's trainer to be gone",
      async () => trainerPids(created.id).every((p) => !firstTrainers.includes(p)),
      60_000,
    );
    const resumedAt = (await run(created.id)).step;
    await h.waitFor(
      "the second job to train two more steps",
      async () =>
        (await jobsOf(created.id)).length === 2 && (await run(created.id)).step >= resumedAt + 2 && trainerPids(created.id).length === 1,
      240_000,
    );
    const pids = trainerPids(created.id);
    assert.equal(pids.length, 1, "one trainer for the run");
    process.kill(pids[0], "SIGKILL");
    await h.waitFor("the run to finish", async () => !["queued", "running"].includes((await run(created.id)).status), 300_000);
    await launcher.stop();
    const done = await run(created.id);
    const log = await events(created.id);
    assert.equal(done.status, "succeeded", `${done.error}\n${log.join("\n")}`);
    const jobs = await jobsOf(created.id);
    assert.equal(jobs.length, 3, "two requeues: three jobs");
    assert.ok(
      log.some((l) => new RegExp(`^warn: Slurm job ${first.jobId} .*requeued \\(1 of 3\\)`).test(l)),
      log.join("\n"),
    );
    assert.ok(
      log.some((l) => new RegExp(`^warn: Slurm job ${jobs[1].jobId} failed: .*requeued \\(2 of 3\\)`).test(l)),
      log.join("\n"),
    );
    assert.equal(log.filter((l) => /Resumed from the checkpoint at step \d+/.test(l)).length, 2, "each new job resumed, none restarted");
    assert.deepEqual(await rewardSteps(created.id), [...Array(steps).keys()], "every step once, none missing or repeated");
    const caller = createCaller(createTrpcContext(h.db().prisma));
    assert.equal((await caller.runActions.status({ id: created.id })).slurm?.requeues, 2);
  },
);

test(
  "a job past its --time ends TIMEOUT: shown with Slurm's reason, the run failed (maxRequeues 0) and resumable",
  { skip, timeout: 400_000 },
  async () => {
    const created = await createRun(h.db().prisma, {
      config: tinyRun("timeout on slurm", 5000, { maxRequeues: 0, slurm: { time: "1" } }),
      launchedBy: "api",
    });
    const launcher = h.startLauncher();
    await h.waitFor("the time limit to end the run", async () => (await run(created.id)).status === "failed", 300_000);
    const failed = await run(created.id);
    assert.match(
      failed.error ?? "",
      /^Slurm job \d+ reached its time limit \(execution\.slurm\.time\)( \(Slurm: .+\))?; not requeued: it was requeued 0 times \(execution\.maxRequeues 0\)\. Resume the run to continue from step \d+\.$/,
    );
    const caller = createCaller(createTrpcContext(h.db().prisma));
    assert.equal((await caller.runActions.status({ id: created.id })).slurm?.state, "TIMEOUT");
    // The trainer got SIGTERM before the kill: it saved a checkpoint at the step it stopped at.
    assert.ok(await h.db().prisma.checkpoint.findUnique({ where: { runId_step: { runId: created.id, step: failed.step } } }));
    await caller.runActions.resume({ id: created.id });
    await h.waitFor(
      "a second job resuming the run",
      async () => (await events(created.id)).some((l) => /Resumed from the checkpoint at step/.test(l)),
      240_000,
    );
    await cancelRun(h.db().prisma, created.id);
    await h.waitFor("the run cancelled", async () => (await run(created.id)).status === "cancelled", 120_000);
    await h.waitFor("its job ended", async () => (await jobsOf(created.id)).every((j) => !j.active), 120_000);
    await launcher.stop();
  },
);

test("a bad partition fails the run at submit with Slurm's own words", { skip, timeout: 60_000 }, async () => {
  const created = await createRun(h.db().prisma, {
    config: tinyRun("bad partition", 2, { slurm: { partition: "nope" } }),
    launchedBy: "api",
  });
  const launcher = h.startLauncher();
  await h.waitFor("the run to fail", async () => (await run(created.id)).status === "failed", 30_000);
  await launcher.stop();
  const done = await run(created.id);
  assert.match(done.error ?? "", /^Slurm refused the job: sbatch: error: invalid partition specified: nope/);
  const [job] = await jobsOf(created.id);
  assert.equal(job.state, "REFUSED");
  assert.equal(job.jobId, null);
});

test("a job whose run the trainer has just finished is left to exit by itself, not scancelled", { skip, timeout: 60_000 }, async () => {
  const created = await createRun(h.db().prisma, { config: tinyRun("finishing", 2), launchedBy: "api" });
  // The moment between the trainer marking the run succeeded and its process exiting, held open by a sleeping job.
  const jobName = `rollout-lab-${created.id}-1`;
  const jobId = h.slurm("sbatch", ["--parsable", `--job-name=${jobName}`, "--output=/dev/null", "--wrap", "sleep 60"]).trim();
  await h.db().prisma.slurmJob.create({ data: { runId: created.id, jobId, jobName, state: "PENDING", script: "#!/bin/bash" } });
  await h.db().prisma.run.update({ where: { id: created.id }, data: { status: "succeeded", finishedAt: new Date() } });
  await h.waitFor("the job to run", async () => h.slurm("squeue", ["-h", "-j", jobId, "-o", "%T"]).trim() === "RUNNING", 30_000);
  await h.makeLauncher().tick();
  assert.equal(h.slurm("squeue", ["-h", "-j", jobId, "-o", "%T"]).trim(), "RUNNING");
  assert.equal((await jobsOf(created.id))[0].cancelSent, false);
  h.slurm("scancel", [jobId]);
});

test(
  "npm run worker with ROLLOUT_LAB_SLURM is a launcher: it submits the run, and stops on SIGTERM leaving the job",
  { skip, timeout: 120_000 },
  async () => {
    const created = await createRun(h.db().prisma, { config: tinyRun("from the worker command", 2), launchedBy: "api" });
    const env = {
      ...process.env,
      ...h.cluster().env,
      DATABASE_URL: h.db().url,
      ROLLOUT_LAB_SLURM: `dataDir=${h.settings().dataDir},pollMs=300`,
    };
    const bad = spawnSync(process.execPath, ["--import", "tsx", "trainer/main.ts"], {
      env: { ...env, ROLLOUT_LAB_SLURM: "pollMs=soon" },
      encoding: "utf8",
    });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /ROLLOUT_LAB_SLURM: pollMs/);
    const child = spawn(process.execPath, ["--import", "tsx", "trainer/main.ts"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      await h.waitFor("the job submitted", async () => (await jobsOf(created.id)).some((j) => j.jobId !== null), 90_000);
    } finally {
      child.kill("SIGTERM");
    }
    assert.equal(await exited, 0, output);
    assert.match(output, /\[slurm launcher\] submitting Slurm runs/);
    assert.match(output, /the jobs keep running/);
    const [job] = await jobsOf(created.id);
    assert.notEqual(h.slurm("squeue", ["-h", "-j", job.jobId!, "-o", "%i"]).trim(), "", "the job outlives the launcher");
    await cancelRun(h.db().prisma, created.id);
    const launcher = h.startLauncher();
    await h.waitFor("its job ended", async () => !(await jobsOf(created.id))[0].active, 90_000);
    await launcher.stop();
  },
);

test("a controller that does not answer is retried, never a failed run", { skip, timeout: 120_000 }, async () => {
  const created = await createRun(h.db().prisma, { config: tinyRun("controller down", 2), launchedBy: "api" });
  // The same cluster's config with the controller's port changed to one nothing listens on: the real sbatch fails.
  const badConf = path.join(h.settings().dataDir, "unreachable-slurm.conf");
  writeFileSync(badConf, readFileSync(h.cluster().conf, "utf8").replace(/^SlurmctldPort=\d+$/m, "SlurmctldPort=9"));
  await h.makeLauncher({ SLURM_CONF: badConf }).tick();
  const [attempt] = await jobsOf(created.id);
  assert.equal((await run(created.id)).status, "queued");
  assert.equal(attempt.state, "SUBMITTING");
  assert.equal(attempt.jobId, null);
  // Reachable again: the next poll submits that same row (no second row, no second job).
  await h.makeLauncher().tick();
  const jobs = await jobsOf(created.id);
  assert.equal(jobs.length, 1);
  assert.match(jobs[0].jobId ?? "", /^\d+$/);
  await cancelRun(h.db().prisma, created.id);
  const launcher = h.startLauncher();
  await h.waitFor("its job cancelled", async () => !(await jobsOf(created.id))[0].active, 60_000);
  await launcher.stop();
});

test(
  "five runs at once are five jobs: one runs on the node, the others wait in Slurm's queue with their reason",
  { skip, timeout: 120_000 },
  async () => {
    const ids: string[] = [];
    // Each job asks for both CPUs of the one node, so only one fits at a time.
    for (let i = 0; i < 5; i++) {
      ids.push(
        (await createRun(h.db().prisma, { config: tinyRun(`queue ${i}`, 400, { slurm: { cpusPerTask: 2 } }), launchedBy: "api" })).id,
      );
    }
    const launcher = h.startLauncher();
    await h.waitFor("five jobs, one running", async () => {
      const jobs = await h.db().prisma.slurmJob.findMany({ where: { runId: { in: ids } } });
      return (
        jobs.length === 5 &&
        jobs.filter((j) => j.state === "RUNNING").length === 1 &&
        jobs.every((j) => j.reason !== null || j.state === "RUNNING")
      );
    });
    const jobs = await h.db().prisma.slurmJob.findMany({ where: { runId: { in: ids } } });
    const pending = jobs.filter((j) => j.state === "PENDING");
    assert.equal(pending.length, 4);
    for (const j of pending) assert.match(j.reason ?? "", /^(Resources|Priority)$/);
    // Their places in the partition's queue: equal priorities, so in submission order (read once a poll has settled).
    const ranked = () => h.db().prisma.slurmJob.findMany({ where: { runId: { in: ids }, state: "PENDING" }, orderBy: { id: "asc" } });
    await h.waitFor("queue positions 1-4", async () => (await ranked()).map((j) => j.queuePosition).join() === "1,2,3,4", 30_000);
    const caller = createCaller(createTrpcContext(h.db().prisma));
    const waiting = (await caller.runs.get({ id: (await ranked())[1].runId })).slurm!;
    assert.match(waiting.description, /^Slurm job \d+: PENDING \((Resources|Priority)\), #2 in its partition's queue$/);
    // The runs list's line per run, and no "start a worker" advice for a run that waits in Slurm's queue.
    const lines = await caller.runs.slurmJobLines({ ids });
    assert.equal(Object.values(lines).filter((l) => / PENDING \((Resources|Priority)\), #\d in its partition's queue$/.test(l)).length, 4);
    assert.equal(await caller.runs.queueStanding({ id: pending[0].runId }), null);
    // Cancelling them all leaves nothing in Slurm's queue.
    for (const id of ids) await cancelRun(h.db().prisma, id);
    await h.waitFor(
      "every run cancelled",
      async () => (await h.db().prisma.run.count({ where: { id: { in: ids }, status: "cancelled" } })) === 5,
      90_000,
    );
    await h.waitFor("no job left", async () => h.slurm("squeue", ["-h", "-t", "PENDING,RUNNING", "-o", "%i"]).trim() === "", 90_000);
    await launcher.stop();
  },
);

test("a launcher killed mid-job and restarted re-attaches to the job by id: no second submission", { skip, timeout: 300_000 }, async () => {
  const created = await createRun(h.db().prisma, { config: tinyRun("launcher restart", 4), launchedBy: "api" });
  const first = h.startLauncher();
  await h.waitFor("the job to be submitted", async () => (await jobsOf(created.id)).some((j) => j.jobId !== null), 60_000);
  await first.stop();
  const second = h.startLauncher();
  await h.waitFor("the run to finish", async () => !["queued", "running"].includes((await run(created.id)).status), 240_000);
  await second.stop();
  const done = await run(created.id);
  assert.equal(done.status, "succeeded", done.error ?? "");
  const jobs = await jobsOf(created.id);
  assert.equal(jobs.length, 1, "the restarted launcher submitted nothing");
  const name = jobs[0].jobName;
  assert.equal(
    h.slurm("squeue", ["-h", "-t", "all", "--name", name, "-o", "%i"]).trim(),
    jobs[0].jobId,
    "one job with the run's name in Slurm",
  );

  // A launcher that died between sbatch and recording the id: the next one finds the job by its name.
  const orphan = await createRun(h.db().prisma, { config: tinyRun("orphan submit", 2), launchedBy: "api" });
  const script = (await h.db().prisma.slurmJob.findFirstOrThrow({ where: { runId: created.id } })).script.replaceAll(created.id, orphan.id);
  const jobName = `rollout-lab-${orphan.id}-1`;
  await h.db().prisma.slurmJob.create({
    data: { runId: orphan.id, jobName, state: "SUBMITTING", script: script.replace(/--job-name=\S+/, `--job-name=${jobName}`) },
  });
  const submitted = h.slurm("sbatch", ["--parsable", `--job-name=${jobName}`, "--output=/dev/null", "--wrap", "sleep 30"]).trim();
  const third = h.startLauncher();
  await h.waitFor("the launcher to attach", async () => (await jobsOf(orphan.id))[0].jobId !== null, 30_000);
  assert.equal((await jobsOf(orphan.id))[0].jobId, submitted);
  await cancelRun(h.db().prisma, orphan.id);
  await h.waitFor("the orphan's job cancelled", async () => !(await jobsOf(orphan.id))[0].active, 60_000);
  await third.stop();
  assert.equal((await jobsOf(orphan.id)).length, 1);
});

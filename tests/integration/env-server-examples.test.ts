/**
 * The Python side a researcher copies: the stdlib-only client (clients/python/rollout_lab_env.py) and the adapters
 * of the trainer examples (examples/trl_grpo_rollout_lab.py, verl_rollout_lab.py, skyrl_rollout_lab_env.py) play gold
 * episodes against a token-protected server and reach the gold rewards (env_server_examples.py drives them; the
 * trainers themselves cannot be installed here).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { createToken } from "../../server/services/tokens";
import { goldEpisodes, startTestEnvServer, type TestEnvServer } from "./helpers/env-server";

const PYTHON = process.env.ROLLOUT_LAB_PYTHON || "python3";
const probe = spawnSync(PYTHON, ["--version"], { encoding: "utf8" });
const skip = probe.status === 0 ? false : `needs ${PYTHON} (the clients and examples are Python)`;

let srv: TestEnvServer;
let busy: TestEnvServer;
before(async () => {
  if (skip) return;
  srv = await startTestEnvServer({ tokenRequired: true });
  // One session at most, Retry-After 1 s: a second client gets 503 until the first closes.
  busy = await startTestEnvServer({
    db: srv.db,
    tokenRequired: true,
    limits: { maxSessions: 1, idleTimeoutMs: 10_000, detachedGraceMs: 1_000 },
  });
});
after(async () => {
  await busy?.close();
  await srv?.close();
});

async function runChecks(job: Record<string, unknown>): Promise<Check[]> {
  const child = spawn(PYTHON, [path.join(import.meta.dirname, "env_server_examples.py")], { stdio: ["pipe", "pipe", "pipe"] });
  child.stdin.end(JSON.stringify(job));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  assert.equal(await new Promise((r) => child.on("close", r)), 0, stderr);
  const checks: Check[] = stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    checks.filter((c) => c.error).map((c) => `${c.check} ${c.env} ${c.task}:\n${c.error}`),
    [],
  );
  return checks;
}

interface Check {
  check: string;
  env: string;
  task: string;
  expected: number;
  reward?: number;
  done?: boolean;
  error?: string;
  [k: string]: unknown;
}

test("the stdlib Python client and the TRL, verl and SkyRL adapters play gold episodes to their gold rewards", { skip }, async () => {
  const token = (await createToken(srv.db.prisma, { name: "examples", scopes: ["write"] })).token;
  const gold = [
    ...(await goldEpisodes("tau2-retail")).slice(0, 2),
    ...(await goldEpisodes("guess-number")).slice(0, 2),
    ...(await goldEpisodes("userrl-telepathy")).slice(0, 1),
  ];
  const checks = await runChecks({ base_url: srv.url, token, gold, adapter_envs: ["tau2-retail", "guess-number"] });
  // stdlib on all 5; each adapter on the 4 tau2 / guess-number episodes.
  assert.deepEqual(Object.fromEntries(["stdlib", "trl", "verl", "skyrl"].map((k) => [k, checks.filter((c) => c.check === k).length])), {
    stdlib: 5,
    trl: 4,
    verl: 4,
    skyrl: 4,
  });
  for (const c of checks) {
    assert.equal(c.done, true, `${c.check} ${c.env} ${c.task} finished`);
    assert.equal(c.reward, c.expected, `${c.check} ${c.env} ${c.task}: reward ${c.reward}, gold ${c.expected}`);
  }
  const trlTau = checks.find((c) => c.check === "trl" && c.env === "tau2-retail")!;
  assert.deepEqual(trlTau.prompt_roles, ["system", "user"], "TRL's prompt is the episode's opening");
  assert.ok(Number(trlTau.tools) > 5, `TRL gets one typed method per τ² tool (${trlTau.tools})`);
  const verlTau = checks.find((c) => c.check === "verl" && c.env === "tau2-retail")!;
  assert.equal((verlTau.interaction_kwargs as { name: string }).name, "rollout_lab");
  for (const c of checks.filter((c) => c.check === "verl" || c.check === "skyrl"))
    assert.equal(c.sessions_open_after, 0, `${c.check} ${c.env}: the episode's end ended the server session`);
  // verl's schema model keeps type/description/enum of a parameter; the adapter keeps the whole schema.
  const arrays = verlTau.array_params as Record<string, boolean>;
  assert.ok(Object.keys(arrays).length > 0, "τ² retail has array parameters");
  assert.deepEqual(
    Object.entries(arrays).filter(([, kept]) => !kept),
    [],
    "array parameters keep their items",
  );

  await srv.server.recorder.drain();
  const runs = await srv.db.prisma.run.findMany({
    where: { name: { startsWith: "examples-" } },
    include: { _count: { select: { trajectories: true } } },
  });
  assert.deepEqual(
    Object.fromEntries(runs.map((r) => [r.name, r._count.trajectories])),
    { "examples-stdlib": 5, "examples-trl": 4, "examples-verl": 4, "examples-skyrl": 4 },
    "every adapter's episodes are recorded in its experiment",
  );
});

test("the engines' adapters end sessions, score only what was scored and wait on a full server", { skip }, async () => {
  const token = (await createToken(srv.db.prisma, { name: "examples-defects", scopes: ["write"] })).token;
  const [tau] = await goldEpisodes("tau2-retail");
  const [guess] = await goldEpisodes("guess-number");
  // Telepathy without clipping and with a step penalty: every turn has a non-zero turn reward.
  const [telepathy] = await goldEpisodes("userrl-telepathy");
  const turnGold = [{ ...telepathy, options: { stepPenalty: 0.1, normalizeRewards: false } }];
  const checks = await runChecks({
    base_url: srv.url,
    busy_url: busy.url,
    token,
    gold: [
      { ...tau, checks: ["trl_truncated", "verl_cut_short", "skyrl_error"] },
      { ...guess, checks: ["stdlib_busy"], busy: true },
      ...turnGold.map((g) => ({ ...g, checks: ["skyrl_rewards"] })),
    ],
  });
  const by = (name: string) => checks.filter((c) => c.check === name);

  // TRL: a rollout stopped mid-episode is unscored (None → NaN → masked by TRL), never 0.0, and its session ends.
  const [trlCut] = by("trl_truncated");
  assert.equal(trlCut.reward_is_none, true, "an unfinished TRL episode has no reward");
  assert.equal(trlCut.sessions_open_after, 0, "get_reward ended the unfinished session");
  assert.deepEqual(trlCut.exposed, trlCut.tools, "TRL is offered the environment's tools and respond, nothing else");

  // verl: the loop never finalizes; the adapter's agent loop ends the session on return and on raise.
  const [verlCut] = by("verl_cut_short");
  assert.equal(verlCut.sessions_open_after_short, 0);
  assert.equal(verlCut.raised, "the rollout server went away");
  assert.equal(verlCut.sessions_open_after_raise, 0);
  assert.deepEqual(verlCut.scored, { score: 0, unscored: 1 });

  // SkyRL: a raising step still closes the session (SkyRL's generator skips close()).
  const [skyErr] = by("skyrl_error");
  assert.equal(skyErr.raised, "RolloutLabEnvError");
  assert.equal(skyErr.sessions_open_after, 0);
  assert.equal(skyErr.init_raised, "RolloutLabEnvError", "a refused reset raises");
  assert.equal(skyErr.sessions_open_after_init, 0, "and leaves no session open");

  // SkyRL sums step rewards: "final" sums to the episode's reward, "turns" to the turn rewards, never both.
  const rewards = by("skyrl_rewards");
  assert.ok(rewards.length >= 1, "an environment with turn rewards was played");
  for (const c of rewards) {
    const r = c.rewards as Record<string, { sum: number; turn_rewards: (number | null)[]; episode_reward: number }>;
    assert.ok(
      r.turns.turn_rewards.slice(0, -1).some((x) => x),
      `${c.env}: a turn before the last has a turn reward`,
    );
    assert.equal(r.final.sum, r.final.episode_reward, `${c.env}: final mode sums to the episode's reward`);
    const turnSum = r.turns.turn_rewards.reduce<number>((a, b) => a + (b ?? 0), 0);
    assert.ok(Math.abs(r.turns.sum - turnSum) < 1e-9, `${c.env}: turns mode sums to the turn rewards`);
  }

  // stdlib client: 503 + Retry-After at the handshake is waited out, within max_wait; past it, the error says so.
  const [waited] = by("stdlib_busy");
  assert.equal(waited.reset_ok, true);
  assert.ok(Number(waited.waited) >= 1, `waited ${waited.waited} s as Retry-After said`);
  assert.deepEqual(waited.refused, { status: 503, retry_after: 1 });
});

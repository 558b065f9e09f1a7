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
before(async () => {
  if (!skip) srv = await startTestEnvServer({ tokenRequired: true });
});
after(() => srv?.close());

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
  const child = spawn(PYTHON, [path.join(import.meta.dirname, "env_server_examples.py")], { stdio: ["pipe", "pipe", "pipe"] });
  child.stdin.end(JSON.stringify({ base_url: srv.url, token, gold, adapter_envs: ["tau2-retail", "guess-number"] }));
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

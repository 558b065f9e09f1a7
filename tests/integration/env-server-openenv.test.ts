/**
 * A client no one here wrote: OpenEnv's own Python client (GenericEnvClient(...).sync(), vendored unchanged in
 * tests/fixtures/openenv with its BSD licence) plays 106 episodes across four environments through the server's
 * WebSocket session, with the token in the URL (its only way to send one). Gold actions score what each
 * environment's own gold test says, and every episode is in the database with that reward.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { createToken } from "../../server/services/tokens";
import { goldEpisodes, startTestEnvServer, type GoldEpisode, type TestEnvServer } from "./helpers/env-server";

const FIXTURE = path.join(import.meta.dirname, "../fixtures/openenv");
const PYTHON = process.env.ROLLOUT_LAB_PYTHON || "python3";
/** Environments and how many times each of their gold episodes is played (different seeds): 25 + 25 + 32 + 24. */
const PLAN: [string, number][] = [
  ["tau2-retail", 5],
  ["bfcl", 5],
  ["guess-number", 4],
  ["userrl-travel", 3],
];

const probe = spawnSync(
  PYTHON,
  ["-c", "import sys; sys.path.append('/usr/lib/python3/dist-packages'); import pydantic, requests, websockets"],
  {
    encoding: "utf8",
  },
);
const skip =
  probe.status === 0
    ? false
    : `needs ${PYTHON} with pydantic 2, requests and websockets (apt-get install python3-websockets): ${(probe.stderr || probe.error?.message || "").trim().split("\n").pop()}`;

let srv: TestEnvServer;
before(async () => {
  if (!skip)
    srv = await startTestEnvServer({ tokenRequired: true, limits: { maxSessions: 16, idleTimeoutMs: 600_000, detachedGraceMs: 60_000 } });
});
after(() => srv?.close());

interface Played {
  env: string;
  task_id: string;
  seed: number;
  reward: number | null;
  done: boolean;
  turns: number;
  end_reason: string;
  trajectory_id: string;
  expected_reward: number;
  error?: string;
}

test(
  "OpenEnv's own client plays 106 gold episodes across 4 environments, each scoring its gold reward, all recorded",
  { skip },
  async () => {
    const token = (await createToken(srv.db.prisma, { name: "openenv-client", scopes: ["write"] })).token;
    const episodes = (
      await Promise.all(
        PLAN.map(async ([env, seeds]) => {
          const gold: GoldEpisode[] = await goldEpisodes(env);
          return Array.from({ length: seeds }, (_, seed) =>
            gold.map((g) => ({
              env,
              reset: { task_id: g.taskId, seed, max_turns: g.maxTurns, experiment: "openenv-client", group: `${g.taskId}@seed${seed}` },
              actions: g.actions,
              expected_reward: g.expectedReward,
            })),
          ).flat();
        }),
      )
    ).flat();
    assert.equal(episodes.length, 106);

    const { port } = new URL(srv.url);
    const child = spawn(PYTHON, [path.join(FIXTURE, "play_episodes.py")], { stdio: ["pipe", "pipe", "pipe"] });
    child.stdin.end(JSON.stringify({ base_url: `http://openenv:${token}@127.0.0.1:${port}`, episodes }));
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(code, 0, stderr);
    const played: Played[] = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      played.filter((p) => p.error).map((p) => `${p.env} ${p.task_id}: ${p.error}`),
      [],
    );
    assert.equal(played.length, 106);
    for (const p of played) {
      assert.equal(p.done, true, `${p.env} ${p.task_id} seed ${p.seed} ended (${p.end_reason})`);
      assert.equal(
        p.reward,
        p.expected_reward,
        `${p.env} ${p.task_id} seed ${p.seed}: reward ${p.reward}, its gold test says ${p.expected_reward}`,
      );
    }
    assert.deepEqual([...new Set(played.map((p) => p.env))].sort(), PLAN.map(([e]) => e).sort());

    await srv.server.recorder.drain();
    const stored = await srv.db.prisma.trajectory.findMany({
      where: { run: { name: "openenv-client" } },
      select: { id: true, reward: true, status: true },
    });
    assert.equal(stored.length, 106);
    const byId = new Map(stored.map((t) => [t.id, t]));
    for (const p of played) assert.equal(byId.get(p.trajectory_id)?.reward, p.reward, `stored reward of ${p.env} ${p.task_id}`);
    const run = await srv.db.prisma.run.findFirstOrThrow({ where: { name: "openenv-client" } });
    assert.equal(run.launchedByName, "openenv-client", "the token that played owns the run");
    assert.equal(run.environment, "mixed");
  },
);

/**
 * Retries and ids (issue 38, finding 6): a client that resets mid-episode and replays the same episode_id to the end
 * finds that attempt stored under the trajectory id it was told, not the truncated first one; replaying an episode
 * already played to the end is refused naming episode_id; and POST /reset, which records nothing, names no run or
 * trajectory that would never exist.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { openRaw, startTestEnvServer, type TestEnvServer } from "./helpers/env-server";

let srv: TestEnvServer;
before(async () => {
  srv = await startTestEnvServer();
});
after(() => srv?.close());

test("a replayed episode_id replaces the earlier unfinished attempt: the stored trajectory is the one the client was told", async () => {
  const peer = await openRaw(`${srv.url}/envs/guess-number/ws`);
  const data = { task_id: "guess-4", experiment: "retries", episode_id: "ep-retry-1" };
  await peer.request({ type: "reset", data });
  await peer.request({ type: "step", data: { message: "1" } });
  // The trainer retries the episode from the start (same id): the first attempt ends truncated.
  const again = await peer.request({ type: "reset", data });
  await srv.server.recorder.drain(); // the truncated first attempt is in PostgreSQL before the retry ends
  assert.equal((await srv.db.prisma.trajectory.findFirstOrThrow({ where: { run: { name: "retries" } } })).status, "truncated");
  let last = again;
  for (const guess of ["1", "2", "3", "4"]) last = await peer.request({ type: "step", data: { message: guess } });
  assert.equal(last.data.done, true);
  assert.equal(last.data.reward, 0.25, "solved in 4 turns");
  const told = (last.data.observation as { trajectory_id: string }).trajectory_id;
  await srv.server.recorder.drain();
  const stored = await srv.db.prisma.trajectory.findUniqueOrThrow({ where: { id: told } });
  assert.equal(stored.reward, 0.25);
  assert.equal(stored.status, "ok");
  assert.equal(stored.numTurns, 4);
  assert.equal(await srv.db.prisma.trajectory.count({ where: { run: { name: "retries" } } }), 1, "one trajectory for the episode id");

  const replay = await peer.request({ type: "reset", data });
  assert.equal(replay.type, "error");
  assert.equal(replay.data.status, 409);
  assert.equal(replay.data.field, "episode_id");
  assert.match(String(replay.data.message), /"ep-retry-1" was already played to the end .*reward 0\.25.*new episode_id/);
  peer.ws.close();
});

test("POST /reset records nothing, so it names no run or trajectory; POST /step's ids exist once recorded", async () => {
  const reset = await (
    await fetch(`${srv.url}/envs/guess-number/reset`, { method: "POST", body: JSON.stringify({ task_id: "guess-2" }) })
  ).json();
  assert.equal(reset.observation.task_id, "guess-2");
  assert.equal("run_id" in reset.observation, false);
  assert.equal("trajectory_id" in reset.observation, false);

  const step = await (
    await fetch(`${srv.url}/envs/guess-number/step`, {
      method: "POST",
      body: JSON.stringify({ task_id: "guess-2", experiment: "rest-ids", action: { message: "2" } }),
    })
  ).json();
  await srv.server.recorder.drain();
  const t = await srv.db.prisma.trajectory.findUniqueOrThrow({ where: { id: step.observation.trajectory_id } });
  assert.equal(t.runId, step.observation.run_id);
});

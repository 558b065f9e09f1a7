/**
 * What a trainer on a cluster relies on besides the protocol: API tokens (required beyond loopback; read-only
 * tokens refused; another token's session is 404), bounded sessions (503 + Retry-After), idle expiry, resuming a
 * dropped connection, a graceful stop that records open episodes, a crash reported at the next start, and several
 * servers writing one database.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import http from "node:http";
import net from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { RolloutLabEnv } from "../../clients/typescript/rollout-lab-env";
import { createToken } from "../../server/services/tokens";
import { serveOptionsFrom, startEnvServer } from "../../trainer/env-server/main";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { openRaw, startTestEnvServer } from "./helpers/env-server";

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase("rl_envsess");
});
after(() => db?.drop());

/** The HTTP status a WebSocket handshake gets (101 when accepted), with its headers. */
function handshake(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, {
      headers: {
        Connection: "Upgrade",
        Upgrade: "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        ...headers,
      },
    });
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve({ status: 101, headers: res.headers });
    });
    req.on("response", (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on("error", reject);
  });
}

test("tokens: required beyond loopback (401), read-only refused (403), Bearer / Basic / subprotocol accepted; another token's session is 404", async () => {
  const srv = await startTestEnvServer({ db, tokenRequired: true });
  try {
    const writer = (await createToken(db.prisma, { name: "trainer-a", scopes: ["write"] })).token;
    const other = (await createToken(db.prisma, { name: "trainer-b", scopes: ["write"] })).token;
    const reader = (await createToken(db.prisma, { name: "dashboard", scopes: ["read"] })).token;
    const ws = `${srv.url}/envs/guess-number/ws`;

    const none = await fetch(`${srv.url}/envs/guess-number/reset`, { method: "POST" });
    assert.equal(none.status, 401);
    assert.match(none.headers.get("www-authenticate") ?? "", /Bearer/);
    assert.match((await none.json()).detail, /needs an API token/);
    assert.equal((await handshake(ws)).status, 401);
    assert.equal((await handshake(ws, { Authorization: `Bearer ${reader}` })).status, 403);
    assert.equal((await handshake(ws, { Authorization: "Bearer rl_notatoken" })).status, 401);
    assert.equal((await handshake(ws, { Authorization: `Bearer ${writer}` })).status, 101);
    assert.equal((await handshake(ws, { Authorization: `Basic ${Buffer.from(`openenv:${writer}`).toString("base64")}` })).status, 101);
    assert.equal((await fetch(`${srv.url}/envs/guess-number/health`)).status, 200, "health stays open for load balancers");

    const env = await RolloutLabEnv.connect(`${srv.url}/envs/guess-number`, { token: writer });
    const { observation } = await env.reset({ seed: 5 });
    await env.step("4");
    const mine = await fetch(`${srv.url}/envs/guess-number/state?session_id=${observation.session_id}`, {
      headers: { Authorization: `Bearer ${writer}` },
    });
    assert.equal(mine.status, 200);
    const theirs = await fetch(`${srv.url}/envs/guess-number/state?session_id=${observation.session_id}`, {
      headers: { Authorization: `Bearer ${other}` },
    });
    assert.equal(theirs.status, 404);
    assert.equal((await handshake(`${ws}?session_id=${observation.session_id}`, { Authorization: `Bearer ${other}` })).status, 404);
    await env.close();
    await srv.server.recorder.drain();
    const run = await db.prisma.run.findFirstOrThrow({ where: { launchedByName: "trainer-a" } });
    assert.match(run.name, /^OpenEnv episodes · trainer-a · \d{4}-\d{2}-\d{2}$/, "one run per token and day by default");
  } finally {
    await srv.close();
  }
});

test("an open loopback server refuses web pages from other origins (a page can open a WebSocket to 127.0.0.1)", async () => {
  const srv = await startTestEnvServer({ db });
  try {
    assert.equal((await handshake(`${srv.url}/envs/guess-number/ws`, { Origin: "https://evil.example" })).status, 403);
    assert.equal((await handshake(`${srv.url}/envs/guess-number/ws`, { Origin: "http://127.0.0.1:3000" })).status, 101);
  } finally {
    await srv.close();
  }
});

test("sessions are bounded: past the limit a new one gets 503 with Retry-After, and a freed slot is reused", async () => {
  const srv = await startTestEnvServer({
    db,
    limits: { maxSessions: 2, maxSessionsPerClient: 3, idleTimeoutMs: 600_000, detachedGraceMs: 60_000 },
  });
  try {
    const a = await RolloutLabEnv.connect(`${srv.url}/envs/guess-number`);
    const b = await RolloutLabEnv.connect(`${srv.url}/envs/guess-number`);
    const third = await handshake(`${srv.url}/envs/guess-number/ws`);
    assert.equal(third.status, 503);
    assert.ok(Number(third.headers["retry-after"]) >= 1, `Retry-After ${third.headers["retry-after"]}`);
    const viaHttp = await fetch(`${srv.url}/envs/guess-number/reset`, { method: "POST" });
    assert.equal(viaHttp.status, 503);
    assert.match((await viaHttp.json()).detail, /at capacity: 2\/2/);
    await a.close();
    const c = await RolloutLabEnv.connect(`${srv.url}/envs/guess-number`);
    await c.close();
    await b.close();
  } finally {
    await srv.close();
  }
});

test("an idle session is ended (close 1001) and its episode recorded as idle_expired", async () => {
  const srv = await startTestEnvServer({ db, limits: { maxSessions: 8, idleTimeoutMs: 700, detachedGraceMs: 700 } });
  try {
    const peer = await openRaw(`${srv.url}/envs/guess-number/ws`);
    await peer.request({ type: "reset", data: { task_id: "guess-6", experiment: "idle" } });
    await peer.request({ type: "step", data: { message: "2" } });
    const closed = await peer.closed;
    assert.equal(closed.code, 1001);
    assert.match(closed.reason, /idle/);
    await srv.server.recorder.drain();
    const t = await db.prisma.trajectory.findFirstOrThrow({ where: { run: { name: "idle" } } });
    assert.equal(t.endReason, "idle_expired");
    assert.equal(t.status, "truncated");
    assert.equal(srv.server.registry.size, 0);
  } finally {
    await srv.close();
  }
});

/** A WebSocket over a raw socket, so the test can drop the connection without a close frame. */
async function droppableSession(url: string, messages: object[]): Promise<{ replies: string[]; drop(): void }> {
  const { port, pathname } = new URL(url);
  const socket = net.connect(Number(port), "127.0.0.1");
  await new Promise((r) => socket.once("connect", r));
  socket.write(
    `GET ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  let buf = Buffer.alloc(0);
  socket.on("data", (d: Buffer) => (buf = Buffer.concat([buf, d])));
  const replies: string[] = [];
  const readFrame = async () => {
    for (;;) {
      const start = buf.indexOf("\r\n\r\n") >= 0 && buf.toString("latin1").startsWith("HTTP") ? buf.indexOf("\r\n\r\n") + 4 : 0;
      if (start) buf = buf.subarray(start);
      if (buf.length >= 2) {
        const len7 = buf[1] & 0x7f;
        const off = len7 === 126 ? 4 : 2;
        const len = len7 === 126 ? buf.readUInt16BE(2) : len7;
        if (buf.length >= off + len) {
          replies.push(buf.subarray(off, off + len).toString());
          buf = buf.subarray(off + len);
          return;
        }
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  for (const m of messages) {
    const payload = Buffer.from(JSON.stringify(m));
    const mask = Buffer.from([1, 2, 3, 4]);
    const header =
      payload.length < 126
        ? Buffer.from([0x81, 0x80 | payload.length])
        : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 255]);
    socket.write(Buffer.concat([header, mask, Buffer.from(payload.map((b, i) => b ^ mask[i & 3]))]));
    await readFrame();
  }
  return { replies, drop: () => socket.destroy() };
}

test("a dropped connection keeps its session for the grace period: the client resumes it with session_id and plays on", async () => {
  const srv = await startTestEnvServer({ db });
  try {
    const first = await droppableSession(`${srv.url}/envs/guess-number/ws`, [
      { type: "reset", data: { task_id: "guess-6", experiment: "resume" } },
      { type: "step", data: { message: "4" } },
    ]);
    const opened = JSON.parse(first.replies[0]).data.observation;
    assert.equal(JSON.parse(first.replies[1]).data.observation.messages[0].content, "higher than 4");
    first.drop();
    await new Promise((r) => setTimeout(r, 200));
    const again = await RolloutLabEnv.connect(`${srv.url}/envs/guess-number`, { sessionId: opened.session_id });
    const result = await again.step("6");
    assert.equal(result.done, true);
    assert.equal(result.reward, 0.75, "solved in 2 turns: the resumed episode kept its first turn");
    await again.close();
  } finally {
    await srv.close();
  }
});

test("a graceful stop ends open episodes as server_stopped, records them, and tells the client (close 1001)", async () => {
  const srv = await startTestEnvServer({ db });
  const peer = await openRaw(`${srv.url}/envs/guess-number/ws`);
  await peer.request({ type: "reset", data: { task_id: "guess-3", experiment: "graceful" } });
  await peer.request({ type: "step", data: { message: "5" } });
  await srv.server.stop();
  assert.equal((await peer.closed).code, 1001);
  const t = await db.prisma.trajectory.findFirstOrThrow({ where: { run: { name: "graceful" } } });
  assert.equal(t.endReason, "server_stopped");
});

test("a server killed mid-episode says at its next start which sessions were lost: log, /health and a warning on the run", async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "rl-envs-crash-"));
  try {
    const child = spawn(
      process.execPath,
      [...process.execArgv.filter((a) => !a.startsWith("--test")), "trainer/env-server/main.ts", "--port", "0"],
      {
        env: { ...process.env, DATABASE_URL: db.url, ROLLOUT_LAB_DATA_DIR: dataDir },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const port = await new Promise<number>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /http:\/\/127\.0\.0\.1:(\d+)\/envs/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once("exit", (code) => reject(new Error(`server exited (${code}): ${out}`)));
    });
    const env = await RolloutLabEnv.connect(`http://127.0.0.1:${port}/envs/guess-number`);
    const { observation } = await env.reset({ task_id: "guess-7", experiment: "crash" });
    await env.step("4");
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));

    const log: string[] = [];
    const restarted = await startEnvServer({ ...serveOptionsFrom({ port: "0" }), dataDir, log: (l) => log.push(l) }, db.url);
    try {
      assert.equal(restarted.server.lostAtStart.length, 1);
      assert.equal(restarted.server.lostAtStart[0].sessionId, observation.session_id);
      assert.equal(restarted.server.lostAtStart[0].episodeId, observation.episode_id);
      assert.ok(
        log.some((l) => l.includes(observation.session_id) && l.includes("lost")),
        log.join("\n"),
      );
      const health = await (await fetch(`http://127.0.0.1:${restarted.port}/health`)).json();
      assert.equal(health.lost_at_start[0].sessionId, observation.session_id);
      const event = await db.prisma.runEvent.findFirstOrThrow({ where: { run: { name: "crash" } } });
      assert.equal(event.level, "warn");
      assert.match(event.message, new RegExp(`session ${observation.session_id} .*lost mid-episode`));
    } finally {
      await restarted.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("two servers on one database: episodes of one experiment land in one run, one group per task, indexes unique", async () => {
  const a = await startTestEnvServer({ db });
  const b = await startTestEnvServer({ db });
  try {
    const play = async (url: string, i: number) => {
      const env = await RolloutLabEnv.connect(`${url}/envs/guess-number`);
      await env.reset({ task_id: `guess-${1 + (i % 2)}`, experiment: "shared", step: 0 });
      const r = await env.step(String(1 + (i % 2)));
      await env.close();
      return r.reward;
    };
    const rewards = await Promise.all(Array.from({ length: 12 }, (_, i) => play(i % 2 ? a.url : b.url, Math.floor(i / 2))));
    assert.deepEqual(rewards, Array(12).fill(1));
    await Promise.all([a.server.recorder.drain(), b.server.recorder.drain()]);
    const runs = await db.prisma.run.findMany({ where: { name: "shared" }, include: { groups: { include: { trajectories: true } } } });
    assert.equal(runs.length, 1);
    assert.deepEqual(runs[0].groups.map((g) => g.taskId).sort(), ["guess-1", "guess-2"]);
    for (const g of runs[0].groups) {
      assert.equal(g.trajectories.length, 6);
      assert.deepEqual(
        g.trajectories.map((t) => t.indexInGroup).sort((x, y) => x - y),
        [0, 1, 2, 3, 4, 5],
      );
      assert.equal(g.rewardMean, 1);
    }
  } finally {
    await a.close();
    await b.close();
  }
});

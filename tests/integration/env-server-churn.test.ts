/**
 * Dropped clients must not hold the server (issue 38, finding 3): a trainer killed mid-episode leaves with a TCP FIN
 * and no close frame. The server notices at once, keeps a session that is mid-episode resumable for the grace period
 * only (and gives it up sooner when a connected client needs the slot), frees one with nothing to resume at once,
 * and caps what one client (a token, or a tokenless address) may hold.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { RolloutLabEnv } from "../../clients/typescript/rollout-lab-env";
import { createToken } from "../../server/services/tokens";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { startTestEnvServer } from "./helpers/env-server";

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase("rl_envchurn");
});
after(() => db?.drop());

const masked = (text: string): Buffer => {
  const payload = Buffer.from(text);
  const mask = Buffer.from([9, 8, 7, 6]);
  const header =
    payload.length < 126
      ? Buffer.from([0x81, 0x80 | payload.length])
      : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 255]);
  return Buffer.concat([header, mask, Buffer.from(payload.map((b, i) => b ^ mask[i & 3]))]);
};

/**
 * A client on a raw socket, as a killed trainer looks to the server: handshake, the given messages (each answered),
 * then a FIN without a close frame. Resolves with the handshake's status.
 */
async function playThenFin(url: string, messages: object[], leave: "fin" | "silent" = "fin"): Promise<number> {
  const { port, pathname } = new URL(url);
  const socket = net.connect(Number(port), "127.0.0.1");
  await new Promise((r, j) => socket.once("connect", r).once("error", j));
  let received = Buffer.alloc(0);
  socket.on("data", (d: Buffer) => (received = Buffer.concat([received, d])));
  socket.on("error", () => {});
  const wait = async (pred: () => boolean) => {
    for (let i = 0; i < 3000 && !pred(); i++) await new Promise((r) => setTimeout(r, 5));
  };
  socket.write(
    `GET ${pathname} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  await wait(() => received.includes("\r\n\r\n"));
  const status = Number(/^HTTP\/1\.1 (\d+)/.exec(received.toString("latin1"))?.[1] ?? 0);
  if (status === 101) {
    received = received.subarray(received.indexOf("\r\n\r\n") + 4);
    for (const m of messages) {
      const had = received.length;
      socket.write(masked(JSON.stringify(m)));
      await wait(() => received.length > had);
    }
  }
  if (leave === "fin")
    socket.end(); // FIN, no close frame
  else socket.pause(); // a peer that vanished without a FIN: no pong, nothing (the server cuts it)
  return status;
}

async function until(pred: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("a FIN mid-episode is noticed at once; the session is released within the grace and its episode recorded", async () => {
  const srv = await startTestEnvServer({ db, limits: { maxSessions: 8, idleTimeoutMs: 600_000, detachedGraceMs: 500 } });
  try {
    const ws = `${srv.url}/envs/guess-number/ws`;
    await playThenFin(ws, [
      { type: "reset", data: { task_id: "guess-6", experiment: "fin-grace" } },
      { type: "step", data: { message: "2" } },
    ]);
    await until(() => srv.server.registry.size === 0, "the dropped session to be released (grace 0.5 s, idle timeout 600 s)");
    await srv.server.recorder.drain();
    const t = await db.prisma.trajectory.findFirstOrThrow({ where: { run: { name: "fin-grace" } } });
    assert.equal(t.status, "truncated");
    assert.equal(t.numTurns, 1);
  } finally {
    await srv.close();
  }
});

test("a peer that vanishes without a FIN misses its heartbeats: dropped, then released within the grace", async () => {
  const srv = await startTestEnvServer({
    db,
    heartbeatMs: 100,
    heartbeatTimeoutMs: 400,
    limits: { maxSessions: 8, idleTimeoutMs: 600_000, detachedGraceMs: 400 },
  });
  try {
    await playThenFin(
      `${srv.url}/envs/guess-number/ws`,
      [
        { type: "reset", data: { task_id: "guess-6", experiment: "silent" } },
        { type: "step", data: { message: "2" } },
      ],
      "silent",
    );
    await until(() => srv.server.registry.size === 0, "the silent session to be dropped and released");
    assert.equal(srv.server.websocketStats.heartbeatDrops, 1);
  } finally {
    await srv.close();
  }
});

test("a FIN before any reset, or after a finished episode, frees the slot at once", async () => {
  const srv = await startTestEnvServer({
    db,
    limits: { maxSessions: 2, maxSessionsPerClient: 2, idleTimeoutMs: 600_000, detachedGraceMs: 60_000 },
  });
  try {
    const ws = `${srv.url}/envs/guess-number/ws`;
    assert.equal(await playThenFin(ws, []), 101);
    assert.equal(
      await playThenFin(ws, [
        { type: "reset", data: { task_id: "guess-3" } },
        { type: "step", data: { message: "3" } },
      ]),
      101,
    );
    await until(() => srv.server.registry.size === 0, "both slots to be free", 3000);
    const env = await RolloutLabEnv.connect(`${srv.url}/envs/guess-number`);
    assert.equal((await env.reset({ task_id: "guess-1" })).done, false);
    await env.close();
  } finally {
    await srv.close();
  }
});

test("churn: 1,000 connects dropped with a FIN (half mid-episode), then a normal client is served at once", async () => {
  const maxSessions = 32;
  const srv = await startTestEnvServer({ db, limits: { maxSessions, idleTimeoutMs: 600_000, detachedGraceMs: 60_000 } });
  try {
    const ws = `${srv.url}/envs/guess-number/ws`;
    const statuses = new Map<number, number>();
    let peak = 0;
    for (let batch = 0; batch < 50; batch++) {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          playThenFin(ws, (batch * 20 + i) % 2 ? [{ type: "reset", data: { task_id: "guess-5", experiment: "churn" } }] : []),
        ),
      );
      for (const s of results) statuses.set(s, (statuses.get(s) ?? 0) + 1);
      peak = Math.max(peak, srv.server.registry.size);
    }
    assert.deepEqual(
      Object.fromEntries(statuses),
      { 101: 1000 },
      "no churning connect was refused: dropped sessions never locked the server",
    );
    assert.ok(peak <= maxSessions, `sessions held ${peak} ≤ ${maxSessions}`);
    const env = await RolloutLabEnv.connect(`${srv.url}/envs/guess-number`);
    await env.reset({ task_id: "guess-2" });
    const r = await env.step("2");
    assert.equal(r.done, true);
    assert.equal(r.reward, 1);
    await env.close();
    const health = await (await fetch(`${srv.url}/health`)).json();
    assert.ok(health.websockets.open <= 1, `open WebSockets after the churn: ${health.websockets.open}`);
  } finally {
    await srv.close();
  }
});

test("one client cannot take every slot: a tokenless address is capped at its share, another token still gets in", async () => {
  const srv = await startTestEnvServer({
    db,
    limits: { maxSessions: 4, maxSessionsPerClient: 2, idleTimeoutMs: 600_000, detachedGraceMs: 60_000 },
  });
  try {
    const a = await RolloutLabEnv.connect(`${srv.url}/envs/guess-number`);
    const b = await RolloutLabEnv.connect(`${srv.url}/envs/guess-number`);
    const refused = await fetch(`${srv.url}/envs/guess-number/reset`, { method: "POST" });
    assert.equal(refused.status, 503);
    assert.match(
      (await refused.json()).detail,
      /This client \(address 127\.0\.0\.1\) already holds 2\/2 sessions.*--max-sessions-per-client/,
    );
    const token = (await createToken(db.prisma, { name: "other-trainer", scopes: ["ingest"] })).token;
    const other = await RolloutLabEnv.connect(`${srv.url}/envs/guess-number`, { token });
    assert.equal((await other.reset({ task_id: "guess-1" })).done, false);
    await Promise.all([a.close(), b.close(), other.close()]);
  } finally {
    await srv.close();
  }
});

test("backpressure: a client that asks for its long conversation 300 times and reads nothing is closed (1008), the server's memory bounded", async () => {
  const srv = await startTestEnvServer({ db, maxBufferedBytes: 1024 * 1024 });
  try {
    const { port } = new URL(srv.url);
    const socket = net.connect(Number(port), "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    let received = Buffer.alloc(0);
    socket.on("data", (d: Buffer) => (received = Buffer.concat([received, d])));
    socket.write(
      `GET /envs/guess-number/ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    await until(() => received.includes("\r\n\r\n"), "the handshake");
    socket.write(masked(JSON.stringify({ type: "reset", data: { task_id: "guess-5", experiment: "backpressure" } })));
    await until(() => received.length > 200, "the opening observation");
    // One long turn makes every state ~60 KB (the conversation holds it).
    const frame = (text: string) => {
      const payload = Buffer.from(text);
      const header = Buffer.from([0x81, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 0, 9, 8, 7, 6]);
      header.writeBigUInt64BE(BigInt(payload.length), 2);
      return Buffer.concat([header, Buffer.from(payload.map((b, i) => b ^ [9, 8, 7, 6][i & 3]))]);
    };
    socket.write(frame(JSON.stringify({ type: "step", data: { message: `1 ${"x".repeat(60_000)}` } })));
    await new Promise((r) => setTimeout(r, 300));
    socket.pause(); // from here on the client reads nothing
    for (let i = 0; i < 300; i++) socket.write(masked(JSON.stringify({ type: "state" })));
    await until(() => srv.server.websocketStats.backpressureCloses === 1, "the server to close the client that does not read", 20_000);
    socket.resume();
    await new Promise((r) => socket.once("close", r));
    const at = received.lastIndexOf(Buffer.from([0x88]));
    assert.ok(at > 0, "a close frame ends what was sent");
    assert.equal(received.readUInt16BE(at + 2), 1008);
    assert.match(received.subarray(at + 4).toString(), /client not reading/);
    assert.ok(received.length < 300 * 60_000, `${received.length} bytes sent of the ${300 * 60_000} asked for`);
  } finally {
    await srv.close();
  }
});

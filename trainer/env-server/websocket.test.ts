/**
 * The WebSocket layer (the `ws` package with the server's limits around it) against RFC 6455's own examples (§1.3's
 * handshake key, §5.7's frames) sent byte for byte over a real TCP socket to an echo server, plus what a long-running
 * server relies on: unmasked frames are protocol errors, oversize messages are refused without losing the
 * connection (and past the hard limit closed with 1009), ping gets pong, close gets close, compression is declined,
 * a FIN is noticed at once, a silent peer is dropped by the heartbeat, and a client that does not read is closed
 * with 1008. (Independent clients play the full server in tests/integration/env-server*.test.ts.)
 */
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { WebSocketEndpoint, handshakeProblem, hardLimitBytes, refuseUpgrade, type WebSocketConnection } from "./websocket";

const LIMIT = 100_000;
let server: http.Server;
let port = 0;
const tooBig: number[] = [];
const closes: { code: number; byClient: boolean }[] = [];
/** The echo server's endpoint: no heartbeat during the frame tests (their raw clients answer no ping). */
const endpoint = new WebSocketEndpoint({
  maxMessageBytes: LIMIT,
  maxBufferedBytes: 64 * 1024,
  heartbeatMs: 3_600_000,
  heartbeatTimeoutMs: 3_600_000,
});
/** A second echo server's, beating fast: a ping every 100 ms, silence past 1.5 s dropped (room for a loaded machine). */
const beating = new WebSocketEndpoint({ maxMessageBytes: LIMIT, maxBufferedBytes: 64 * 1024, heartbeatMs: 100, heartbeatTimeoutMs: 1500 });
let beatingServer: http.Server;
let beatingPort = 0;

function echoServer(ep: WebSocketEndpoint): http.Server {
  const s = http.createServer();
  s.on("upgrade", (req, socket, head) => {
    const problem = handshakeProblem(req);
    if (problem) return refuseUpgrade(socket, problem.status, { detail: problem.message }, problem.headers);
    let ws: WebSocketConnection | null = null;
    ep.accept(
      req,
      socket,
      head,
      {
        // "flood:N" answers with N copies of a 4 KB reply (a client asking for more than it reads).
        onMessage: (text) => {
          const flood = /^flood:(\d+)$/.exec(text);
          if (flood) for (let i = 0; i < Number(flood[1]); i++) ws?.send("z".repeat(4096));
          else ws?.send(text);
        },
        onTooBig: (n) => (tooBig.push(n), ws?.send("skipped")),
        onClose: ({ code, byClient }) => closes.push({ code, byClient }),
      },
      (c) => (ws = c),
    );
  });
  return s;
}

const listen = async (s: http.Server) => {
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return (s.address() as net.AddressInfo).port;
};

before(async () => {
  server = echoServer(endpoint);
  port = await listen(server);
  beatingServer = echoServer(beating);
  beatingPort = await listen(beatingServer);
  endpoint.startHeartbeat();
  beating.startHeartbeat();
});
after(async () => {
  endpoint.stop();
  beating.stop();
  beatingServer.closeAllConnections();
  server.closeAllConnections();
  await Promise.all([server, beatingServer].map((s) => new Promise<void>((r) => s.close(() => r()))));
});

/** Resolves once `pred` holds (polled), or fails naming what was awaited. */
async function until(pred: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A client on a raw socket: sends bytes, collects whatever the server writes back. */
async function rawClient(headers: Record<string, string> = {}, target = port) {
  const socket = net.connect(target, "127.0.0.1");
  await new Promise((r) => socket.once("connect", r));
  let received = Buffer.alloc(0);
  socket.on("data", (d: Buffer) => (received = Buffer.concat([received, d])));
  const allHeaders = {
    Host: `127.0.0.1:${target}`,
    Upgrade: "websocket",
    Connection: "Upgrade",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version": "13",
    ...headers,
  };
  socket.write(
    `GET /ws HTTP/1.1\r\n${Object.entries(allHeaders)
      .map(([k, v]) => `${k}: ${v}`)
      .join("\r\n")}\r\n\r\n`,
  );
  const waitFor = async (n: number, ms = 3000): Promise<Buffer> => {
    const deadline = Date.now() + ms;
    while (received.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const out = received.subarray(0, n);
    received = received.subarray(n);
    return out;
  };
  const handshake = async (): Promise<string> => {
    const deadline = Date.now() + 3000;
    while (!received.includes("\r\n\r\n") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const end = received.indexOf("\r\n\r\n") + 4;
    const text = received.subarray(0, end).toString();
    received = received.subarray(end);
    return text;
  };
  const closed = new Promise<void>((r) => socket.once("close", () => r()));
  return { socket, waitFor, handshake, closed, rest: () => received };
}

/** A masked client frame (the test's own encoder, checked below against the RFC's example bytes). */
function masked(opcode: number, payload: Buffer, fin = true, mask = Buffer.from([0x37, 0xfa, 0x21, 0x3d])): Buffer {
  const len = payload.length;
  const header =
    len < 126 ? Buffer.from([0, 0x80 | len]) : len < 65536 ? Buffer.from([0, 0x80 | 126, len >> 8, len & 255]) : Buffer.alloc(10);
  if (len >= 65536) {
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(len), 2);
  }
  header[0] = (fin ? 0x80 : 0) | opcode;
  const body = Buffer.from(payload.map((b, i) => b ^ mask[i & 3]));
  return Buffer.concat([header, mask, body]);
}

test("RFC 6455 §5.7: a single-frame masked 'Hello' is read and echoed unmasked", async () => {
  const c = await rawClient();
  assert.match(await c.handshake(), /^HTTP\/1\.1 101[\s\S]*Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=/);
  const rfcFrame = Buffer.from([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]);
  assert.deepEqual(masked(0x1, Buffer.from("Hello")), rfcFrame, "the test's encoder makes the RFC's bytes");
  c.socket.write(rfcFrame);
  assert.deepEqual(await c.waitFor(7), Buffer.from([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]));
  c.socket.destroy();
});

test("RFC 6455 §5.7: masked ping gets the unmasked pong; 256-byte and 64 KiB messages use the 16- and 64-bit lengths", async () => {
  const c = await rawClient();
  await c.handshake();
  c.socket.write(masked(0x9, Buffer.from("Hello")));
  assert.deepEqual(await c.waitFor(7), Buffer.from([0x8a, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]));
  const k256 = Buffer.alloc(256, "a");
  c.socket.write(masked(0x2, k256));
  assert.deepEqual(await c.waitFor(4), Buffer.from([0x81, 0x7e, 0x01, 0x00]));
  assert.deepEqual(await c.waitFor(256), k256);
  const k64 = Buffer.alloc(65536, "b");
  // Sent in small pieces: frames arrive split across TCP reads.
  const frame = masked(0x1, k64);
  for (let i = 0; i < frame.length; i += 1000) c.socket.write(frame.subarray(i, i + 1000));
  assert.deepEqual(await c.waitFor(10), Buffer.from([0x81, 0x7f, 0, 0, 0, 0, 0, 1, 0, 0]), "64-bit length 0x10000");
  assert.deepEqual(await c.waitFor(65536), k64);
  c.socket.destroy();
});

test("a fragmented message is reassembled; control frames may come between its fragments", async () => {
  const c = await rawClient();
  await c.handshake();
  c.socket.write(
    Buffer.concat([masked(0x1, Buffer.from("Hel"), false), masked(0x9, Buffer.from("p")), masked(0x0, Buffer.from("lo"), true)]),
  );
  assert.deepEqual(await c.waitFor(3), Buffer.from([0x8a, 0x01, 0x70]), "the pong comes first");
  assert.deepEqual(await c.waitFor(7), Buffer.from([0x81, 0x05, ...Buffer.from("Hello")]));
  c.socket.destroy();
});

test("an oversize message is refused (even split into fragments) and the next one still arrives; past the hard limit, close 1009", async () => {
  const c = await rawClient();
  await c.handshake();
  const big = Buffer.alloc(LIMIT + 1, "x");
  c.socket.write(
    Buffer.concat([
      masked(0x1, big.subarray(0, 60_000), false),
      masked(0x0, big.subarray(60_000), true),
      masked(0x1, Buffer.from("after")),
    ]),
  );
  assert.equal((await c.waitFor(9)).subarray(2).toString(), "skipped");
  assert.equal((await c.waitFor(7)).subarray(2).toString(), "after");
  assert.deepEqual(tooBig.slice(-1), [LIMIT + 1]);
  // The hard limit is never buffered: the frame header alone announces it, and the connection is closed.
  const header = Buffer.from([0x81, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]);
  header.writeBigUInt64BE(BigInt(hardLimitBytes(LIMIT) + 1), 2);
  c.socket.write(header);
  const close = await c.waitFor(4);
  assert.equal(close[0], 0x88);
  assert.equal(close.readUInt16BE(2), 1009);
  await c.closed;
});

test("the RFC's unmasked client frame is a protocol error: the server closes with 1002", async () => {
  const c = await rawClient();
  await c.handshake();
  c.socket.write(Buffer.from([0x01, 0x03, 0x48, 0x65, 0x6c]));
  const close = await c.waitFor(4);
  assert.equal(close[0], 0x88);
  assert.equal(close.readUInt16BE(2), 1002);
  c.socket.destroy();
});

test("close handshake: the client's close 1000 is answered with close and the connection ends", async () => {
  const c = await rawClient();
  await c.handshake();
  const body = Buffer.alloc(2);
  body.writeUInt16BE(1000);
  c.socket.write(masked(0x8, body));
  assert.deepEqual(await c.waitFor(4), Buffer.from([0x88, 0x02, 0x03, 0xe8]));
  await c.closed;
  await until(() => closes.some((c) => c.code === 1000 && c.byClient), "the close to be reported as the client's own");
});

test("permessage-deflate is declined: the handshake answers without extensions", async () => {
  const c = await rawClient({ "Sec-WebSocket-Extensions": "permessage-deflate; client_max_window_bits" });
  const answer = await c.handshake();
  assert.match(answer, /^HTTP\/1\.1 101/);
  assert.doesNotMatch(answer, /Sec-WebSocket-Extensions/i);
  c.socket.destroy();
});

test("a client that leaves with a FIN (no close frame) is noticed at once, as a drop, not a close of its own", async () => {
  const c = await rawClient();
  await c.handshake();
  const before = closes.length;
  c.socket.end();
  await until(() => closes.length > before, "the server to notice the FIN");
  assert.deepEqual(closes.at(-1), { code: 1006, byClient: false });
  await c.closed;
});

test("a peer silent past the heartbeat timeout is dropped; one that answers pings stays", async () => {
  const before = beating.stats.heartbeatDrops;
  const since = Date.now();
  const silent = await rawClient({}, beatingPort);
  await silent.handshake();
  await silent.closed;
  assert.ok(Date.now() - since >= 1500, "not before the timeout: a missed ping or two is a slow client, not a gone one");
  assert.equal(beating.stats.heartbeatDrops, before + 1);
  assert.equal(closes.at(-1)?.byClient, false);

  // Node's own WebSocket client answers pings, as every client library does.
  const lively = new WebSocket(`ws://127.0.0.1:${beatingPort}/ws`);
  await new Promise((r, j) => ((lively.onopen = r), (lively.onerror = j)));
  await new Promise((r) => setTimeout(r, 3500)); // 35 heartbeats, more than twice the timeout
  const echoed = new Promise<string>((r) => (lively.onmessage = (e) => r(String(e.data))));
  lively.send("still here");
  assert.equal(await echoed, "still here");
  lively.close();
});

test("a client that does not read is closed with 1008 and a reason saying so; its replies stop piling up", async () => {
  const c = await rawClient();
  await c.handshake();
  c.socket.pause(); // reads nothing: the server's replies fill the socket buffers, then its own queue
  const before = endpoint.stats.backpressureCloses;
  c.socket.write(masked(0x1, Buffer.from("flood:3000"))); // 12 MB asked for, 64 KB allowed unread
  await until(() => endpoint.stats.backpressureCloses > before, "the backpressure close");
  c.socket.resume();
  await c.closed;
  const all = c.rest();
  const at = all.lastIndexOf(Buffer.from([0x88]));
  assert.ok(at >= 0, "a close frame arrived after the replies");
  assert.equal(all.readUInt16BE(at + 2), 1008);
  assert.match(all.subarray(at + 4).toString(), /client not reading: \d+ bytes of replies unread \(limit 65536\)/);
  assert.ok(all.length < 12_000_000, `far fewer than the 12 MB asked for were sent (${all.length} bytes)`);
});

test("bad handshakes get plain HTTP answers: no key → 400, version 8 → 426 naming version 13", async () => {
  const noKey = await rawClient({ "Sec-WebSocket-Key": "" });
  assert.match(await noKey.handshake(), /^HTTP\/1\.1 400/);
  const old = await rawClient({ "Sec-WebSocket-Version": "8" });
  assert.match(await old.handshake(), /^HTTP\/1\.1 426[\s\S]*Sec-WebSocket-Version: 13/);
  noKey.socket.destroy();
  old.socket.destroy();
});

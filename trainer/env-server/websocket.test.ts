/**
 * The WebSocket server half against RFC 6455's own examples (§1.3's handshake key, §5.7's frames) sent byte for
 * byte over a real TCP socket to an echo server, plus the failure rules a client relies on: unmasked frames and
 * RSV bits are protocol errors, oversize messages are skipped without losing the connection, ping gets pong,
 * close gets close. (Independent clients play the full server in tests/integration/env-server*.test.ts.)
 */
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { acceptKey, handshakeProblem, refuseUpgrade, upgradeToWebSocket } from "./websocket";

const LIMIT = 100_000;
let server: http.Server;
let port = 0;
const tooBig: number[] = [];
const closes: number[] = [];

before(async () => {
  server = http.createServer();
  server.on("upgrade", (req, socket, head) => {
    const problem = handshakeProblem(req);
    if (problem) return refuseUpgrade(socket, problem.status, { detail: problem.message }, problem.headers);
    const ws = upgradeToWebSocket(
      req,
      socket,
      head,
      { onMessage: (text) => ws.send(text), onTooBig: (n) => (tooBig.push(n), ws.send("skipped")), onClose: (code) => closes.push(code) },
      LIMIT,
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as net.AddressInfo).port;
});
after(() => new Promise<void>((r) => server.close(() => r())));

/** A client on a raw socket: sends bytes, collects whatever the server writes back. */
async function rawClient(headers: Record<string, string> = {}) {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise((r) => socket.once("connect", r));
  let received = Buffer.alloc(0);
  socket.on("data", (d: Buffer) => (received = Buffer.concat([received, d])));
  const allHeaders = {
    Host: `127.0.0.1:${port}`,
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

test("RFC 6455 §1.3: the accept key of the sample nonce", () => {
  assert.equal(acceptKey("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
});

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

test("an oversize message is skipped (even split into fragments) and the next one still arrives", async () => {
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
  c.socket.destroy();
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
  assert.ok(closes.includes(1000));
});

test("bad handshakes get plain HTTP answers: no key → 400, version 8 → 426 naming version 13", async () => {
  const noKey = await rawClient({ "Sec-WebSocket-Key": "" });
  assert.match(await noKey.handshake(), /^HTTP\/1\.1 400/);
  const old = await rawClient({ "Sec-WebSocket-Version": "8" });
  assert.match(await old.handshake(), /^HTTP\/1\.1 426[\s\S]*Sec-WebSocket-Version: 13/);
  noKey.socket.destroy();
  old.socket.destroy();
});

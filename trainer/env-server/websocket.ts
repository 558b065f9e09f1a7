/**
 * The server half of WebSocket (RFC 6455) on node:http's `upgrade` event: the opening handshake (§4.2), framing
 * with client masking (§5.2-5.3), fragmented messages (§5.4), ping/pong (§5.5.2-3) and the closing handshake
 * (§5.5.1, §7). No extensions are negotiated (a client's permessage-deflate offer is declined by not answering it),
 * so RSV bits must be 0. Written here rather than pulled in as a package: this is all the environment server needs.
 *
 * A message larger than `maxMessageBytes` is never buffered: its bytes are skipped as they arrive and `onTooBig`
 * is told, so the session survives one oversize action (the caller answers it with an error).
 */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const OP = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;
/** Close codes used here (§7.4.1). */
export const CLOSE = { normal: 1000, goingAway: 1001, protocolError: 1002, invalidData: 1007, tooBig: 1009, internal: 1011 } as const;
/** How long to wait for the client's close frame after sending ours before dropping the connection. */
const CLOSE_TIMEOUT_MS = 3000;

export function acceptKey(key: string): string {
  return createHash("sha1")
    .update(key + GUID)
    .digest("base64");
}

export interface WebSocketHandlers {
  onMessage(text: string): void;
  /** A message over the limit was skipped; the connection stays open. */
  onTooBig(bytes: number): void;
  /** Called once, when the connection is gone (after the close handshake, or on a dropped socket). */
  onClose(code: number, reason: string): void;
}

/** Why an upgrade request is not a valid WebSocket handshake (status + message), or null when it is. */
export function handshakeProblem(req: IncomingMessage): { status: number; message: string; headers?: Record<string, string> } | null {
  if (req.method !== "GET") return { status: 405, message: "A WebSocket handshake must be a GET request." };
  if ((req.headers.upgrade ?? "").toLowerCase() !== "websocket") return { status: 400, message: "Upgrade header must be websocket." };
  if (!/\bupgrade\b/i.test(req.headers.connection ?? "")) return { status: 400, message: "Connection header must include Upgrade." };
  if (req.headers["sec-websocket-version"] !== "13")
    return { status: 426, message: "Only WebSocket version 13 is supported.", headers: { "Sec-WebSocket-Version": "13" } };
  const key = req.headers["sec-websocket-key"];
  if (typeof key !== "string" || Buffer.from(key, "base64").length !== 16)
    return { status: 400, message: "Sec-WebSocket-Key must be 16 random bytes in base64." };
  return null;
}

/** Answers an upgrade request with a plain HTTP response and closes the socket. */
export function refuseUpgrade(socket: Duplex, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  const reason =
    {
      400: "Bad Request",
      401: "Unauthorized",
      403: "Forbidden",
      404: "Not Found",
      405: "Method Not Allowed",
      426: "Upgrade Required",
      503: "Service Unavailable",
    }[status] ?? "Error";
  const lines = [
    `HTTP/1.1 ${status} ${reason}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(text)}`,
    "Connection: close",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join("\r\n")}\r\n\r\n${text}`);
}

function frame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const header = len < 126 ? Buffer.alloc(2) : len < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  header[0] = 0x80 | opcode;
  if (len < 126) header[1] = len;
  else if (len < 65536) {
    header[1] = 126;
    header.writeUInt16BE(len, 2);
  } else {
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(len), 2);
  }
  return Buffer.concat([header, payload]);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

export class WebSocketConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private fragmentBytes = 0;
  private fragmentOpcode = 0;
  /** Bytes of the current oversize frame still to skip, and whether the skipped message continues after it. */
  private skipBytes = 0;
  private skippingMessage = false;
  private closeSent = false;
  private closed = false;

  constructor(
    private readonly socket: Duplex,
    private readonly handlers: WebSocketHandlers,
    private readonly maxMessageBytes: number,
    /** Bytes of the first frames that arrived with the handshake. */
    head: Buffer = Buffer.alloc(0),
  ) {
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("close", () => this.finish(1006, "connection dropped"));
    socket.on("error", () => socket.destroy());
    if (head.length) this.receive(head);
  }

  get isOpen(): boolean {
    return !this.closeSent && !this.closed;
  }

  send(text: string): void {
    if (this.isOpen) this.socket.write(frame(OP.text, Buffer.from(text, "utf8")));
  }

  /** Starts the closing handshake; the socket is dropped if the client does not answer in time. */
  close(code: number = CLOSE.normal, reason = ""): void {
    if (this.closeSent || this.closed) return;
    this.closeSent = true;
    const body = Buffer.alloc(2 + Buffer.byteLength(reason.slice(0, 120)));
    body.writeUInt16BE(code, 0);
    body.write(reason.slice(0, 120), 2, "utf8");
    this.socket.write(frame(OP.close, body));
    setTimeout(() => this.socket.destroy(), CLOSE_TIMEOUT_MS).unref();
  }

  private finish(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.handlers.onClose(code, reason);
  }

  private fail(code: number, reason: string): void {
    this.close(code, reason);
    this.buffer = Buffer.alloc(0);
    this.socket.pause();
    this.finish(code, reason);
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    if (this.skipBytes > 0) {
      const n = Math.min(this.skipBytes, chunk.length);
      this.skipBytes -= n;
      chunk = chunk.subarray(n);
    }
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    while (!this.closed && this.skipBytes === 0 && this.parseFrame());
  }

  /** Parses one frame from the buffer; false when more bytes are needed or the connection failed. */
  private parseFrame(): boolean {
    const b = this.buffer;
    if (b.length < 2) return false;
    const fin = (b[0] & 0x80) !== 0;
    const opcode = b[0] & 0x0f;
    const masked = (b[1] & 0x80) !== 0;
    let len = b[1] & 0x7f;
    let offset = 2;
    if ((b[0] & 0x70) !== 0) return this.failed(CLOSE.protocolError, "no extension was negotiated, so RSV bits must be 0");
    if (!masked) return this.failed(CLOSE.protocolError, "client frames must be masked");
    const control = opcode >= 0x8;
    if (![0, 1, 2, 8, 9, 10].includes(opcode)) return this.failed(CLOSE.protocolError, `unknown opcode ${opcode}`);
    if (control && (!fin || len > 125))
      return this.failed(CLOSE.protocolError, "control frames must be unfragmented and at most 125 bytes");
    if (len === 126) {
      if (b.length < 4) return false;
      len = b.readUInt16BE(2);
      offset = 4;
    } else if (len === 127) {
      if (b.length < 10) return false;
      const big = b.readBigUInt64BE(2);
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) return this.failed(CLOSE.tooBig, "frame length out of range");
      len = Number(big);
      offset = 10;
    }
    if (!control && opcode !== OP.continuation && this.fragmentOpcode !== 0)
      return this.failed(CLOSE.protocolError, "a new message started before the fragmented one ended");
    if (!control && opcode !== OP.continuation && this.skippingMessage)
      return this.failed(CLOSE.protocolError, "a new message started before the fragmented one ended");
    if (opcode === OP.continuation && this.fragmentOpcode === 0 && !this.skippingMessage)
      return this.failed(CLOSE.protocolError, "continuation frame without a message to continue");

    if (b.length < offset + 4) return false;
    if (!control && (this.skippingMessage || this.fragmentBytes + len > this.maxMessageBytes)) {
      // Skip this frame's payload without buffering it (and the rest of its message).
      if (!this.skippingMessage) this.handlers.onTooBig(this.fragmentBytes + len);
      this.fragments = [];
      this.fragmentBytes = 0;
      this.fragmentOpcode = 0;
      this.skippingMessage = !fin;
      const skipNow = Math.min(len, b.length - offset - 4);
      this.skipBytes = len - skipNow;
      this.buffer = b.subarray(offset + 4 + skipNow);
      return true;
    }

    if (b.length < offset + 4 + len) return false;
    const mask = b.subarray(offset, offset + 4);
    const payload = Buffer.from(b.subarray(offset + 4, offset + 4 + len));
    for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
    this.buffer = b.subarray(offset + 4 + len);

    if (control) return this.control(opcode, payload);
    if (opcode !== OP.continuation) this.fragmentOpcode = opcode;
    this.fragments.push(payload);
    this.fragmentBytes += len;
    if (!fin) return true;
    const message = this.fragments.length === 1 ? this.fragments[0] : Buffer.concat(this.fragments);
    const kind = this.fragmentOpcode;
    this.fragments = [];
    this.fragmentBytes = 0;
    this.fragmentOpcode = 0;
    let text: string;
    try {
      text = utf8.decode(message);
    } catch {
      return this.failed(CLOSE.invalidData, `${kind === OP.text ? "text" : "binary"} message is not valid UTF-8`);
    }
    // Binary messages holding UTF-8 JSON are accepted too (some clients send bytes).
    this.handlers.onMessage(text);
    return true;
  }

  private control(opcode: number, payload: Buffer): boolean {
    if (opcode === OP.ping) {
      if (this.isOpen) this.socket.write(frame(OP.pong, payload));
    } else if (opcode === OP.close) {
      const code = payload.length >= 2 ? payload.readUInt16BE(0) : CLOSE.normal;
      const reason = payload.length > 2 ? payload.subarray(2).toString("utf8") : "";
      if (!this.closeSent) {
        this.closeSent = true;
        this.socket.write(frame(OP.close, payload.length >= 2 ? payload.subarray(0, 2) : Buffer.alloc(0)));
      }
      this.finish(code, reason);
      this.socket.end();
      return false;
    }
    return true;
  }

  private failed(code: number, reason: string): false {
    this.fail(code, reason);
    return false;
  }
}

/** Completes the handshake (call handshakeProblem first) and returns the open connection. */
export function upgradeToWebSocket(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  handlers: WebSocketHandlers,
  maxMessageBytes: number,
  /** The subprotocol selected from the client's offer (§4.2.2), if any. */
  protocol?: string,
): WebSocketConnection {
  const key = req.headers["sec-websocket-key"] as string;
  const lines = [
    "HTTP/1.1 101 Switching Protocols",
    "Upgrade: websocket",
    "Connection: Upgrade",
    `Sec-WebSocket-Accept: ${acceptKey(key)}`,
  ];
  if (protocol) lines.push(`Sec-WebSocket-Protocol: ${protocol}`);
  socket.write(`${lines.join("\r\n")}\r\n\r\n`);
  // Small frames must not wait for Nagle's algorithm: a step's reply is a few hundred bytes and latency-bound.
  (socket as unknown as { setNoDelay?: (v: boolean) => void }).setNoDelay?.(true);
  return new WebSocketConnection(socket, handlers, maxMessageBytes, head);
}

/**
 * WebSocket for the environment server, on the `ws` package (the one the Node ecosystem's servers use) rather than a
 * hand-written RFC 6455 parser: framing, masking, fragmentation, UTF-8 checks, ping/pong and the closing handshake are
 * the library's. What is ours is what a server that runs for days under thousands of sessions needs around it:
 *
 * - Plain-HTTP refusals before the upgrade (handshakeProblem, refuseUpgrade): a 4xx naming the problem, as JSON.
 * - permessage-deflate off (a step's reply is small and latency-bound; compression costs memory per connection).
 * - Two message limits: past `maxMessageBytes` an action is answered with an error and the session goes on (onTooBig);
 *   past `hardLimitBytes` ws stops reading it and closes with 1009, so nothing larger is ever buffered.
 * - Heartbeats: a ping every `heartbeatMs`; a client from which nothing (no pong, no message) came for
 *   `heartbeatTimeoutMs` is dropped, so a peer that vanished without a FIN (power, network) is noticed. The timeout
 *   spans several pings on purpose: a client that answers pings only when it reads (a blocked event loop, a stdlib
 *   client) while its policy generates a long turn is slow, not gone. A FIN (a killed trainer) closes at once.
 * - Backpressure: a reply is not queued behind `maxBufferedBytes` of unread output; the client is disconnected with
 *   close 1008 and a reason saying so, instead of the server holding copy after copy of its conversation.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, WebSocket, type RawData } from "ws";

/** Close codes used here (RFC 6455 §7.4.1). */
export const CLOSE = { normal: 1000, goingAway: 1001, invalidData: 1007, policy: 1008, tooBig: 1009 } as const;
/** How long a closing connection may take to answer our close frame before it is cut. */
const CLOSE_TIMEOUT_MS = 3000;
export const SUBPROTOCOL = "rollout-lab.v1";

export interface WebSocketLimits {
  /** An action larger than this is refused with an error message; the connection stays open. */
  maxMessageBytes: number;
  /** Unread output past which a client is disconnected (close 1008). */
  maxBufferedBytes: number;
  /** Ping interval. */
  heartbeatMs: number;
  /** Silence (no pong, no message) after which a client is dropped; at least one ping interval. */
  heartbeatTimeoutMs: number;
}

export interface WebSocketHandlers {
  onMessage(text: string): void;
  /** A message over maxMessageBytes was refused; the connection stays open. */
  onTooBig(bytes: number): void;
  /**
   * Called once, when the connection is gone. `byClient`: the client sent a close frame of its own (it means to end
   * the session); false for a drop (FIN, reset, missed heartbeat), a client that stopped reading, or a close the
   * server started.
   */
  onClose(info: { code: number; reason: string; byClient: boolean }): void;
}

/** Why an upgrade request is not a valid WebSocket handshake (status + message), or null when it is. */
export function handshakeProblem(req: IncomingMessage): { status: number; message: string; headers?: Record<string, string> } | null {
  if (req.method !== "GET") return { status: 405, message: "A WebSocket handshake must be a GET request." };
  if ((req.headers.upgrade ?? "").toLowerCase() !== "websocket") return { status: 400, message: "Upgrade header must be websocket." };
  if (!/\bupgrade\b/i.test(req.headers.connection ?? "")) return { status: 400, message: "Connection header must include Upgrade." };
  if (req.headers["sec-websocket-version"] !== "13")
    return { status: 426, message: "Only WebSocket version 13 is supported.", headers: { "Sec-WebSocket-Version": "13" } };
  const key = req.headers["sec-websocket-key"];
  if (typeof key !== "string" || !/^[+/0-9A-Za-z]{22}==$/.test(key))
    return { status: 400, message: "Sec-WebSocket-Key must be 16 random bytes in base64." };
  return null;
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  426: "Upgrade Required",
  503: "Service Unavailable",
};

/** Answers an upgrade request with a plain HTTP response and closes the socket. */
export function refuseUpgrade(socket: Duplex, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(text)}`,
    "Connection: close",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join("\r\n")}\r\n\r\n${text}`);
}

/** A close reason must fit a control frame (123 bytes of UTF-8). */
function shortReason(reason: string): string {
  let r = reason;
  while (Buffer.byteLength(r) > 123) r = r.slice(0, -1);
  return r;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

export class WebSocketConnection {
  private closeStarted = false;
  private failed = false;
  /** When the client last showed it is there (a message or a pong). */
  private lastSeen = Date.now();

  constructor(
    private readonly ws: WebSocket,
    private readonly limits: WebSocketLimits,
    handlers: WebSocketHandlers,
    private readonly stats: ConnectionStats,
  ) {
    ws.on("message", (data: RawData, isBinary: boolean) => {
      this.lastSeen = Date.now();
      const bytes = byteLength(data);
      if (bytes > limits.maxMessageBytes) return handlers.onTooBig(bytes);
      let text: string;
      if (!isBinary) text = rawText(data);
      else {
        // Binary messages holding UTF-8 JSON are accepted too (some clients send bytes); ws checks text frames itself.
        try {
          text = utf8.decode(Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]));
        } catch {
          return this.close(CLOSE.invalidData, "binary message is not valid UTF-8");
        }
      }
      handlers.onMessage(text);
    });
    ws.on("pong", () => (this.lastSeen = Date.now()));
    // A protocol error (bad frame, invalid UTF-8, a message past maxPayload) is reported before "close"; ws has sent
    // its close code and cut the socket.
    ws.on("error", () => {
      this.failed = true;
      ws.terminate();
    });
    // The close code is the client's when it sent a close frame, 1006 when the connection just ended (FIN, reset,
    // terminate); a close we started is echoed back, so it is not the client's choice.
    ws.on("close", (code: number, reason: Buffer) => {
      this.stats.open--;
      handlers.onClose({ code, reason: reason.toString(), byClient: !this.closeStarted && !this.failed && code !== 1006 });
    });
    stats.open++;
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN && !this.closeStarted;
  }

  /** Sends a reply, or disconnects a client that has left too much output unread (close 1008). */
  send(text: string): void {
    if (!this.isOpen) return;
    const unread = this.ws.bufferedAmount;
    const bytes = Buffer.byteLength(text);
    // One reply is always allowed (a single large state may exceed the bound); a backlog of them is not.
    if (unread > 0 && unread + bytes > this.limits.maxBufferedBytes) {
      this.stats.backpressureCloses++;
      this.close(
        CLOSE.policy,
        `client not reading: ${unread + bytes} bytes of replies unread (limit ${this.limits.maxBufferedBytes}); read them or reconnect`,
      );
      return;
    }
    this.ws.send(text);
  }

  /** Starts the closing handshake; the connection is cut if the client does not answer in time. */
  close(code: number = CLOSE.normal, reason = ""): void {
    if (this.closeStarted || this.ws.readyState >= WebSocket.CLOSING) return;
    this.closeStarted = true;
    this.ws.close(code, shortReason(reason));
    setTimeout(() => this.ws.terminate(), CLOSE_TIMEOUT_MS).unref();
  }

  /** One heartbeat: false (and the connection is cut) when the client has been silent past the timeout. */
  heartbeat(now = Date.now()): boolean {
    if (this.ws.readyState !== WebSocket.OPEN) return true;
    if (now - this.lastSeen > Math.max(this.limits.heartbeatTimeoutMs, this.limits.heartbeatMs)) {
      this.stats.heartbeatDrops++;
      this.ws.terminate();
      return false;
    }
    this.ws.ping();
    return true;
  }
}

export interface ConnectionStats {
  open: number;
  backpressureCloses: number;
  heartbeatDrops: number;
}

const byteLength = (data: RawData): number =>
  Buffer.isBuffer(data) ? data.length : Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;

const rawText = (data: RawData): string =>
  (Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)).toString("utf8");

/** The server side: completes handshakes and runs the heartbeat over every open connection. */
export class WebSocketEndpoint {
  readonly stats: ConnectionStats = { open: 0, backpressureCloses: 0, heartbeatDrops: 0 };
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<WebSocketConnection>();
  private timer: NodeJS.Timeout | null = null;

  constructor(readonly limits: WebSocketLimits) {
    this.wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      // Anything past the soft limit is refused unread up to this size; beyond it ws closes with 1009.
      maxPayload: hardLimitBytes(limits.maxMessageBytes),
      handleProtocols: (offered) => (offered.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
    });
  }

  /** Completes the handshake (call handshakeProblem first); `ready` gets the open connection. */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer, handlers: WebSocketHandlers, ready: (c: WebSocketConnection) => void): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      // Small frames must not wait for Nagle's algorithm: a step's reply is a few hundred bytes and latency-bound.
      (socket as unknown as { setNoDelay?: (v: boolean) => void }).setNoDelay?.(true);
      let connection: WebSocketConnection | null = null;
      connection = new WebSocketConnection(
        ws,
        this.limits,
        {
          ...handlers,
          onClose: (info) => {
            if (connection) this.connections.delete(connection);
            handlers.onClose(info);
          },
        },
        this.stats,
      );
      this.connections.add(connection);
      ready(connection);
    });
  }

  startHeartbeat(): void {
    this.timer = setInterval(() => {
      for (const c of this.connections) c.heartbeat();
    }, this.limits.heartbeatMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.wss.close();
  }
}

/** The size past which a message is not even read: four times the soft limit, at least 1 MiB. */
export function hardLimitBytes(maxMessageBytes: number): number {
  return Math.max(4 * maxMessageBytes, 1024 * 1024);
}

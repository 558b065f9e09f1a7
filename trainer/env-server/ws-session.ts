/**
 * The WebSocket session of OpenEnv's server (http_server.py, `/ws`): each connection owns one Session; messages
 * `{"type": "reset"|"step"|"state"|"close", "data": {...}}` are answered in order with `{"type": "observation" |
 * "state" | "error", "data": {...}}`, errors carrying OpenEnv's codes. A connection that drops without a close keeps
 * its session for a grace period, resumable with `?session_id=` (the id is in every observation).
 */
import { z } from "zod";
import { CLOSE, type WebSocketConnection } from "./websocket";
import { RequestError, WS_ERROR } from "./protocol";
import type { Session } from "./session";

const envelope = z.object({ type: z.string(), data: z.unknown().optional() }).strict();

export interface WsSessionHooks {
  /** The client closed the session (close message or close frame): end its episode and forget it. */
  end(session: Session): Promise<void>;
  log(line: string): void;
}

function errorData(err: unknown): Record<string, unknown> {
  if (err instanceof RequestError)
    return { message: err.message, code: err.code, status: err.status, ...(err.field ? { field: err.field } : {}), ...err.details };
  return { message: `${(err as Error).name ?? "Error"}: ${(err as Error).message ?? String(err)}`, code: WS_ERROR.execution };
}

/** Binds a connection to a session; returns the handlers the connection calls. */
export class WsSession {
  private chain: Promise<void> = Promise.resolve();
  private connection: WebSocketConnection | null = null;

  constructor(
    readonly session: Session,
    private readonly hooks: WsSessionHooks,
  ) {}

  get attached(): boolean {
    return this.connection !== null;
  }

  isCurrent(connection: WebSocketConnection): boolean {
    return this.connection === connection;
  }

  attach(connection: WebSocketConnection): void {
    this.connection?.close(CLOSE.goingAway, "the session was resumed on another connection");
    this.connection = connection;
  }

  detach(connection: WebSocketConnection): void {
    if (this.connection === connection) this.connection = null;
  }

  /** Closes the connection (idle expiry, shutdown) with a reason the client sees. */
  disconnect(code: number, reason: string): void {
    this.connection?.close(code, reason);
    this.connection = null;
  }

  send(type: "observation" | "state" | "error", data: unknown): void {
    this.connection?.send(JSON.stringify({ type, data }));
  }

  /** Messages are handled one at a time, in arrival order (a client may send the next before the answer). */
  receive(text: string): void {
    this.chain = this.chain.then(() => this.handle(text));
  }

  tooBig(bytes: number, limit: number): void {
    this.chain = this.chain.then(() =>
      this.send("error", {
        message: `Message of ${bytes} bytes is over the server's limit of ${limit} bytes; it was skipped. Send a shorter action (or raise --max-message-bytes).`,
        code: WS_ERROR.validation,
        status: 413,
      }),
    );
  }

  private async handle(text: string): Promise<void> {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      return this.send("error", { message: `Invalid JSON: ${(e as Error).message}`, code: WS_ERROR.invalidJson });
    }
    const parsed = envelope.safeParse(raw);
    const type = raw && typeof raw === "object" ? (raw as { type?: unknown }).type : undefined;
    if (!["reset", "step", "state", "close"].includes(type as string))
      return this.send("error", {
        message: `Unknown message type: ${typeof type === "string" ? type : JSON.stringify(type ?? "")}`,
        code: WS_ERROR.unknownType,
      });
    if (!parsed.success)
      return this.send("error", {
        message: "Invalid message: only `type` and `data` are allowed.",
        code: WS_ERROR.validation,
        errors: parsed.error.issues,
      });
    const data = parsed.data.data;
    try {
      if (type === "reset") this.send("observation", await this.session.reset(data ?? {}));
      else if (type === "step") {
        if (data === undefined)
          throw new RequestError(422, WS_ERROR.validation, 'A step message needs `data`: the action, e.g. {"message": "..."}.', "data");
        this.send("observation", await this.session.step(data));
      } else if (type === "state") this.send("state", this.session.state());
      else {
        await this.hooks.end(this.session);
        this.disconnect(CLOSE.normal, "session closed");
      }
    } catch (err) {
      if (!(err instanceof RequestError)) this.hooks.log(`session ${this.session.id}: ${(err as Error).stack ?? String(err)}`);
      this.send("error", errorData(err));
    }
  }
}

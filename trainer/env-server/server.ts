/**
 * The environment server: every built-in environment at its own OpenEnv base URL, `/envs/<name>`, with OpenEnv's
 * endpoints under it (`/health`, `/schema`, `/metadata`, `/state`, `POST /reset`, `POST /step`, WebSocket `/ws`).
 * Multi-turn play goes through `/ws` (one session per connection); `/reset` and `/step` each play in a session of
 * their own, as OpenEnv's HTTP endpoints build a fresh environment per request (`/step` is a one-turn episode).
 * `GET /health` and `GET /envs` describe the server as a whole.
 *
 * Bad input never gets a 5xx: unknown environments and tasks, malformed requests and oversize bodies are 4xx naming
 * the problem; a policy's malformed reply is the environment's own format-error observation.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { PrismaClient } from "../../generated/prisma/client";
import { AccessGate } from "./access";
import { EnvironmentCatalog } from "./catalog";
import { errorBody, errorHeaders, readJsonBody, sendJson } from "./http-util";
import { RequestError, WS_ERROR, schemaResponse, stepRequestSchema, validationError } from "./protocol";
import { EpisodeRecorder, type LostSession } from "./recorder";
import { Session, type Owner, type SessionDeps } from "./session";
import { EpisodeJournal } from "./journal";
import { SessionRegistry, type SessionLimits } from "./sessions";
import { CLOSE, WebSocketEndpoint, handshakeProblem, refuseUpgrade, type WebSocketConnection } from "./websocket";
import { WsSession } from "./ws-session";
import type { StepView } from "./served-episode";

export interface EnvServerOptions {
  db: PrismaClient;
  dataRoots: string[];
  tokenRequired: boolean;
  limits: SessionLimits;
  /** Largest action (WebSocket message or HTTP body) accepted. */
  maxMessageBytes: number;
  /** Unread WebSocket output past which a client is disconnected (close 1008); default 16 MiB. */
  maxBufferedBytes?: number;
  /** WebSocket ping interval (default 30 s). */
  heartbeatMs?: number;
  /** A WebSocket client silent this long (no pong, no message) is dropped (default 120 s). */
  heartbeatTimeoutMs?: number;
  /**
   * The episode journal (journal.ts): episodes are durable there before clients are answered, and a crash's lost
   * episodes are named from it at the next start. Null: no journal (tests that do not restart).
   */
  journalFile: string | null;
  log: (line: string) => void;
}

const ENDPOINTS =
  "GET /health, GET /envs, and per environment /envs/<name>/{health,schema,metadata,state} (GET), /envs/<name>/{reset,step} (POST), /envs/<name>/ws (WebSocket)";

export class EnvServer {
  readonly http: http.Server;
  readonly catalog: EnvironmentCatalog;
  readonly recorder: EpisodeRecorder;
  readonly registry: SessionRegistry;
  private readonly gate: AccessGate;
  private readonly journal: EpisodeJournal | null;
  /** Episodes a previous process acknowledged but had not stored, written to PostgreSQL at this start. */
  replayedAtStart = 0;
  private readonly ws = new Map<string, WsSession>();
  private readonly sockets: WebSocketEndpoint;
  private readonly deps: SessionDeps;
  lostAtStart: LostSession[] = [];

  constructor(private readonly opts: EnvServerOptions) {
    this.catalog = new EnvironmentCatalog(opts.dataRoots);
    this.journal = opts.journalFile ? new EpisodeJournal(opts.journalFile) : null;
    this.recorder = new EpisodeRecorder(opts.db, { log: opts.log, journal: this.journal });
    this.gate = new AccessGate(opts.db, opts.tokenRequired);
    this.registry = new SessionRegistry(opts.limits, (s, reason) => void this.endSession(s, "idle_expired", `session expired: ${reason}`));
    this.deps = { catalog: this.catalog, recorder: this.recorder };
    this.sockets = new WebSocketEndpoint({
      maxMessageBytes: opts.maxMessageBytes,
      maxBufferedBytes: opts.maxBufferedBytes ?? 16 * 1024 * 1024,
      heartbeatMs: opts.heartbeatMs ?? 30_000,
      heartbeatTimeoutMs: opts.heartbeatTimeoutMs ?? 120_000,
    });
    this.http = http.createServer((req, res) => void this.route(req, res));
    this.http.on("upgrade", (req, socket, head) => void this.upgrade(req, socket, head));
  }

  /** Open WebSockets, and how many were closed for unread output or a missed heartbeat (also on /health). */
  get websocketStats(): Readonly<WebSocketEndpoint["stats"]> {
    return this.sockets.stats;
  }

  /**
   * Recovers what a previous process left in the journal (acknowledged episodes not yet in PostgreSQL are written
   * now; episodes it died during are reported lost), then listens.
   */
  async listen(port: number, host: string): Promise<number> {
    if (this.journal) {
      const recovered = this.journal.recover();
      this.lostAtStart = recovered.lost;
      this.replayedAtStart = recovered.unstored.length;
      await this.journal.start();
      for (const u of recovered.unstored) this.recorder.enqueue({ ...u.record, journalKey: u.key });
      if (recovered.unstored.length)
        await this.recorder
          .drain()
          .then(() => this.opts.log(`recorded ${recovered.unstored.length} episodes the previous process had acknowledged`))
          .catch((e: Error) => this.opts.log(`replaying the journal: ${e.message} (kept in the journal, retried)`));
      if (recovered.damaged) this.opts.log(`the episode journal had ${recovered.damaged} unreadable lines (a write cut by the crash)`);
    }
    for (const l of this.lostAtStart)
      this.opts.log(
        `lost at restart: session ${l.sessionId} on ${l.environment}, episode ${l.episodeId} (trajectory ${l.trajectoryId ?? "?"}, task ${l.taskId}, run ${l.run?.id})`,
      );
    if (this.lostAtStart.length)
      await this.recorder
        .noteLostSessions(this.lostAtStart)
        .catch((e: Error) => this.opts.log(`could not note lost sessions: ${e.message}`));
    this.gate.answerTo(host);
    await new Promise<void>((resolve, reject) => {
      this.http.once("error", reject);
      this.http.listen(port, host, () => resolve());
    });
    this.registry.startSweeping();
    this.sockets.startHeartbeat();
    const address = this.http.address();
    const bound = typeof address === "object" && address ? address.port : port;
    this.catalog.ownPort = bound;
    return bound;
  }

  /** Graceful stop: every open episode is ended (server_stopped), evaluated and recorded, then the journal cleared. */
  async stop(): Promise<void> {
    this.registry.stopSweeping();
    this.sockets.stop();
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    await Promise.all(this.registry.all().map((s) => this.endSession(s, "server_stopped", "the server is shutting down")));
    await this.recorder.drain();
    await this.journal?.clear();
    this.http.closeAllConnections();
    await closed;
  }

  private async endSession(session: Session, reason: "client_ended" | "idle_expired" | "server_stopped", message: string): Promise<void> {
    this.registry.remove(session);
    this.ws.get(session.id)?.disconnect(reason === "client_ended" ? CLOSE.normal : CLOSE.goingAway, message);
    this.ws.delete(session.id);
    await session.endEpisode(reason);
  }

  private environmentOf(raw: string): string {
    let name: string;
    try {
      name = decodeURIComponent(raw);
    } catch {
      name = raw;
    }
    if (!this.catalog.has(name))
      throw new RequestError(
        404,
        WS_ERROR.validation,
        `Unknown environment "${name}". Valid names: ${this.catalog.list().join(", ")}.`,
        "environment",
      );
    return name;
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      this.gate.checkHost(req);
      const url = new URL(req.url ?? "/", "http://server");
      const parts = url.pathname.split("/").filter(Boolean);
      const method = req.method ?? "GET";
      const allow = (...methods: string[]) => {
        if (!methods.includes(method))
          throw Object.assign(new RequestError(405, WS_ERROR.validation, `${url.pathname} accepts ${methods.join(", ")}, not ${method}.`), {
            allow: methods.join(", "),
          });
      };
      if (parts.length === 1 && parts[0] === "health") {
        allow("GET");
        // Started with --expose-gc (bench:envs), ?gc=1 collects first so the memory figures are live data only.
        const gc = (globalThis as { gc?: () => void }).gc;
        if (url.searchParams.get("gc") === "1" && gc) gc();
        return sendJson(res, 200, this.health());
      }
      if (parts[0] !== "envs" || parts.length > 3)
        throw new RequestError(404, WS_ERROR.validation, `No endpoint at ${url.pathname}. The endpoints are ${ENDPOINTS}.`);
      if (parts.length === 1) {
        allow("GET");
        return sendJson(res, 200, {
          environments: this.catalog.list().map((name) => ({ name, base_path: `/envs/${name}`, description: this.catalog.describe(name) })),
        });
      }
      const env = this.environmentOf(parts[1]);
      const endpoint = parts[2] ?? "metadata";
      switch (endpoint) {
        case "health":
          allow("GET");
          return sendJson(res, 200, { status: "healthy" });
        case "schema":
          allow("GET");
          return sendJson(res, 200, schemaResponse());
        case "metadata":
          allow("GET");
          return sendJson(res, 200, {
            name: env,
            description: this.catalog.describe(env),
            version: "1",
            documentation_url: null,
            readme_content: null,
          });
        case "state": {
          allow("GET");
          const owner = await this.gate.ownerOf(req);
          const id = url.searchParams.get("session_id");
          const state = id
            ? this.registry.find(id, owner, env).state()
            : { episode_id: null, step_count: 0, session_id: null, environment: env, task_id: null, done: false, messages: [] };
          return sendJson(res, 200, state);
        }
        case "reset":
          allow("POST");
          return sendJson(res, 200, await this.httpReset(req, env, await this.gate.ownerOf(req)));
        case "step":
          allow("POST");
          return sendJson(res, 200, await this.httpStep(req, env, await this.gate.ownerOf(req)));
        case "ws":
          throw new RequestError(
            426,
            WS_ERROR.session,
            `${url.pathname} is a WebSocket endpoint: connect with a WebSocket client (OpenEnv's EnvClient does).`,
          );
        default:
          throw new RequestError(404, WS_ERROR.validation, `No endpoint at ${url.pathname}. The endpoints are ${ENDPOINTS}.`);
      }
    } catch (err) {
      if (err instanceof RequestError) {
        const allow = (err as RequestError & { allow?: string }).allow;
        return sendJson(res, err.status, errorBody(err), {
          ...errorHeaders(err),
          ...(allow ? { Allow: allow } : {}),
          ...(err.status === 413 ? { Connection: "close" } : {}),
        });
      }
      this.opts.log(`${req.method} ${req.url}: ${(err as Error).stack ?? String(err)}`);
      return sendJson(res, 500, { detail: "Internal error; the server log has the details." });
    }
  }

  private health() {
    return {
      status: "healthy",
      sessions: this.registry.size,
      max_sessions: this.registry.limits.maxSessions,
      max_sessions_per_client: this.registry.perClientLimit,
      websockets: {
        open: this.sockets.stats.open,
        closed_for_unread_output: this.sockets.stats.backpressureCloses,
        dropped_by_heartbeat: this.sockets.stats.heartbeatDrops,
      },
      token_required: this.opts.tokenRequired,
      episodes_recorded: this.recorder.recorded,
      recording_backlog: this.recorder.backlog,
      environments: this.catalog.list(),
      memory: { rss_bytes: process.memoryUsage().rss, heap_used_bytes: process.memoryUsage().heapUsed },
      cpu_ms: { user: Math.round(process.cpuUsage().user / 1000), system: Math.round(process.cpuUsage().system / 1000) },
      lost_at_start: this.lostAtStart,
      replayed_at_start: this.replayedAtStart,
    };
  }

  /**
   * OpenEnv's HTTP /reset: a fresh environment per request; the opening observation, nothing recorded — so it names
   * no run or trajectory (they would never exist).
   */
  private async httpReset(req: IncomingMessage, env: string, owner: Owner): Promise<StepView> {
    const body = await readJsonBody(req, this.opts.maxMessageBytes);
    return this.registry.oneShot(clientOf(req, owner), async () => {
      const session = new Session(env, owner, this.deps);
      try {
        const view = await session.reset(body ?? {});
        const { run_id: _run, trajectory_id: _trajectory, ...observation } = view.observation;
        return { ...view, observation };
      } finally {
        void session.endEpisode("client_ended");
      }
    });
  }

  /** OpenEnv's HTTP /step: reset (extra fields are reset data) + one action, evaluated and recorded. */
  private async httpStep(req: IncomingMessage, env: string, owner: Owner): Promise<StepView> {
    const parsed = stepRequestSchema.safeParse((await readJsonBody(req, this.opts.maxMessageBytes)) ?? {});
    if (!parsed.success) throw validationError(parsed.error, "");
    const { action, timeout_s: _timeout, request_id: _requestId, ...resetData } = parsed.data;
    if (action === undefined)
      throw new RequestError(422, WS_ERROR.validation, 'action: required, e.g. {"action": {"message": "..."}}.', "action");
    return this.registry.oneShot(clientOf(req, owner), async () => {
      const session = new Session(env, owner, this.deps);
      await session.reset(resetData);
      const view = await session.step(action).catch(async (err) => {
        await session.endEpisode("client_ended");
        throw err;
      });
      if (view.done) return view;
      const final = await session.endEpisode("client_ended");
      return final ? { ...final, observation: { ...final.observation, messages: view.observation.messages } } : view;
    });
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on("error", () => socket.destroy());
    let connection: WebSocketConnection | null = null;
    try {
      this.gate.checkHost(req);
      const url = new URL(req.url ?? "/", "http://server");
      const parts = url.pathname.split("/").filter(Boolean);
      if (parts.length !== 3 || parts[0] !== "envs" || parts[2] !== "ws")
        throw new RequestError(404, WS_ERROR.session, `No WebSocket endpoint at ${url.pathname}; sessions are at /envs/<name>/ws.`);
      const env = this.environmentOf(parts[1]);
      const problem = handshakeProblem(req);
      if (problem) return refuseUpgrade(socket, problem.status, { detail: problem.message }, problem.headers);
      const owner = await this.gate.ownerOf(req);
      const resume = url.searchParams.get("session_id");
      let binding: WsSession;
      if (resume) {
        const session = this.registry.find(resume, owner, env);
        binding = this.ws.get(session.id) ?? new WsSession(session, this.hooks());
      } else {
        const session = new Session(env, owner, this.deps, clientOf(req, owner));
        this.registry.add(session);
        binding = new WsSession(session, this.hooks());
      }
      this.ws.set(binding.session.id, binding);
      const limit = this.opts.maxMessageBytes;
      this.sockets.accept(
        req,
        socket,
        head,
        {
          onMessage: (text) => binding.receive(text),
          onTooBig: (bytes) => binding.tooBig(bytes, limit),
          onClose: ({ byClient }) => {
            if (!connection || !binding.isCurrent(connection)) return;
            binding.detach(connection);
            if (this.ws.get(binding.session.id) !== binding) return;
            // A close of the client's own ends the session. A dropped connection (FIN, missed heartbeat, unread
            // output) keeps a session mid-episode for the grace period, resumable with ?session_id=; one with no
            // episode in progress has nothing to resume and frees its slot now.
            if (byClient || !binding.session.inEpisode) void this.endSession(binding.session, "client_ended", "closed");
            else binding.session.detachedAt = Date.now();
          },
        },
        (c) => {
          connection = c;
          binding.session.detachedAt = null;
          binding.attach(c);
        },
      );
      // ws cut the handshake (the socket closed meanwhile): a session opened for it holds no connection to wait for.
      if (!connection && !resume) void this.endSession(binding.session, "client_ended", "the handshake did not complete");
    } catch (err) {
      if (err instanceof RequestError) return refuseUpgrade(socket, err.status, errorBody(err), errorHeaders(err));
      this.opts.log(`upgrade ${req.url}: ${(err as Error).stack ?? String(err)}`);
      refuseUpgrade(socket, 400, { detail: "The WebSocket upgrade failed." });
    }
  }

  private hooks() {
    return {
      end: (session: Session) => this.endSession(session, "client_ended", "session closed"),
      log: this.opts.log,
    };
  }
}

/** Whose share of the server a request counts against: its token, or (tokenless, on loopback) its address. */
function clientOf(req: IncomingMessage, owner: Owner): string {
  return owner.tokenPrefix ? `token ${owner.tokenPrefix}…` : `address ${req.socket.remoteAddress ?? "unknown"}`;
}

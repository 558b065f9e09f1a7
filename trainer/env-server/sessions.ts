/**
 * The server's sessions: bounded (past `maxSessions` a new one gets 503 with Retry-After, counting one-shot HTTP
 * requests too, and per client), owned (a session id used with another token is 404, as if it did not exist), and
 * expired when idle or dropped. (Which episodes a crash lost is the episode journal's to say: journal.ts.)
 */
import { RequestError, WS_ERROR } from "./protocol";
import type { Owner, Session } from "./session";

export interface SessionLimits {
  maxSessions: number;
  /**
   * Sessions one client may hold (an API token; without one, a remote address), so one trainer cannot fill the
   * server for everyone else. Default: three quarters of maxSessions.
   */
  maxSessionsPerClient?: number;
  /** A session that receives nothing for this long is ended (its episode recorded as idle_expired). */
  idleTimeoutMs: number;
  /** A session whose connection dropped may be resumed (`?session_id=`) for this long. */
  detachedGraceMs: number;
}

export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  /** One-shot HTTP requests in flight, per client. */
  private readonly oneShots = new Map<string, number>();
  private oneShotTotal = 0;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    readonly limits: SessionLimits,
    private readonly onExpire: (session: Session, reason: string) => void,
  ) {}

  get size(): number {
    return this.sessions.size + this.oneShotTotal;
  }

  get perClientLimit(): number {
    return this.limits.maxSessionsPerClient ?? Math.max(1, Math.floor((this.limits.maxSessions * 3) / 4));
  }

  all(): Session[] {
    return [...this.sessions.values()];
  }

  private heldBy(client: string): number {
    let n = this.oneShots.get(client) ?? 0;
    for (const s of this.sessions.values()) if (s.client === client) n++;
    return n;
  }

  /** The session whose connection dropped longest ago (of `client`, or of anyone), if any. */
  private longestDetached(client?: string): Session | null {
    let oldest: Session | null = null;
    for (const s of this.sessions.values())
      if (s.detachedAt !== null && (client === undefined || s.client === client) && (!oldest || s.detachedAt < oldest.detachedAt!))
        oldest = s;
    return oldest;
  }

  /**
   * 503 + Retry-After when the client is at its own cap, or the server is full, and no dropped session can give way;
   * call before creating a session. A session whose connection dropped mid-episode waits to be resumed, but a
   * client that is here now comes first: the one detached longest (the client's own when it is at its cap) is ended,
   * its episode recorded, to make room.
   */
  assertCapacity(client: string): void {
    const retryAfter = Math.max(1, Math.min(60, Math.ceil(this.limits.idleTimeoutMs / 10_000)));
    if (this.heldBy(client) >= this.perClientLimit) {
      const own = this.longestDetached(client);
      if (own) this.onExpire(own, "its connection dropped and the same client opened a new session");
    }
    const held = this.heldBy(client);
    if (held >= this.perClientLimit)
      throw new RequestError(
        503,
        WS_ERROR.capacity,
        `This client (${client}) already holds ${held}/${this.perClientLimit} sessions. Close sessions you no longer use, or start the server with a higher --max-sessions-per-client.`,
        undefined,
        { client_sessions: held, max_sessions_per_client: this.perClientLimit, retry_after: retryAfter },
      );
    if (this.size >= this.limits.maxSessions) {
      const anyone = this.longestDetached();
      if (anyone) this.onExpire(anyone, "its connection dropped and a connected client needed the slot");
    }
    if (this.size < this.limits.maxSessions) return;
    throw new RequestError(
      503,
      WS_ERROR.capacity,
      `Server at capacity: ${this.size}/${this.limits.maxSessions} sessions active. Retry after ${retryAfter} s, close sessions you no longer use, or start the server with a higher --max-sessions.`,
      undefined,
      { active_sessions: this.size, max_sessions: this.limits.maxSessions, retry_after: retryAfter },
    );
  }

  add(session: Session): void {
    this.assertCapacity(session.client);
    this.sessions.set(session.id, session);
  }

  remove(session: Session): void {
    this.sessions.delete(session.id);
  }

  has(session: Session): boolean {
    return this.sessions.get(session.id) === session;
  }

  /** Runs `fn` holding a one-shot slot (HTTP /reset and /step each play in a session of their own). */
  async oneShot<T>(client: string, fn: () => Promise<T>): Promise<T> {
    this.assertCapacity(client);
    this.oneShots.set(client, (this.oneShots.get(client) ?? 0) + 1);
    this.oneShotTotal++;
    try {
      return await fn();
    } finally {
      this.oneShotTotal--;
      const left = (this.oneShots.get(client) ?? 1) - 1;
      if (left > 0) this.oneShots.set(client, left);
      else this.oneShots.delete(client);
    }
  }

  /** The caller's session `id` on environment `envName`; 404 when it does not exist or belongs to another token. */
  find(id: string, owner: Owner, envName: string): Session {
    const s = this.sessions.get(id);
    if (!s || s.owner.key !== owner.key || s.envName !== envName)
      throw new RequestError(
        404,
        WS_ERROR.session,
        `No session "${id}" on environment "${envName}" for this token (it ended, expired, or was opened with another token).`,
        "session_id",
      );
    return s;
  }

  startSweeping(): void {
    const every = Math.max(100, Math.min(5000, Math.floor(Math.min(this.limits.idleTimeoutMs, this.limits.detachedGraceMs) / 4)));
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const s of this.sessions.values()) {
        const idle = now - s.lastActivity;
        if (idle > this.limits.idleTimeoutMs) this.onExpire(s, `idle for ${Math.round(idle / 1000)} s`);
        else if (s.detachedAt !== null && now - s.detachedAt > this.limits.detachedGraceMs)
          this.onExpire(s, "its connection dropped and it was not resumed");
      }
    }, every);
    this.sweeper.unref();
  }

  stopSweeping(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }
}

/**
 * The server's sessions: bounded (past `maxSessions` a new one gets 503 with Retry-After, counting one-shot HTTP
 * requests too), owned (a session id used with another token is 404, as if it did not exist), expired when idle,
 * and journaled: a small file lists the live sessions, so a server that died (crash, OOM kill, power) says at its
 * next start which sessions and episodes were lost, in its log, on /health and as a warning on each affected run.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { RequestError, WS_ERROR } from "./protocol";
import type { LostSession } from "./recorder";
import type { Owner, Session } from "./session";

export interface SessionLimits {
  maxSessions: number;
  /** A session that receives nothing for this long is ended (its episode recorded as idle_expired). */
  idleTimeoutMs: number;
  /** A session whose connection dropped may be resumed (`?session_id=`) for this long. */
  detachedGraceMs: number;
}

/** The journal of live sessions: rewritten (atomically, at most once a second) when sessions come and go. */
export class SessionJournal {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly file: string,
    private readonly entries: () => LostSession[],
  ) {}

  /** The sessions a previous process left behind (it did not shut down cleanly), and forget them. */
  takeLost(): LostSession[] {
    let lost: LostSession[] = [];
    try {
      const parsed = JSON.parse(readFileSync(this.file, "utf8")) as { sessions?: LostSession[] };
      lost = Array.isArray(parsed.sessions) ? parsed.sessions : [];
    } catch {
      // no journal (first start, or a clean shutdown), or an unreadable one: nothing to report
    }
    rmSync(this.file, { force: true });
    return lost;
  }

  changed(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.write();
    }, 1000);
    this.timer.unref();
  }

  write(): void {
    mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify({ pid: process.pid, writtenAt: new Date().toISOString(), sessions: this.entries() }));
    renameSync(tmp, this.file);
  }

  /** A clean shutdown: every session was ended and recorded. */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    rmSync(this.file, { force: true });
  }
}

export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  private oneShots = 0;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    readonly limits: SessionLimits,
    private readonly onExpire: (session: Session, reason: string) => void,
  ) {}

  get size(): number {
    return this.sessions.size + this.oneShots;
  }

  all(): Session[] {
    return [...this.sessions.values()];
  }

  /** 503 + Retry-After when full; call before creating a session. */
  assertCapacity(): void {
    if (this.size < this.limits.maxSessions) return;
    const retryAfter = Math.max(1, Math.min(60, Math.ceil(this.limits.idleTimeoutMs / 10_000)));
    throw new RequestError(
      503,
      WS_ERROR.capacity,
      `Server at capacity: ${this.size}/${this.limits.maxSessions} sessions active. Retry after ${retryAfter} s, close sessions you no longer use, or start the server with a higher --max-sessions.`,
      undefined,
      { active_sessions: this.size, max_sessions: this.limits.maxSessions, retry_after: retryAfter },
    );
  }

  add(session: Session): void {
    this.assertCapacity();
    this.sessions.set(session.id, session);
  }

  remove(session: Session): void {
    this.sessions.delete(session.id);
  }

  /** Runs `fn` holding a one-shot slot (HTTP /reset and /step each play in a session of their own). */
  async oneShot<T>(fn: () => Promise<T>): Promise<T> {
    this.assertCapacity();
    this.oneShots++;
    try {
      return await fn();
    } finally {
      this.oneShots--;
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

  startSweeping(detached: (s: Session) => boolean): void {
    const every = Math.max(200, Math.min(5000, Math.floor(Math.min(this.limits.idleTimeoutMs, this.limits.detachedGraceMs) / 4)));
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const s of this.sessions.values()) {
        const idle = now - s.lastActivity;
        if (idle > this.limits.idleTimeoutMs) this.onExpire(s, `idle for ${Math.round(idle / 1000)} s`);
        else if (detached(s) && idle > this.limits.detachedGraceMs) this.onExpire(s, "its connection dropped and it was not resumed");
      }
    }, every);
    this.sweeper.unref();
  }

  stopSweeping(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }
}

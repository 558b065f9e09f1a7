/**
 * The episode journal: a local append-only file that makes the server's answers durable before they are sent. A
 * trainer trains on the reward in a `done` observation the moment it arrives, so that episode must survive a crash
 * (SIGKILL, OOM, power) even if PostgreSQL has not been written yet; and an episode a client started must be
 * reported as lost, by id, if the server dies before it ends.
 *
 * One JSON object per line:
 *   {"t":"start", key, lost}   an episode began (written before its opening observation is sent)
 *   {"t":"end", key, record}  it ended; `record` is what the recorder stores (null: nothing to store), written and
 *                             fsynced before the final observation is sent
 *   {"t":"stored", keys}      the recorder wrote these to PostgreSQL (not fsynced: a replay is idempotent)
 *
 * Appends are group-committed: every line added while a write is under way goes out in the next single write and
 * fdatasync, so 128 sessions finishing at once cost one sync, not 128. At the next start (recover) the file says
 * which episodes were started and never ended (lost) and which ended but were never stored (replayed into
 * PostgreSQL). The file is rewritten with only what is still live once it passes `compactBytes`, so it stays small
 * however long the server runs.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import path from "node:path";
import type { EpisodeRecord, LostSession } from "./recorder";

type Line =
  | { t: "start"; key: string; lost: LostSession }
  | { t: "end"; key: string; record: EpisodeRecord | null }
  | { t: "stored"; keys: string[] };

export interface Recovered {
  /** Episodes started and never ended: the previous process died during them. */
  lost: LostSession[];
  /** Episodes whose end was acknowledged but whose record may not be in PostgreSQL yet. */
  unstored: { key: string; record: EpisodeRecord }[];
  /** Lines that could not be read (a write cut short by the crash): skipped. */
  damaged: number;
}

interface Pending {
  text: string;
  durable: boolean;
  done: (err?: Error) => void;
}

export class EpisodeJournal {
  private handle: FileHandle | null = null;
  private queue: Pending[] = [];
  private writing: Promise<void> | null = null;
  private bytes = 0;
  /** What is live, kept to rewrite the file small: open episodes' start lines, ended-but-unstored end lines. */
  private readonly open = new Map<string, string>();
  private readonly unstored = new Map<string, string>();

  constructor(
    readonly file: string,
    private readonly compactBytes = 64 * 1024 * 1024,
  ) {}

  /** Reads what a previous process left and rewrites the file with what is still unstored. Call before `start`. */
  recover(): Recovered {
    let text = "";
    try {
      text = readFileSync(this.file, "utf8");
    } catch {
      // no journal: first start
    }
    const started = new Map<string, LostSession>();
    const ended = new Map<string, EpisodeRecord | null>();
    let damaged = 0;
    for (const raw of text.split("\n")) {
      if (!raw.trim()) continue;
      let line: Line;
      try {
        line = JSON.parse(raw) as Line;
      } catch {
        damaged++;
        continue;
      }
      if (line.t === "start") started.set(line.key, line.lost);
      else if (line.t === "end") {
        started.delete(line.key);
        if (line.record) ended.set(line.key, line.record);
      } else if (line.t === "stored") for (const k of line.keys) ended.delete(k);
    }
    const unstored = [...ended].map(([key, record]) => ({ key, record: record! }));
    for (const u of unstored) this.unstored.set(u.key, JSON.stringify({ t: "end", key: u.key, record: u.record }));
    this.rewriteSync();
    return { lost: [...started.values()], unstored, damaged };
  }

  async start(): Promise<void> {
    mkdirSync(path.dirname(this.file), { recursive: true });
    this.handle = await open(this.file, "a");
    this.bytes = (await this.handle.stat()).size;
  }

  /** Durable once resolved: an episode began. */
  started(key: string, lost: LostSession): Promise<void> {
    const text = JSON.stringify({ t: "start", key, lost });
    this.open.set(key, text);
    return this.append(text, true);
  }

  /** Durable once resolved: an episode ended, with what is to be stored (null: nothing). */
  ended(key: string, record: EpisodeRecord | null): Promise<void> {
    const text = JSON.stringify({ t: "end", key, record });
    this.open.delete(key);
    if (record) this.unstored.set(key, text);
    return this.append(text, true);
  }

  /** These episodes are in PostgreSQL. */
  stored(keys: string[]): void {
    for (const k of keys) this.unstored.delete(k);
    void this.append(JSON.stringify({ t: "stored", keys }), false).catch(() => {});
  }

  /** fdatasync calls so far (one per batch of durable appends). */
  syncs = 0;

  /** Closes the file (what it holds stays for the next start). */
  async close(): Promise<void> {
    await this.writing;
    await this.handle?.close();
    this.handle = null;
  }

  /** A clean stop: everything ended and stored, so nothing is left to report. */
  async clear(): Promise<void> {
    await this.writing;
    await this.handle?.close();
    this.handle = null;
    this.open.clear();
    this.unstored.clear();
    rmSync(this.file, { force: true });
  }

  private append(text: string, durable: boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ text, durable, done: (err) => (err ? reject(err) : resolve()) });
      this.writing ??= this.drain();
    });
  }

  /** Writes queued lines in batches (one write and at most one fdatasync per batch) until none are left. */
  private async drain(): Promise<void> {
    // Let the lines of everything that finished in this turn of the event loop join the first batch.
    await new Promise((r) => setImmediate(r));
    while (this.queue.length) {
      const batch = this.queue;
      this.queue = [];
      try {
        if (!this.handle) throw new Error(`the episode journal ${this.file} is not open`);
        const buf = Buffer.from(batch.map((p) => `${p.text}\n`).join(""));
        await this.handle.write(buf);
        this.bytes += buf.length;
        if (batch.some((p) => p.durable)) {
          await this.handle.datasync();
          this.syncs++;
        }
        for (const p of batch) p.done();
      } catch (err) {
        for (const p of batch) p.done(err as Error);
      }
      if (this.bytes > this.compactBytes) await this.compact();
    }
    this.writing = null;
  }

  /** Rewrites the file with only the live lines (between batches, so no append is lost). */
  private async compact(): Promise<void> {
    await this.handle?.close();
    this.rewriteSync();
    this.handle = await open(this.file, "a");
    this.bytes = (await this.handle.stat()).size;
  }

  private rewriteSync(): void {
    mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp`;
    const fd = openSync(tmp, "w");
    try {
      const live = [...this.open.values(), ...this.unstored.values()];
      if (live.length) writeSync(fd, `${live.join("\n")}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
    // The rename itself must reach the disk, or a crash could bring back the old file.
    const dir = openSync(path.dirname(this.file), "r");
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  }
}

/**
 * Response cache so that replays of a run are reproducible and reruns cost nothing. Keyed on everything that
 * changes the answer (model, messages, sampling params including seed, JSON mode); hits are still recorded, with
 * `cached: true`.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ToolCall } from "../../lib/conversation";
import { canonicalJson } from "../../lib/canonical-json";

export interface CachedResponse {
  text: string;
  toolCalls?: ToolCall[];
  /** The calls as the server sent them (arguments still a JSON string, possibly malformed): what a policy acts on. */
  rawToolCalls?: { id: string; name: string; arguments: string }[];
  finishReason?: string;
  promptTokens: number;
  completionTokens: number;
}

export interface ResponseCache {
  get(key: string): Promise<CachedResponse | undefined>;
  set(key: string, value: CachedResponse): Promise<void>;
}

export function cacheKey(parts: { model: string; messages: unknown; params: unknown; endpoint: string }): string {
  return createHash("sha256").update(canonicalJson(parts)).digest("hex");
}

export class MemoryResponseCache implements ResponseCache {
  private readonly map = new Map<string, CachedResponse>();
  async get(key: string): Promise<CachedResponse | undefined> {
    return this.map.get(key);
  }
  async set(key: string, value: CachedResponse): Promise<void> {
    this.map.set(key, value);
  }
  get size(): number {
    return this.map.size;
  }
}

export class DirResponseCache implements ResponseCache {
  constructor(readonly dir: string) {}

  private file(key: string): string {
    return path.join(this.dir, `${key}.json`);
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    try {
      return JSON.parse(await readFile(this.file(key), "utf8")) as CachedResponse;
    } catch {
      return undefined; // missing or half-written entry: treat as a miss
    }
  }

  async set(key: string, value: CachedResponse): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // Write-then-rename so a concurrent reader never sees a partial file.
    const tmp = `${this.file(key)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(tmp, JSON.stringify(value));
    await rename(tmp, this.file(key));
  }
}

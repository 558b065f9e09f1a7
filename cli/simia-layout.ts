/**
 * `runs export --layout simia --out DIR`: the exported records as Simia-RL's trainer lays them out on disk
 * (`training_record/sample_{sample_index}/env_{env_id}_ep{episode_count}_{timestamp}.json`, indented JSON), so
 * Simia-RL's own scripts can read a Rollout Lab run. Each file holds Simia's 14 keys only: the export line's own
 * `run_id`, `trajectory_id`, `step` and `split` are left out (the folder and file name carry the placement). Checked
 * against the files Simia's trainer writes, path by path and byte by byte: cli/simia-layout.test.ts.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";

/** A file-name-safe form of a value Simia puts in a path (ids may contain slashes or spaces). */
const safe = (v: unknown) => String(v ?? "null").replace(/[^A-Za-z0-9._-]+/g, "_");

/** Simia's timestamp in file names: YYYYMMDD_HHMMSS_ffffff (UTC). A time without a zone (Simia's own) is UTC. */
export function simiaFileTime(iso: string): string {
  const d = new Date(/(Z|[+-]\d\d:?\d\d)$/.test(iso) ? iso : `${iso}Z`);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}_${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}_${p(d.getUTCMilliseconds() * 1000, 6)}`;
}

export async function writeSimiaLayout(jsonl: Readable, outDir: string): Promise<number> {
  let written = 0;
  const seen = new Set<string>();
  for await (const line of createInterface({ input: jsonl, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    const {
      run_id: _run,
      trajectory_id,
      step: _step,
      split: _split,
      ...record
    } = JSON.parse(line) as {
      sample_index: unknown;
      env_id: unknown;
      episode_count: unknown;
      timestamp: string;
      run_id?: string;
      trajectory_id?: string;
      step?: number;
      split?: string;
    };
    const dir = path.join(outDir, `sample_${safe(record.sample_index)}`);
    await mkdir(dir, { recursive: true });
    let name = `env_${safe(record.env_id)}_ep${safe(record.episode_count)}_${simiaFileTime(record.timestamp)}`;
    // Two episodes recorded in the same microsecond by the same slot get distinct files.
    if (seen.has(path.join(dir, name))) name += `_${safe(trajectory_id)}`;
    seen.add(path.join(dir, name));
    await writeFile(path.join(dir, `${name}.json`), JSON.stringify(record, null, 2));
    written++;
  }
  return written;
}

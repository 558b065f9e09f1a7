/**
 * The folders a run config may make the trainer read: `<ROLLOUT_LAB_DATA_DIR>/datasets`, `…/models`,
 * `…/checkpoints`, plus any listed in ROLLOUT_LAB_DATA_ROOTS (separated by ":"). A run config is user input, and
 * the trainer used to open any path it named and store parse errors as the run error, which leaked the first bytes
 * of /etc/passwd, secrets files and /proc/self/environ through the API.
 *
 * Rules, for every path in a config (dataset, demonstrations, model folder, tokenizer) and every file read under it:
 *   - relative paths are looked up in each root in order; absolute ones must lie inside a root;
 *   - symlinks are resolved before the check, so a link cannot lead out of a root;
 *   - only regular files are read (a FIFO hung the worker) and never more than MAX_FILE_BYTES;
 *   - errors never quote file contents, and a path outside the roots gets the same answer whether it exists or not.
 */
import buffer from "node:buffer";
import { constants } from "node:fs";
import { open, realpath, stat } from "node:fs/promises";
import path from "node:path";

/** Larger than any data set or tokenizer we read as text (the full τ² retail db is ~3 MB). */
const MAX_FILE_BYTES = 512 * 1024 * 1024;
/**
 * Weight files (safetensors) are read whole into one buffer, so their cap is the largest buffer Node allows (4 GiB
 * on Node 20): Qwen2.5-0.5B's single model.safetensors is 988 MB, and Hugging Face shards bigger models at ≤ 5 GB.
 */
export const MAX_WEIGHT_FILE_BYTES = buffer.constants.MAX_LENGTH;

export class DataPathError extends Error {
  constructor(
    message: string,
    /** The message without the file name, for errors that name the file themselves (DatasetError). */
    readonly detail: string = message,
  ) {
    super(message);
    this.name = "DataPathError";
  }
}

const fileError = (file: string, detail: string) => new DataPathError(`${file} ${detail}`, detail);

export function dataRoots(dataDir: string, env: Record<string, string | undefined> = process.env): string[] {
  const base = path.resolve(dataDir);
  const extra = (env.ROLLOUT_LAB_DATA_ROOTS ?? "")
    .split(path.delimiter)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((p) => path.resolve(p));
  return [path.join(base, "datasets"), path.join(base, "models"), path.join(base, "checkpoints"), ...extra];
}

const describeRoots = (roots: string[]) => roots.join(", ");

async function realRoots(roots: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const r of roots) out.push(await realpath(r).catch(() => r));
  return out;
}

const inside = (child: string, root: string) => child === root || child.startsWith(root.endsWith(path.sep) ? root : root + path.sep);

/**
 * The real absolute path of `given` (a config value named `field`), confined to `roots`. Throws DataPathError with
 * one sentence saying what to do.
 */
export async function resolveDataPath(field: string, given: string, roots: string[]): Promise<string> {
  if (given.includes("\0")) throw new DataPathError(`${field} contains a NUL character.`);
  const outside = new DataPathError(
    `${field} "${given}" is outside the folders the trainer may read (${describeRoots(roots)}): put the data there, or list its folder in ROLLOUT_LAB_DATA_ROOTS on the worker host.`,
  );
  const real = await realRoots(roots);
  const inRoots = (p: string, allowed: string[]) => allowed.some((r) => inside(p, r));
  const candidates = (path.isAbsolute(given) ? [given] : roots.map((r) => path.join(r, given))).map((c) => path.resolve(c));
  // `..` that climbs out, or an absolute path elsewhere: refused before touching the file system, so the answer
  // does not depend on whether something exists there.
  if (candidates.some((c) => !inRoots(c, [...roots, ...real]))) throw outside;
  for (const candidate of candidates) {
    const resolved = await realpath(candidate).catch(() => null);
    if (resolved === null) continue; // not in this root; try the next
    if (!inRoots(resolved, real)) throw outside; // a symlink leading out
    return resolved;
  }
  throw new DataPathError(`${field} "${given}" was not found in the data folders (${describeRoots(roots)}).`);
}

// The worker's roots, set once per process by the run executor (they derive from its data folder and environment,
// which are process-wide too). Unset — unit tests and tools reading fixtures — only the file-type and size checks apply.
let configuredRoots: string[] | null = null;

export function configureDataRoots(roots: string[] | null): void {
  configuredRoots = roots;
}

/**
 * Read a data file: a regular file, size-capped, inside the configured roots after resolving links. Every loader
 * uses it (or readDataFile, as text) for every file it opens, including files found inside a confined folder.
 */
export async function readDataBytes(file: string, maxBytes = MAX_FILE_BYTES): Promise<Buffer> {
  const resolved = await realpath(file).catch(() => {
    throw fileError(file, "does not exist");
  });
  if (configuredRoots) {
    const real = await realRoots(configuredRoots);
    if (!real.some((r) => inside(resolved, r))) {
      throw fileError(file, `leads outside the folders the trainer may read (${describeRoots(configuredRoots)})`);
    }
  }
  const info = await stat(resolved);
  if (!info.isFile()) throw fileError(file, "is not a regular file");
  if (info.size > maxBytes)
    throw fileError(
      file,
      `is larger than ${Math.floor(maxBytes / 2 ** 20)} MB${maxBytes > MAX_FILE_BYTES ? " (save the weights in smaller shards)" : ""}`,
    );
  // O_NONBLOCK: if the file was swapped for a FIFO after the check, opening it does not hang.
  const handle = await open(resolved, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) throw fileError(file, "is not a regular file");
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

export async function readDataFile(file: string): Promise<string> {
  return (await readDataBytes(file)).toString("utf8");
}

/** A JSON data file, parsed; errors name the file and never quote it. */
export async function readDataJson<T = unknown>(file: string): Promise<T> {
  const text = await readDataFile(file);
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw fileError(file, `is ${jsonErrorDetail(err)}`);
  }
}

/**
 * What went wrong in JSON.parse, without the snippet of the input Node puts in its messages (for a file that is not
 * JSON at all that snippet is the file's first bytes).
 */
export function jsonErrorDetail(err: unknown): string {
  const position = /position (\d+)/.exec(err instanceof Error ? err.message : "")?.[1];
  return `not valid JSON${position ? ` (at character ${position})` : ""}`;
}

/** Why reading failed, in words that never include the file's contents. */
export function readErrorDetail(err: unknown): string {
  if (err instanceof DataPathError) return err.detail;
  const code = (err as NodeJS.ErrnoException).code;
  return code ? `cannot read file (${code})` : "cannot read file";
}

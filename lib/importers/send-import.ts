/**
 * Sending an imported run through the ingest API, shared by `rollout-lab import` (REST) and the dashboard's Import
 * page (tRPC), which differ only in their transport.
 *
 * An import carries a key made from its files' contents, so importing the same files again is recognised: a finished
 * import is refused (AlreadyImportedError, naming the run) unless the caller asks for another copy, and an import that
 * stopped half way (a closed tab, a failed network, a killed CLI) is continued into the same run — samples it already
 * has are left alone by their ids. A failure here marks the run failed with the reason; a process that dies instead
 * leaves the run silent, and the server fails it after IMPORT_STALE_AFTER_SECONDS (onStale "fail").
 */
import { MAX_STEPS_PER_BATCH, MAX_TRAJECTORIES_PER_BATCH, type ExternalRunInput, type TrajectoryInput } from "../ingest";
import { ingestBatches } from "../ingest-batches";
import type { ImportFile, ImportedRun } from "./types";

/** An import sends a batch every few seconds; this long without one means it stopped. */
export const IMPORT_STALE_AFTER_SECONDS = 300;

export interface ImportTransport {
  /** The run holding a run key, or null. */
  findByKey(runKey: string): Promise<{ id: string; url: string; status: string; createdAt: string | Date } | null>;
  createRun(input: ExternalRunInput): Promise<{ id: string; url: string; resumed: boolean }>;
  appendSteps(runId: string, steps: ImportedRun["steps"]): Promise<unknown>;
  appendTrajectories(runId: string, trajectories: TrajectoryInput[]): Promise<{ stored: number; updated: number; unchanged: number }>;
  finish(runId: string, status: "succeeded" | "failed", error?: string): Promise<unknown>;
}

export interface SentImport {
  id: string;
  url: string;
  stored: number;
  updated: number;
  unchanged: number;
  /** Set when an earlier, unfinished import of the same files was continued: its status then. */
  continued: string | null;
}

export class AlreadyImportedError extends Error {
  constructor(readonly run: { id: string; url: string; createdAt: string | Date }) {
    super(
      `These files were already imported as run ${run.id} (${run.url}) on ${new Date(run.createdAt).toISOString().slice(0, 16).replace("T", " ")} UTC; import them again only to make a second copy (--again, or "Import again as a new run").`,
    );
    this.name = "AlreadyImportedError";
  }
}

/** Two FNV-1a passes (64 bits): the same files give the same key wherever they are read, in Node or a browser. */
function contentHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0xcbf29ce4;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000197) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

/** The run key of an import: the format and its files' contents (not their names or folder). */
export function importKey(format: string, files: ImportFile[]): string {
  const hashes = files.map((f) => contentHash(f.text)).sort();
  return `import:${format}:${contentHash(hashes.join(","))}`;
}

export async function sendImport(
  transport: ImportTransport,
  imported: ImportedRun,
  opts: { runKey: string; again?: boolean; tags?: string[]; onProgress?: (done: number, total: number) => void },
): Promise<SentImport> {
  const earlier = opts.again ? null : await transport.findByKey(opts.runKey);
  if (earlier?.status === "succeeded") throw new AlreadyImportedError(earlier);
  const run = await transport.createRun({
    ...imported.run,
    tags: [...(imported.run.tags ?? []), ...(opts.tags ?? [])],
    ...(opts.again ? {} : { runKey: opts.runKey, resume: "allow" as const }),
    staleAfterSeconds: IMPORT_STALE_AFTER_SECONDS,
    onStale: "fail",
  });
  const counts = { stored: 0, updated: 0, unchanged: 0 };
  try {
    for (const steps of ingestBatches(imported.steps, MAX_STEPS_PER_BATCH)) await transport.appendSteps(run.id, steps);
    const batches = ingestBatches(imported.trajectories, MAX_TRAJECTORIES_PER_BATCH);
    for (const [i, batch] of batches.entries()) {
      opts.onProgress?.(i, batches.length);
      const r = await transport.appendTrajectories(run.id, batch);
      counts.stored += r.stored;
      counts.updated += r.updated;
      counts.unchanged += r.unchanged;
    }
    await transport.finish(run.id, "succeeded");
  } catch (error) {
    // The run must not stay "running" with half the data: say what stopped it (importing again continues it).
    const reason = `The import stopped: ${(error as Error).message}`.slice(0, 2000);
    await transport.finish(run.id, "failed", reason).catch(() => undefined);
    throw error;
  }
  return { id: run.id, url: run.url, ...counts, continued: earlier ? earlier.status : null };
}

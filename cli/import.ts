/**
 * `rollout-lab import <format> <path>`: read another trainer's files, post them through the ingest API, finish the
 * run. Unreadable records are listed by file and line and left out; everything else is imported. Batches are sized
 * to stay under the API's body limit, and every request is safe to retry (the API skips samples it already has).
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { IMPORT_FORMATS, importFilesWanted, runImporter, type ImportFormat } from "../lib/importers";
import { readImportFile } from "../lib/importers/read-file";
import type { ImportFile, ImportedRun } from "../lib/importers/types";
import { MAX_STEPS_PER_BATCH, MAX_TRAJECTORIES_PER_BATCH } from "../lib/ingest";
import { ingestBatches as batches } from "../lib/ingest-batches";
import type { ApiClient } from "./api-client";
import { CliError, EXIT, type ExitCode } from "./exit-codes";

export const importFormatsHelp = Object.entries(IMPORT_FORMATS)
  .map(([name, f]) => `    ${name.padEnd(16)} ${f.describe}`)
  .join("\n");

async function readInput(target: string, wanted: RegExp): Promise<ImportFile[]> {
  let info;
  try {
    info = await stat(target);
  } catch {
    throw new CliError(EXIT.BAD_CONFIG, `${target}: no such file or folder.`);
  }
  const source = (file: string) => ({
    text: () => readFile(file, "utf8"),
    arrayBuffer: async () => {
      const b = await readFile(file);
      return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
    },
  });
  if (info.isFile()) return [await readImportFile(path.basename(target), source(target))];
  // Recursive: Simia-RL keeps one folder per sample. Paths stay relative to what the user named, with "/".
  // Only the files the format reads: a TRL output_dir also holds tokenizers and weights.
  const names = (await readdir(target, { recursive: true }))
    .map(String)
    .filter((n) => wanted.test(n.split(path.sep).join("/")))
    .sort();
  return Promise.all(names.map((n) => readImportFile(n.split(path.sep).join("/"), source(path.join(target, n)))));
}

/** `--tokenizer`: a tokenizer.json, or a Hugging Face model folder holding one; read like a file of the folder. */
async function readTokenizer(target: string): Promise<ImportFile> {
  let file = target;
  try {
    if ((await stat(target)).isDirectory()) file = path.join(target, "tokenizer.json");
    return { path: "tokenizer.json", text: await readFile(file, "utf8") };
  } catch {
    throw new CliError(EXIT.BAD_CONFIG, `--tokenizer ${target}: no tokenizer.json there (give the file or the model folder holding it).`);
  }
}

export async function uploadImportedRun(
  client: ApiClient,
  imported: ImportedRun,
  tags: string[] = [],
): Promise<{ id: string; url: string; stored: number; skipped: number }> {
  const run = await client.create<{ id: string; url: string }>("/external-runs", {
    ...imported.run,
    tags: [...(imported.run.tags ?? []), ...tags],
  });
  const base = `/external-runs/${encodeURIComponent(run.id)}`;
  for (const steps of batches(imported.steps, MAX_STEPS_PER_BATCH)) await client.json("POST", `${base}/steps`, { steps });
  let stored = 0;
  let skipped = 0;
  for (const trajectories of batches(imported.trajectories, MAX_TRAJECTORIES_PER_BATCH)) {
    const r = await client.json<{ stored: number; skipped: number }>("POST", `${base}/trajectories`, { trajectories });
    stored += r.stored;
    skipped += r.skipped;
  }
  await client.json("POST", `${base}/finish`, { status: "succeeded" });
  return { ...run, stored, skipped };
}

export async function importCommand(
  client: ApiClient,
  args: { format: string | undefined; target: string | undefined; name?: string; tags: string[]; tokenizer?: string },
  io: { out(l: string): void; err(l: string): void },
): Promise<ExitCode> {
  const format = args.format as ImportFormat;
  if (!args.format || !(args.format in IMPORT_FORMATS)) {
    throw new CliError(EXIT.USAGE, `import needs a format: rollout-lab import <format> <path>\n  formats:\n${importFormatsHelp}`);
  }
  if (!args.target) throw new CliError(EXIT.USAGE, `import ${format} needs a path: rollout-lab import ${format} <path>`);
  const files = await readInput(args.target, importFilesWanted(format));
  if (args.tokenizer) files.push(await readTokenizer(args.tokenizer));
  if (!IMPORT_FORMATS[format].multiFile && files.length !== 1) {
    throw new CliError(
      EXIT.BAD_CONFIG,
      `${args.target}: the ${format} format is one file; name the file, not a folder of ${files.length}.`,
    );
  }
  const imported = runImporter(format, files, args.name, `${format} import of ${path.basename(path.resolve(args.target))}`);
  for (const p of imported.problems) io.err(`${p.file}${p.line ? `:${p.line}` : ""}: ${p.message}`);
  if (imported.trajectories.length === 0 && imported.steps.length === 0) {
    throw new CliError(
      EXIT.BAD_CONFIG,
      `nothing to import from ${args.target}${imported.problems.length ? ` (${imported.problems.length} problems above)` : ""}.`,
    );
  }
  const done = await uploadImportedRun(client, imported, args.tags);
  io.out(done.id);
  io.err(
    `Imported ${done.stored} samples and ${imported.steps.length} steps into run ${done.id}: ${done.url}` +
      (done.skipped ? ` (${done.skipped} already there)` : "") +
      (imported.problems.length ? `; ${imported.problems.length} records could not be read (listed above) and were left out.` : "."),
  );
  return imported.problems.length ? EXIT.BAD_CONFIG : EXIT.OK;
}

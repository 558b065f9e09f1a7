/**
 * `rollout-lab import <format> <path>`: read another trainer's files, post them through the ingest API, finish the
 * run (lib/importers/send-import.ts). Unreadable records are listed by file and line and left out; everything else is
 * imported. The same files imported twice are recognised by their contents: refused once finished (exit 9; --again
 * makes a second copy), continued when the first import stopped half way.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { IMPORT_FORMATS, importFilesWanted, runImporter, type ImportFormat } from "../lib/importers";
import { readImportFile } from "../lib/importers/read-file";
import type { ImportFile } from "../lib/importers/types";
import { AlreadyImportedError, importKey, sendImport, type ImportTransport } from "../lib/importers/send-import";
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
  // τ²'s directory format: naming its results.json means the run folder (results.json + simulations/).
  const folderOfResults =
    path.basename(target) === "results.json" && (await stat(path.join(path.dirname(target), "simulations")).catch(() => null));
  if (folderOfResults) return readInput(path.dirname(target), wanted);
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

/** The ingest API over REST, as sendImport's transport. */
export function restImportTransport(client: ApiClient): ImportTransport {
  const base = (id: string) => `/external-runs/${encodeURIComponent(id)}`;
  return {
    findByKey: (runKey) => client.jsonOrNull("GET", `/external-runs/by-key/${encodeURIComponent(runKey)}`),
    createRun: (input) => client.create("/external-runs", input),
    appendSteps: (id, steps) => client.json("POST", `${base(id)}/steps`, { steps }),
    appendTrajectories: (id, trajectories) => client.json("POST", `${base(id)}/trajectories`, { trajectories }),
    finish: (id, status, error) => client.json("POST", `${base(id)}/finish`, { status, ...(error ? { error } : {}) }),
  };
}

export async function importCommand(
  client: ApiClient,
  args: { format: string | undefined; target: string | undefined; name?: string; tags: string[]; tokenizer?: string; again?: boolean },
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
  for (const n of imported.notes ?? []) io.err(`${n.file}: ${n.message}`);
  let done;
  try {
    done = await sendImport(restImportTransport(client), imported, {
      runKey: importKey(format, files),
      again: args.again,
      tags: args.tags,
    });
  } catch (error) {
    if (error instanceof AlreadyImportedError) throw new CliError(EXIT.NOT_FOUND_OR_CONFLICT, error.message);
    throw error;
  }
  io.out(done.id);
  if (done.continued) io.err(`These files were imported before and the import stopped (${done.continued}); continued it in the same run.`);
  io.err(
    `Imported ${done.stored} samples and ${imported.steps.length} steps into run ${done.id}: ${done.url}` +
      (done.unchanged || done.updated ? ` (${done.unchanged} already there, ${done.updated} updated)` : "") +
      (imported.problems.length ? `; ${imported.problems.length} records could not be read (listed above) and were left out.` : "."),
  );
  return imported.problems.length ? EXIT.BAD_CONFIG : EXIT.OK;
}

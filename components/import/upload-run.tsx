"use client";
/**
 * The upload page of `rollout-lab import`: pick a format and the files (or a folder) another trainer wrote, and the
 * same importers the CLI uses (lib/importers) read them here in the browser; the run is then sent through the ingest
 * procedures in batches (lib/importers/send-import.ts, as the CLI does). Records that cannot be read are listed by
 * file and line and left out; the rest is kept. Files imported before are recognised: the page names that run (or
 * continues an import that stopped), and imports them again only when asked.
 */
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { useTRPC } from "@/components/providers/trpc-provider";
import { IMPORT_FORMATS, importFilesWanted, runImporter, type ImportFormat } from "@/lib/importers";
import { readImportFile } from "@/lib/importers/read-file";
import { AlreadyImportedError, importKey, sendImport, type ImportTransport } from "@/lib/importers/send-import";
import type { ImportFile, ImportProblem } from "@/lib/importers/types";

type Outcome =
  | {
      runId: string;
      url: string;
      stored: number;
      steps: number;
      continued: string | null;
      problems: ImportProblem[];
      notes: ImportProblem[];
    }
  | { error: string; problems: ImportProblem[]; already?: { id: string; url: string } };

/** A picked file's path within the chosen folder ("a/b.jsonl"), or its name. */
const relativePath = (f: File) => (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name;

export function UploadRun() {
  const trpc = useTRPC();
  const [format, setFormat] = useState<ImportFormat>("jsonl");
  const [files, setFiles] = useState<File[]>([]);
  const [name, setName] = useState("");
  const [busy, setBusy] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [again, setAgain] = useState(false);
  const queryClient = useQueryClient();
  const createRun = useMutation(trpc.ingest.createRun.mutationOptions());
  const appendSteps = useMutation(trpc.ingest.appendSteps.mutationOptions());
  const appendTrajectories = useMutation(trpc.ingest.appendTrajectories.mutationOptions());
  const finish = useMutation(trpc.ingest.finish.mutationOptions());
  const multiFile = IMPORT_FORMATS[format].multiFile;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setOutcome(null);
    const wanted = importFilesWanted(format);
    const picked = files.filter((f) => !multiFile || wanted.test(relativePath(f)));
    if (picked.length === 0)
      return setOutcome({
        error: multiFile ? `None of the picked files is one the ${format} format reads (${wanted.source}).` : "Pick a file.",
        problems: [],
      });
    if (!multiFile && picked.length !== 1)
      return setOutcome({ error: `The ${format} format is one file; pick one, not ${picked.length}.`, problems: [] });
    try {
      setBusy("Reading files…");
      const texts: ImportFile[] = await Promise.all(picked.map((f) => readImportFile(relativePath(f), f)));
      const imported = runImporter(format, texts, name.trim() || undefined, `${format} upload of ${picked[0].name}`);
      if (imported.trajectories.length === 0 && imported.steps.length === 0) {
        return setOutcome({ error: "Nothing to import from these files.", problems: imported.problems });
      }
      setBusy("Creating the run…");
      const transport: ImportTransport = {
        findByKey: (runKey) =>
          queryClient.fetchQuery({ ...trpc.ingest.byKey.queryOptions({ runKey }), staleTime: 0 }).catch((error: unknown) => {
            if (error instanceof TRPCClientError && error.data?.code === "NOT_FOUND") return null;
            throw error;
          }),
        createRun: (input) => createRun.mutateAsync(input),
        appendSteps: (runId, steps) => appendSteps.mutateAsync({ runId, steps }),
        appendTrajectories: (runId, trajectories) => appendTrajectories.mutateAsync({ runId, trajectories }),
        finish: (runId, status, error) => finish.mutateAsync({ runId, status, ...(error ? { error } : {}) }),
      };
      const done = await sendImport(transport, imported, {
        runKey: importKey(format, texts),
        again,
        onProgress: (i, total) => setBusy(`Sending samples (batch ${i + 1} of ${total})…`),
      });
      setOutcome({
        runId: done.id,
        url: done.url,
        stored: done.stored + done.unchanged + done.updated,
        steps: imported.steps.length,
        continued: done.continued,
        problems: imported.problems,
        notes: imported.notes ?? [],
      });
    } catch (err) {
      if (err instanceof AlreadyImportedError) return setOutcome({ error: err.message, problems: [], already: err.run });
      setOutcome({ error: err instanceof Error ? err.message : String(err), problems: [] });
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="max-w-3xl space-y-4">
      <h1 className="text-xl font-semibold">Import a run trained elsewhere</h1>
      <p className="text-sm text-slate-600">
        The files another trainer wrote, read here by the same importers as <code>rollout-lab import</code> (docs/import.md). Nothing but
        the files a format reads is opened; they are parsed in this browser and sent to the ingest API.
      </p>
      <form onSubmit={submit} className="space-y-3 rounded border border-slate-200 bg-white p-4 text-sm" data-testid="upload-form">
        <label className="block">
          <span className="mb-1 block text-slate-600">Format</span>
          <select
            aria-label="Format"
            className="block w-full min-w-0 max-w-full rounded border border-slate-300 px-2 py-1"
            value={format}
            onChange={(e) => (setFormat(e.target.value as ImportFormat), setFiles([]))}
          >
            {Object.entries(IMPORT_FORMATS).map(([k, f]) => (
              <option key={k} value={k}>
                {k} — {f.describe}
              </option>
            ))}
          </select>
        </label>
        <label className="block">
          <span className="mb-1 block text-slate-600">{multiFile ? "Folder (or its files)" : "File"}</span>
          <input
            key={format}
            aria-label="Files"
            type="file"
            multiple={multiFile}
            {...(multiFile ? { webkitdirectory: "" } : {})}
            onChange={(e) => setFiles([...(e.target.files ?? [])])}
          />
          {files.length > 0 && (
            <span className="ml-2 text-xs text-slate-500">
              {files.length} file{files.length > 1 ? "s" : ""} picked
            </span>
          )}
        </label>
        <label className="block">
          <span className="mb-1 block text-slate-600">Run name (optional)</span>
          <input
            aria-label="Run name"
            className="w-full rounded border border-slate-300 px-2 py-1"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="taken from the files when they name it"
          />
        </label>
        {outcome && "already" in outcome && outcome.already && (
          <label className="block">
            <input type="checkbox" checked={again} onChange={(e) => setAgain(e.target.checked)} className="mr-2" />
            Import again as a new run
          </label>
        )}
        <button
          type="submit"
          disabled={busy !== null || files.length === 0}
          className="rounded bg-slate-800 px-3 py-1.5 text-white disabled:opacity-40"
        >
          Import
        </button>
        {busy && <span className="ml-3 text-slate-500">{busy}</span>}
      </form>
      {outcome && "runId" in outcome && (
        <p role="status" className="rounded border border-emerald-200 bg-emerald-50 p-3 text-sm text-emerald-900" data-testid="upload-done">
          {outcome.continued && `These files were imported before and that import stopped (${outcome.continued}); it was continued. `}
          Imported {outcome.stored} samples and {outcome.steps} steps.{" "}
          <Link href={outcome.url} className="font-medium text-blue-700 hover:underline">
            Open the run
          </Link>
          {outcome.problems.length === 1 && " 1 record could not be read and was left out (below)."}
          {outcome.problems.length > 1 && ` ${outcome.problems.length} records could not be read and were left out (below).`}
        </p>
      )}
      {outcome && "error" in outcome && (
        <p role="alert" className="rounded border border-red-200 bg-red-50 p-3 text-sm text-red-800" data-testid="upload-error">
          {outcome.error}
          {outcome.already && (
            <>
              {" "}
              <Link href={outcome.already.url} className="font-medium text-blue-700 hover:underline">
                Open that run
              </Link>
            </>
          )}
        </p>
      )}
      {outcome && "notes" in outcome && outcome.notes.length > 0 && (
        <ul className="space-y-1 text-xs text-slate-600" data-testid="upload-notes">
          {outcome.notes.map((n, i) => (
            <li key={i}>
              {n.file}: {n.message}
            </li>
          ))}
        </ul>
      )}
      {outcome && outcome.problems.length > 0 && (
        <ul className="space-y-1 font-mono text-xs text-red-800" data-testid="upload-problems">
          {outcome.problems.map((p, i) => (
            <li key={i}>
              {p.file}
              {p.line ? `:${p.line}` : ""}: {p.message}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

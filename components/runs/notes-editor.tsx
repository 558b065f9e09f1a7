"use client";
/**
 * A run's notes on its page, editable at any time: the text is shown as plain text (React escapes it; nothing is
 * parsed as HTML or Markdown), "Edit notes" opens a text area, Ctrl/⌘+Enter saves and Escape cancels. The runs
 * table previews the first line and the runs search finds the run by words in it.
 */
import { useRef, useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { RUN_NOTES_MAX_CHARS } from "@/lib/run-notes";

const LIMIT = RUN_NOTES_MAX_CHARS.toLocaleString("en-US");

export function NotesEditor({ runId, notes }: { runId: string; notes: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(notes);
  const [saved, setSaved] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const save = useMutation({
    ...trpc.runActions.setNotes.mutationOptions(),
    onSuccess: async () => {
      setEditing(false);
      setSaved(true);
      await queryClient.invalidateQueries({ queryKey: trpc.runs.get.queryKey({ id: runId }) });
      // Back to where the keyboard was: the edit button replaces the form that had focus.
      editButton.current?.focus();
    },
  });
  const tooLong = text.length > RUN_NOTES_MAX_CHARS;
  const close = () => {
    setEditing(false);
    save.reset();
    requestAnimationFrame(() => editButton.current?.focus());
  };

  return (
    <section aria-labelledby="run-notes-heading" data-testid="run-notes">
      {/* One line while there are none, so the charts below do not move down for an empty section. */}
      <div className="mb-2 flex items-center gap-3">
        <h2 id="run-notes-heading" className="text-sm font-semibold text-slate-700">
          Notes
        </h2>
        {!editing && !notes && <span className="text-xs text-slate-600">none yet</span>}
        {!editing && (
          <button
            ref={editButton}
            type="button"
            className="text-xs text-blue-700 hover:underline"
            onClick={() => {
              setText(notes);
              setSaved(false);
              setEditing(true);
            }}
          >
            {notes ? "Edit notes" : "Add notes"}
          </button>
        )}
        <span role="status" className="text-xs text-green-800">
          {saved && !editing ? "Notes saved" : ""}
        </span>
      </div>
      {!editing && notes && (
        // Plain text: React escapes it, and pre-wrap keeps the writer's line breaks.
        <p className="whitespace-pre-wrap break-words rounded border border-slate-200 bg-white p-3 text-sm" data-testid="run-notes-text">
          {notes}
        </p>
      )}
      {editing && (
        <form
          className="space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (!tooLong) save.mutate({ id: runId, notes: text });
          }}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.preventDefault();
              close();
            } else if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              e.currentTarget.requestSubmit();
            }
          }}
        >
          <textarea
            aria-label="Run notes"
            aria-describedby="run-notes-help"
            aria-invalid={tooLong || Boolean(save.error)}
            className="block min-h-32 w-full rounded border border-slate-300 bg-white p-2 text-sm"
            value={text}
            onChange={(e) => setText(e.target.value)}
            autoFocus
          />
          <div className="flex flex-wrap items-center gap-3 text-xs">
            <button type="submit" className="rounded bg-blue-700 px-2 py-1 text-white" disabled={save.isPending || tooLong}>
              {save.isPending ? "Saving…" : "Save notes"}
            </button>
            <button type="button" className="text-slate-600 hover:underline" onClick={close}>
              Cancel
            </button>
            <span id="run-notes-help" className={tooLong ? "text-red-700" : "text-slate-600"}>
              {text.length.toLocaleString("en-US")} / {LIMIT} characters · Ctrl+Enter saves, Esc cancels
            </span>
            {save.error && (
              <span role="alert" className="text-red-700">
                Not saved: {save.error.message}
              </span>
            )}
          </div>
        </form>
      )}
    </section>
  );
}

"use client";
/** A run's tags, editable after launch (comma-separated); saved tags show in the runs table and its tag filter. */
import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";

export function TagEditor({ runId, tags }: { runId: string; tags: string[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(tags.join(", "));
  const save = useMutation({
    ...trpc.runActions.setTags.mutationOptions(),
    onSuccess: async () => {
      setEditing(false);
      await queryClient.invalidateQueries({ queryKey: trpc.runs.get.queryKey({ id: runId }) });
    },
  });
  if (!editing)
    return (
      <span className="flex flex-wrap items-center gap-1 text-xs" data-testid="run-tags">
        {tags.map((t) => (
          <span key={t} className="rounded bg-slate-100 px-1.5 py-0.5 text-slate-700">
            {t}
          </span>
        ))}
        <button
          type="button"
          className="text-blue-700 hover:underline"
          onClick={() => {
            setText(tags.join(", "));
            setEditing(true);
          }}
        >
          {tags.length ? "edit tags" : "add tags"}
        </button>
      </span>
    );
  return (
    <form
      className="flex flex-wrap items-center gap-1 text-xs"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({
          id: runId,
          tags: text
            .split(",")
            .map((t) => t.trim())
            .filter(Boolean),
        });
      }}
    >
      <input
        aria-label="Tags (comma-separated)"
        className="rounded border border-slate-300 px-2 py-0.5"
        value={text}
        onChange={(e) => setText(e.target.value)}
        autoFocus
      />
      <button type="submit" className="rounded bg-blue-700 px-2 py-0.5 text-white" disabled={save.isPending}>
        Save tags
      </button>
      <button type="button" className="text-slate-600 hover:underline" onClick={() => setEditing(false)}>
        cancel
      </button>
      {save.error && (
        <span role="alert" className="text-red-700">
          {save.error.message}
        </span>
      )}
    </form>
  );
}

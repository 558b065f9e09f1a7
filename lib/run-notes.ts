/**
 * A run's notes: free text about the run (why it was launched, what was seen), editable at any time after launch.
 * Notes are metadata, kept apart from the run's config: a config's hash, a clone and the trainer never see them.
 */
import { z } from "zod";
import { findSecretLikeValues } from "./run-config";

/** Long enough for a paragraph of findings, short enough that the runs list (which carries them) stays small. */
export const RUN_NOTES_MAX_CHARS = 10_000;

export const runNotesSchema = z
  .string()
  .max(RUN_NOTES_MAX_CHARS, `notes are at most ${RUN_NOTES_MAX_CHARS.toLocaleString("en-US")} characters`)
  // Notes are shown to everyone who can open the dashboard, like configs: a pasted API key is refused the same way.
  .refine((notes) => findSecretLikeValues(notes).length === 0, "looks like an API key; notes are shown in the dashboard, keep keys out")
  .describe(`Free text about the run, at most ${RUN_NOTES_MAX_CHARS.toLocaleString("en-US")} characters (plain text, never HTML).`);

/** Stored form: trailing whitespace and the blank lines around the text dropped, so an all-blank note is no note. */
export function cleanRunNotes(notes: string): string {
  return notes.replace(/\r\n?/g, "\n").trim();
}

/** The runs table's one-line preview: the first line, cut at `max` characters; `cut` says whether anything was left out. */
export function notesPreview(notes: string, max = 80): { text: string; cut: boolean } {
  const firstLine = notes.split("\n", 1)[0];
  const chars = Array.from(firstLine); // by code point, so an emoji is never cut in half
  const cutLine = chars.length > max;
  const text = cutLine ? chars.slice(0, max).join("").trimEnd() : firstLine;
  return { text, cut: cutLine || firstLine.length < notes.length };
}

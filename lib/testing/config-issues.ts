/** Test helper: a run config's validation problems as { "dotted.path": message } (empty when it parses). */
import assert from "node:assert/strict";
import { ZodError } from "zod";
import { parseRunConfig } from "../run-config";

export function configIssues(input: unknown): Record<string, string> {
  try {
    parseRunConfig(input);
    return {};
  } catch (err) {
    assert.ok(err instanceof ZodError);
    return Object.fromEntries(err.issues.map((i) => [i.path.join("."), i.message]));
  }
}

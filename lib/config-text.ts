/**
 * A run config file's text → the RunConfig object it holds, the same for the CLI (`runs create --config`) and the
 * launch form's "Load config" (paste or upload): JSON (.json) or YAML (.yaml / .yml; other names are tried as JSON,
 * then YAML). Returns a sentence naming the file and the problem instead of throwing.
 */
import YAML from "yaml";

export type ConfigTextResult = { ok: true; config: Record<string, unknown> } | { ok: false; error: string };

export function parseConfigText(text: string, fileName: string): ConfigTextResult {
  const ext = /\.[^./]+$/.exec(fileName.toLowerCase())?.[0] ?? "";
  let parsed: unknown;
  try {
    if (ext === ".json") parsed = JSON.parse(text);
    else if (ext === ".yaml" || ext === ".yml") parsed = YAML.parse(text);
    else {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = YAML.parse(text);
      }
    }
  } catch (error) {
    return {
      ok: false,
      error: `The config file ${fileName} is not valid ${ext === ".json" ? "JSON" : "JSON or YAML"}: ${(error as Error).message}`,
    };
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    return {
      ok: false,
      error: `The config file ${fileName} must contain an object (a RunConfig), not ${Array.isArray(parsed) ? "a list" : String(parsed)}.`,
    };
  }
  return { ok: true, config: parsed as Record<string, unknown> };
}

/**
 * Run config files for `runs create --config`: JSON (.json) or YAML (.yaml / .yml; other extensions are tried as
 * JSON then YAML). The file holds a RunConfig; the server validates it with the shared schema.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import YAML from "yaml";
import { CliError, EXIT } from "./exit-codes";

export async function readConfigFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new CliError(
      EXIT.BAD_CONFIG,
      `Cannot read the config file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
    );
  }
  const ext = path.extname(file).toLowerCase();
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
    throw new CliError(
      EXIT.BAD_CONFIG,
      `The config file ${file} is not valid ${ext === ".json" ? "JSON" : "JSON or YAML"}: ${(error as Error).message}`,
    );
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new CliError(
      EXIT.BAD_CONFIG,
      `The config file ${file} must contain an object (a RunConfig), not ${Array.isArray(parsed) ? "a list" : String(parsed)}.`,
    );
  }
  return parsed as Record<string, unknown>;
}

/**
 * Run config files for `runs create --config`: JSON (.json) or YAML (.yaml / .yml; other extensions are tried as
 * JSON then YAML), parsed as the launch form parses an uploaded one (lib/config-text.ts). The file holds a
 * RunConfig; the server validates it with the shared schema.
 */
import { readFile } from "node:fs/promises";
import { parseConfigText } from "../lib/config-text";
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
  const parsed = parseConfigText(text, file);
  if (!parsed.ok) throw new CliError(EXIT.BAD_CONFIG, parsed.error);
  return parsed.config;
}

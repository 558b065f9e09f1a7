/**
 * The Slurm launcher's settings, from ROLLOUT_LAB_SLURM on the submit host: "1" (all defaults) or comma-separated
 * key=value pairs, e.g. `ROLLOUT_LAB_SLURM="workDir=/shared/rollout-lab,dataDir=/shared/rl-data,runSetup=allow"`.
 * Paths are as the compute nodes see them (a shared filesystem); see docs/slurm.md.
 */
import path from "node:path";
import { z } from "zod";
import { describeZodIssues } from "../../lib/error-text";
import type { JobScriptSite } from "../../lib/slurm-script";

const settingsSchema = z
  .object({
    workDir: z.string().min(1).describe("The Rollout Lab checkout the jobs run from (default: the launcher's working folder)."),
    nodeBin: z.string().min(1).describe("Node.js on the compute nodes (default: the launcher's own)."),
    dataDir: z.string().min(1).describe("ROLLOUT_LAB_DATA_DIR for the jobs (default: the launcher's, made absolute)."),
    logDir: z.string().min(1).describe("Where jobs write stdout/stderr (default <dataDir>/slurm-logs)."),
    pollMs: z.coerce.number().int().min(200).max(600_000).default(5_000).describe("How often Slurm is asked about the jobs."),
    runSetup: z
      .enum(["allow", "deny"])
      .default("deny")
      .describe("Whether a run's execution.setup lines go into its job script (they run as the launcher's user)."),
  })
  .strict();

export type SlurmLauncherSettings = z.output<typeof settingsSchema>;

export class SlurmSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SlurmSettingsError";
  }
}

/** null when ROLLOUT_LAB_SLURM is unset or empty (not a launcher); throws SlurmSettingsError naming the bad key. */
export function readSlurmSettings(
  env: Record<string, string | undefined> = process.env,
  cwd = process.cwd(),
): SlurmLauncherSettings | null {
  const raw = env.ROLLOUT_LAB_SLURM?.trim();
  if (!raw) return null;
  const pairs: Record<string, string> = {};
  if (!/^(1|true|yes|on)$/i.test(raw)) {
    for (const part of raw
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean)) {
      const eq = part.indexOf("=");
      if (eq <= 0)
        throw new SlurmSettingsError(
          `ROLLOUT_LAB_SLURM: "${part}" is not key=value; write e.g. ROLLOUT_LAB_SLURM="workDir=/shared/rollout-lab,pollMs=5000" (or 1 for the defaults).`,
        );
      pairs[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
    }
  }
  const dataDir = path.resolve(cwd, pairs.dataDir ?? env.ROLLOUT_LAB_DATA_DIR ?? ".data");
  const parsed = settingsSchema.safeParse({
    workDir: path.resolve(cwd, pairs.workDir ?? "."),
    nodeBin: pairs.nodeBin ?? process.execPath,
    logDir: path.resolve(cwd, pairs.logDir ?? path.join(dataDir, "slurm-logs")),
    ...pairs,
    dataDir,
  });
  if (!parsed.success) throw new SlurmSettingsError(`ROLLOUT_LAB_SLURM: ${describeZodIssues(parsed.error, "settings")}`);
  return parsed.data;
}

export function jobScriptSite(s: SlurmLauncherSettings): JobScriptSite {
  return { workDir: s.workDir, nodeBin: s.nodeBin, dataDir: s.dataDir, logDir: s.logDir };
}

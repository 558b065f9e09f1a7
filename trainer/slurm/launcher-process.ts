/**
 * The launcher process: `npm run worker` with ROLLOUT_LAB_SLURM set (trainer/main.ts). It checks the database and
 * that Slurm answers, then supervises and submits until SIGTERM / SIGINT. Stopping it leaves the jobs running: a
 * launcher started later re-attaches to them by id.
 */
import { spawnSync } from "node:child_process";
import { createPrismaClient } from "../../db/client";
import { checkWorkerEnv } from "../../lib/env";
import { checkWorkerDatabase, resolveWorkerDatabaseUrl } from "../worker/database";
import { SlurmLauncher } from "./launcher";
import type { SlurmLauncherSettings } from "./settings";
import { createSlurmCli } from "./slurm-cli";

export async function runSlurmLauncherProcess(settings: SlurmLauncherSettings): Promise<never> {
  let url: string;
  try {
    checkWorkerEnv();
    const resolved = resolveWorkerDatabaseUrl();
    url = resolved.url;
    await checkWorkerDatabase(url, resolved.embeddedDefault);
    const probe = spawnSync("squeue", ["--json", "--states=all"], { encoding: "utf8" });
    if (probe.status !== 0) {
      const said = (probe.stderr || probe.error?.message || "").trim().split("\n")[0];
      throw new Error(
        `ROLLOUT_LAB_SLURM is set but Slurm does not answer here (squeue: ${said}). Run the launcher on a host that can submit jobs (sbatch, squeue), with SLURM_CONF if the cluster's slurm.conf is not in /etc/slurm.`,
      );
    }
  } catch (err) {
    console.error(`[slurm launcher] ${(err as Error).message}`);
    process.exit(1);
  }
  const db = createPrismaClient(url, 3);
  const launcher = new SlurmLauncher({ db, settings, cli: createSlurmCli() });
  const onSignal = (signal: string) => {
    console.log(`[slurm launcher] ${signal}: stopping; the jobs keep running and a launcher started later re-attaches to them.`);
    launcher.stop();
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  console.log(
    `[slurm launcher] submitting Slurm runs from ${new URL(url).host}; jobs run ${settings.workDir} with data in ${settings.dataDir}, output in ${settings.logDir}`,
  );
  await launcher.start();
  await db.$disconnect();
  process.exit(0);
}

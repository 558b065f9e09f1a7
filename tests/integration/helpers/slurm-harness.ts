/**
 * Setup for the Slurm tests: a real one-node Slurm (scripts/test-slurm.ts), a database and a data folder per file,
 * and launchers (trainer/slurm/launcher.ts) started and stopped by the tests. The jobs run this checkout's trainer
 * on the node, with DATABASE_URL and the backend passed through sbatch's environment, as in production.
 */
import { after, afterEach, before } from "node:test";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { provideTestSlurm, slurmUnavailable, type TestSlurm } from "../../../scripts/test-slurm";
import { SlurmLauncher } from "../../../trainer/slurm/launcher";
import type { SlurmLauncherSettings } from "../../../trainer/slurm/settings";
import { createSlurmCli } from "../../../trainer/slurm/slurm-cli";
import { createTestDatabase, type TestDatabase } from "./db";

/** Why the Slurm tests cannot run here (one line), or null. Known when the tests are defined. */
export const slurmSkipReason: string | null = process.env.TEST_SLURM_CONF ? null : slurmUnavailable();

export interface SlurmHarness {
  db(): TestDatabase;
  cluster(): TestSlurm;
  settings(): SlurmLauncherSettings;
  /** A launcher the test drives with tick(); `env` overrides the Slurm client's environment (e.g. SLURM_CONF). */
  makeLauncher(env?: Record<string, string>): SlurmLauncher;
  /** A launcher polling every 300 ms until stopLauncher(). */
  startLauncher(): { launcher: SlurmLauncher; stop(): Promise<void> };
  /** A Slurm client command against the test cluster (squeue, scancel…); its stdout. */
  slurm(cmd: string, args: string[]): string;
  waitFor(what: string, check: () => Promise<boolean>, timeoutMs?: number): Promise<void>;
}

export function useSlurm(name: string): SlurmHarness {
  let db: TestDatabase | undefined;
  let cluster: TestSlurm | null = null;
  const dataDir = mkdtempSync(path.join(tmpdir(), `${name.replace(/_/g, "-")}-`));
  const running: (() => Promise<void>)[] = [];
  const env = () => ({
    ...process.env,
    ...cluster!.env,
    DATABASE_URL: db!.url,
    // The production CPU backend, and a short lease so a test never waits long for a dead trainer's.
    ROLLOUT_LAB_BACKEND: "wasm",
    WORKER_LEASE_MS: "6000",
  });
  const settings = (): SlurmLauncherSettings => ({
    workDir: process.cwd(),
    nodeBin: process.execPath,
    dataDir,
    logDir: path.join(dataDir, "slurm-logs"),
    pollMs: 300,
    runSetup: "deny",
  });
  before(async () => {
    if (slurmSkipReason) return;
    cluster = await provideTestSlurm();
    db = await createTestDatabase(name);
  });
  // A test that fails half way must not leave its launcher polling, or its jobs on the one node, for the next test:
  // a leftover launcher submitted the next test's runs, and one failure became three.
  afterEach(async () => {
    while (running.length > 0) await running.pop()!();
    if (cluster) execFileSync("scancel", ["--user", userInfo().username], { env: env() });
  });
  after(async () => {
    for (const stop of running) await stop();
    await cluster?.stop();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    db: () => db!,
    cluster: () => cluster!,
    settings,
    makeLauncher: (extra = {}) =>
      new SlurmLauncher({ db: db!.prisma, settings: settings(), cli: createSlurmCli({ ...env(), ...extra }), log: () => {} }),
    startLauncher() {
      const launcher = new SlurmLauncher({ db: db!.prisma, settings: settings(), cli: createSlurmCli(env()), log: () => {} });
      const loop = launcher.start();
      const stop = async () => {
        launcher.stop();
        await loop;
      };
      running.push(stop);
      return { launcher, stop };
    },
    slurm: (cmd, args) => execFileSync(cmd, args, { env: env() }).toString(),
    async waitFor(what, check, timeoutMs = 120_000) {
      const end = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > end) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
  };
}

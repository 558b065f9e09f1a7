/**
 * npm start — the one command that runs Rollout Lab: database (the embedded PostgreSQL server, or DATABASE_URL),
 * migrations, the demo seed on an empty database, a Next.js build when sources changed, the web server and one
 * trainer worker; prints the URL. Ctrl-C / SIGTERM stop the children, then the embedded database. A crashed worker
 * is restarted; if this process is killed outright, its children and the database stop themselves
 * (supervisor.ts, exit-with-parent.mjs, the database watchdog in db/embedded.ts).
 *
 * Flags: --no-seed (or SEED_DEMO=false), --no-worker (or START_WORKER=false), --dev (next dev, no build).
 */
import { spawnSync } from "node:child_process";
import { dashboardOpenToNetwork, loadEnv } from "../lib/env";
import { isUserFacingStartupError, prepareDatabase, type PreparedDatabase } from "../db/bootstrap";
import { createPrismaClient } from "../db/client";
import { assertPortFree } from "../db/embedded";
import { seedIfEmpty } from "../server/seed/demo";
import { buildIsCurrent, buildWebApp } from "./build-fingerprint";
import { Supervisor } from "./supervisor";

const args = new Set(process.argv.slice(2));
const supervisor = new Supervisor(log, () => void shutdown(1));
let database: PreparedDatabase | null = null;
let shuttingDown = false;

function log(message: string) {
  console.log(`[rollout-lab] ${message}`);
}

async function shutdown(code: number): Promise<never> {
  if (shuttingDown) return new Promise<never>(() => {});
  shuttingDown = true;
  log("Stopping…");
  await supervisor.stopAll();
  await database?.stop();
  log("Stopped.");
  process.exit(code);
}

async function waitForHealth(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return false;
}

async function main() {
  const env = loadEnv();
  const dev = args.has("--dev");
  if (dashboardOpenToNetwork(env)) {
    log(
      `WARNING: the dashboard listens on ${env.HOST} with no DASHBOARD_PASSWORD (ROLLOUT_LAB_ALLOW_OPEN_DASHBOARD=true): anyone who reaches it can create API tokens and runs.`,
    );
  }
  await assertPortFree(env.PORT, env.HOST, "web server", "PORT");

  database = await prepareDatabase(env);
  log(
    database.embedded
      ? `Embedded PostgreSQL in ${database.embedded.clusterDir} (port ${env.EMBEDDED_DB_PORT}, password in the data folder)`
      : "Using PostgreSQL from DATABASE_URL",
  );
  if (database.migrationsApplied.length) log(`Applied migrations: ${database.migrationsApplied.join(", ")}`);

  if (env.SEED_DEMO && !args.has("--no-seed")) {
    const prisma = createPrismaClient(database.url, 1);
    const seeded = await seedIfEmpty(prisma);
    await prisma.$disconnect();
    if (seeded) log(`Empty database: queued the demo run (${seeded}); the worker trains it live. Use --no-seed to skip.`);
  }

  if (!dev && !buildIsCurrent() && otherBuildRunning()) {
    // Next refuses two builds at once (another `npm start`, or the test suite); wait for it, then look again.
    log("Another web build is running; waiting for it to finish…");
    for (let waited = 0; otherBuildRunning() && waited < 600; waited++) await new Promise((r) => setTimeout(r, 1000));
  }
  if (!dev && !buildIsCurrent()) {
    log("Building the web app (first start or sources changed; 1–3 minutes on a 2-core machine)…");
    if (!buildWebApp()) {
      log("The web build failed; see the output above.");
      await shutdown(1);
    }
  }

  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    ROLLOUT_LAB_EMBEDDED_DB: database.embedded ? "1" : "0",
    NEXT_TELEMETRY_DISABLED: "1",
  };
  supervisor.start({
    name: "web server",
    args: ["node_modules/next/dist/bin/next", dev ? "dev" : "start", "-p", String(env.PORT), "-H", env.HOST],
    env: childEnv,
    restart: false,
  });
  if (env.START_WORKER && !args.has("--no-worker")) {
    // A TF.js step keeps a core busy for seconds at a time; at a lower priority it still gets every idle cycle, but
    // a dashboard request no longer waits behind it (bench:load: p95 and the training slowdown, README).
    supervisor.start({ name: "trainer worker", args: ["--import", "tsx", "trainer/main.ts"], env: childEnv, restart: true, nice: 5 });
  }

  const url = `http://${env.HOST}:${env.PORT}`;
  if (await waitForHealth(url, 120_000)) log(`Rollout Lab is running at ${url}  (Ctrl-C to stop)`);
  else log(`The web server did not become healthy at ${url}/api/health within 2 minutes.`);
}

/** True while some `next build` runs on this machine. */
function otherBuildRunning(): boolean {
  return spawnSync("pgrep", ["-f", "next build"], { encoding: "utf8" }).status === 0;
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

main().catch(async (err) => {
  console.error(isUserFacingStartupError(err) ? `[rollout-lab] ${err.message}` : err);
  await shutdown(1);
});

/**
 * npm start — the one command that runs Rollout Lab: database (the embedded PostgreSQL server, or DATABASE_URL),
 * migrations, the demo seed on an empty database, a Next.js build when sources changed, the web server and one
 * trainer worker; prints the URL. Ctrl-C / SIGTERM / SIGHUP stop the children (the worker checkpoints and puts its
 * run back in the queue: a stop, never a crash), then the embedded database; a second Ctrl-C a few seconds later
 * stops them at once. A crashed worker is restarted. If this process is killed outright its children and the
 * database stop themselves (supervisor.ts, exit-with-parent.mjs, the database watchdog in db/embedded.ts); if npm
 * or the shell that launched it is killed, it stops everything itself (launcher-watch.ts).
 *
 * The environment server (OpenEnv's protocol, trainer/env-server) runs as a supervised child on a second port,
 * ROLLOUT_LAB_ENVS_PORT (default PORT + 1): `next start` owns the web port and cannot hand WebSocket upgrades over.
 *
 * Flags: --no-seed (or SEED_DEMO=false), --no-worker (or START_WORKER=false), --no-envs (or START_ENV_SERVER=false),
 * --dev (next dev, no build).
 */
import { spawnSync } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { dashboardOpenToNetwork, loadEnv } from "../lib/env";
import { isUserFacingStartupError, prepareDatabase, type PreparedDatabase } from "../db/bootstrap";
import { createPrismaClient } from "../db/client";
import { assertPortFree } from "../db/embedded";
import { seedIfEmpty } from "../server/seed/demo";
import { buildIsCurrent, buildWebApp } from "./build-fingerprint";
import { watchLaunchers } from "./launcher-watch";
import { Supervisor } from "./supervisor";

const args = new Set(process.argv.slice(2));
const HTTP_GUARD = fileURLToPath(new URL("./http-guard.mjs", import.meta.url));
const supervisor = new Supervisor(log, () => void shutdown(1));
let database: PreparedDatabase | null = null;
let shuttingDown = false;
/** A worker finishing its step and writing a checkpoint of a large model takes a while. */
const WORKER_STOP_GRACE_MS = 120_000;
/** Signals this close together are one request: a terminal's Ctrl-C and npm's forwarding of it. */
const REPEAT_WINDOW_MS = 2_000;
let firstStopSignalAt = 0;

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
  const envsPort = env.START_ENV_SERVER && !args.has("--no-envs") ? await environmentServerPort(env) : null;

  database = await prepareDatabase(env);
  log(
    database.embedded
      ? `Embedded PostgreSQL in ${database.embedded.clusterDir} (port ${env.EMBEDDED_DB_PORT}; port and password in the data folder)`
      : "Using PostgreSQL from DATABASE_URL",
  );
  if (database.migrationsApplied.length) log(`Applied migrations: ${database.migrationsApplied.join(", ")}`);

  if (env.SEED_DEMO && !args.has("--no-seed")) {
    const prisma = createPrismaClient(database.url, 1);
    const seeded = await seedIfEmpty(prisma);
    await prisma.$disconnect();
    if (seeded) {
      log(`Empty database: queued the demo run (${seeded}); the worker trains it live. Use --no-seed to skip.`);
      log(
        'Next to it, "Try an evaluation" on the Runs page plays τ² retail with the tasks\' gold actions replayed (a script, not a model).',
      );
    }
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
    // Every child's endpoint policy counts the environment server among Rollout Lab's own listeners (never an LLM
    // endpoint a run config may name), on whichever port it got.
    ...(envsPort !== null ? { ROLLOUT_LAB_ENVS_PORT: String(envsPort) } : {}),
  };
  supervisor.start({
    name: "web server",
    // http-guard.mjs answers what Next mishandles (TRACE, oversized or chunked API bodies) before Next reads a byte.
    args: ["--import", HTTP_GUARD, "node_modules/next/dist/bin/next", dev ? "dev" : "start", "-p", String(env.PORT), "-H", env.HOST],
    env: childEnv,
    restart: false,
  });
  if (env.START_WORKER && !args.has("--no-worker")) {
    // A TF.js step keeps a core busy for seconds at a time; at a lower priority it still gets every idle cycle, but
    // a dashboard request no longer waits behind it (bench:load: p95 and the training slowdown, README).
    supervisor.start({
      name: "trainer worker",
      args: ["--import", "tsx", "trainer/main.ts"],
      env: childEnv,
      restart: true,
      nice: 5,
      stopGraceMs: WORKER_STOP_GRACE_MS,
    });
  }

  if (envsPort !== null) {
    const host = ["--host", env.HOST, "--port", String(envsPort)];
    supervisor.start({
      name: "environment server",
      args: ["--import", "tsx", "trainer/env-server/main.ts", ...host],
      env: childEnv,
      restart: true,
    });
  }

  const url = `http://${env.HOST}:${env.PORT}`;
  if (envsPort !== null) log(`Environments for external trainers (OpenEnv protocol): http://${env.HOST}:${envsPort}/envs/<name>`);
  if (await waitForHealth(url, 120_000)) log(`Rollout Lab is running at ${url}  (Ctrl-C to stop)`);
  else log(`The web server did not become healthy at ${url}/api/health within 2 minutes.`);
}

/** ROLLOUT_LAB_ENVS_PORT (must be free), else PORT + 1 when free, else any free port (printed either way). */
async function environmentServerPort(env: ReturnType<typeof loadEnv>): Promise<number> {
  if (env.ROLLOUT_LAB_ENVS_PORT !== undefined) {
    await assertPortFree(env.ROLLOUT_LAB_ENVS_PORT, env.HOST, "environment server", "ROLLOUT_LAB_ENVS_PORT");
    return env.ROLLOUT_LAB_ENVS_PORT;
  }
  const listenOn = (port: number) =>
    new Promise<number | null>((resolve) => {
      const probe = net.createServer();
      probe.once("error", () => resolve(null));
      probe.listen(port, env.HOST, () => {
        const chosen = (probe.address() as net.AddressInfo).port;
        probe.close(() => resolve(chosen));
      });
    });
  return (await listenOn(env.PORT + 1)) ?? (await listenOn(0)) ?? env.PORT + 1;
}

/** True while some `next build` runs on this machine. */
function otherBuildRunning(): boolean {
  return spawnSync("pgrep", ["-f", "next build"], { encoding: "utf8" }).status === 0;
}

/** The first stop signal stops gracefully; one that comes later than REPEAT_WINDOW_MS after it stops at once. */
function onStopSignal(signal: string): void {
  const now = Date.now();
  if (!shuttingDown) {
    firstStopSignalAt = now;
    log(
      `${signal}: stopping (the worker checkpoints its run first; ${signal === "SIGINT" ? "Ctrl-C again" : "a second signal"} stops at once).`,
    );
    void shutdown(0);
  } else if (now - firstStopSignalAt > REPEAT_WINDOW_MS) {
    log(`${signal} again: stopping at once; a run in training resumes from its last checkpoint.`);
    supervisor.killAll();
    void database
      ?.stop()
      .catch(() => {})
      .finally(() => process.exit(1));
    if (!database) process.exit(1);
  }
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => onStopSignal(signal));
watchLaunchers((pid) => {
  log(`The process that launched Rollout Lab (pid ${pid}) is gone; stopping.`);
  void shutdown(0);
});

main().catch(async (err) => {
  console.error(isUserFacingStartupError(err) ? `[rollout-lab] ${err.message}` : err);
  await shutdown(1);
});

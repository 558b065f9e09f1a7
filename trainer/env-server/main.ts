/**
 * The environment server process: `npx rollout-lab envs serve --port P` and the second port of `npm start`. A
 * separate process like the trainer worker: it runs environments from trainer/envs and writes to PostgreSQL through
 * db/ (DATABASE_URL, else the embedded database of this machine's `npm start`). SIGTERM / SIGINT end every open
 * episode (recorded as server_stopped) and exit; a second signal exits at once (the journal then reports the
 * sessions lost at the next start).
 *
 * Environment: ROLLOUT_LAB_ENVS_PORT (default PORT + 1, else 3001), HOST (127.0.0.1), ROLLOUT_LAB_ENVS_MAX_SESSIONS
 * (256), ROLLOUT_LAB_ENVS_MAX_SESSIONS_PER_CLIENT (¾ of the maximum), ROLLOUT_LAB_ENVS_IDLE_SECONDS (600),
 * ROLLOUT_LAB_DATA_DIR (.data: data roots and the journals).
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { createPrismaClient } from "../../db/client";
import { connectOrCreateDatabase } from "../../db/connect";
import { redactDatabaseUrl } from "../../db/embedded-credentials";
import { applyMigrations } from "../../db/migrate";
import { readEnvVar } from "../../lib/env";
import { configureDataRoots, dataRoots } from "../data-roots";
import { checkWorkerDatabase, resolveWorkerDatabaseUrl } from "../worker/database";
import { isLoopbackHost } from "./access";
import { EnvServer } from "./server";

export interface ServeOptions {
  port: number;
  host: string;
  maxSessions: number;
  /** Sessions one token (or, without one, one address) may hold; undefined: ¾ of maxSessions. */
  maxSessionsPerClient: number | undefined;
  idleSeconds: number;
  /** A WebSocket client silent this long (no pong to the 30 s pings, no message) is dropped. */
  heartbeatTimeoutSeconds: number;
  maxMessageBytes: number;
  requireToken: boolean;
  dataDir: string;
  log: (line: string) => void;
}

export const SERVE_FLAGS = {
  port: { type: "string" },
  host: { type: "string" },
  "max-sessions": { type: "string" },
  "max-sessions-per-client": { type: "string" },
  "idle-timeout": { type: "string" },
  "heartbeat-timeout": { type: "string" },
  "max-message-bytes": { type: "string" },
  "require-token": { type: "boolean" },
} as const;

/** Flags over environment variables over defaults; throws with one sentence on a bad value. */
export function serveOptionsFrom(
  flags: Partial<Record<keyof typeof SERVE_FLAGS, string | boolean>>,
  env: Record<string, string | undefined> = process.env,
): ServeOptions {
  const num = (name: string, raw: string | boolean | undefined, fallback: number, min = 1) => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}, got "${raw}".`);
    return n;
  };
  const webPort = readEnvVar("PORT", env);
  return {
    port: num("port", flags.port, readEnvVar("ROLLOUT_LAB_ENVS_PORT", env) ?? webPort + 1, 0),
    host: typeof flags.host === "string" ? flags.host : readEnvVar("HOST", env),
    maxSessions: num("max-sessions", flags["max-sessions"], readEnvVar("ROLLOUT_LAB_ENVS_MAX_SESSIONS", env) ?? 256),
    maxSessionsPerClient:
      flags["max-sessions-per-client"] !== undefined
        ? num("max-sessions-per-client", flags["max-sessions-per-client"], 1)
        : readEnvVar("ROLLOUT_LAB_ENVS_MAX_SESSIONS_PER_CLIENT", env),
    idleSeconds: num("idle-timeout", flags["idle-timeout"], readEnvVar("ROLLOUT_LAB_ENVS_IDLE_SECONDS", env) ?? 600),
    heartbeatTimeoutSeconds: num("heartbeat-timeout", flags["heartbeat-timeout"], 120, 30),
    maxMessageBytes: num("max-message-bytes", flags["max-message-bytes"], 1024 * 1024, 1024),
    requireToken: flags["require-token"] === true,
    dataDir: env.ROLLOUT_LAB_DATA_DIR || ".data",
    log: (line) => console.log(`[envs] ${line}`),
  };
}

/** A token is required whenever the server is reachable beyond loopback (or the operator asks for one). */
export function tokenRequiredFor(opts: Pick<ServeOptions, "host" | "requireToken">): boolean {
  return opts.requireToken || !isLoopbackHost(opts.host);
}

/** Starts the server; resolves with it and the port it listens on. */
export async function startEnvServer(
  opts: ServeOptions,
  databaseUrl: string,
): Promise<{ server: EnvServer; port: number; close(): Promise<void> }> {
  const roots = dataRoots(opts.dataDir);
  configureDataRoots(roots);
  const db = createPrismaClient(databaseUrl, 4);
  const tokenRequired = tokenRequiredFor(opts);
  const server = new EnvServer({
    db,
    dataRoots: roots,
    tokenRequired,
    limits: {
      maxSessions: opts.maxSessions,
      maxSessionsPerClient: opts.maxSessionsPerClient,
      idleTimeoutMs: opts.idleSeconds * 1000,
      detachedGraceMs: Math.min(opts.idleSeconds, 60) * 1000,
    },
    maxMessageBytes: opts.maxMessageBytes,
    heartbeatTimeoutMs: opts.heartbeatTimeoutSeconds * 1000,
    journalFile: path.join(opts.dataDir, "env-server", `episodes-${opts.host.replace(/[^A-Za-z0-9.-]/g, "_")}-${opts.port}.jsonl`),
    log: opts.log,
  });
  const port = await server.listen(opts.port, opts.host);
  return {
    server,
    port,
    async close() {
      await server.stop();
      await db.$disconnect();
    },
  };
}

/**
 * The database the server writes to, made ready as `npm start` makes it: a DATABASE_URL naming a database that does
 * not exist yet is created, and pending migrations are applied (under the migrations' advisory lock, so a web server
 * starting beside it is safe). Without DATABASE_URL it is the embedded database `npm start` owns, only checked.
 */
export async function prepareEnvServerDatabase(
  env: Record<string, string | undefined> = process.env,
  log: (line: string) => void = () => {},
): Promise<string> {
  const { url, embeddedDefault } = resolveWorkerDatabaseUrl(env);
  if (embeddedDefault) {
    await checkWorkerDatabase(url, embeddedDefault);
    return url;
  }
  const client = await connectOrCreateDatabase(url);
  try {
    const applied = await applyMigrations(client);
    if (applied.length) log(`applied ${applied.length} database migration(s) to ${redactDatabaseUrl(url)}`);
  } finally {
    await client.end();
  }
  return url;
}

/** Runs until SIGTERM / SIGINT; returns the exit code. */
export async function runEnvServerProcess(opts: ServeOptions): Promise<number> {
  const url = await prepareEnvServerDatabase(process.env, opts.log);
  const started = await startEnvServer(opts, url);
  const shown = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  opts.log(
    `OpenEnv environments at http://${shown}:${started.port}/envs/<name> (WebSocket sessions at /envs/<name>/ws; ${started.server.catalog.list().length} environments, up to ${opts.maxSessions} sessions, ${started.server.lostAtStart.length ? `${started.server.lostAtStart.length} sessions lost at the last stop, ` : ""}token ${tokenRequiredFor(opts) ? "required" : "optional on loopback"})`,
  );
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        opts.log(`${signal} again: exiting now; open sessions are reported as lost at the next start.`);
        process.exit(1);
      }
      stopping = true;
      opts.log(`${signal}: ending ${started.server.registry.size} open sessions and recording their episodes…`);
      started.close().then(
        () => resolve(0),
        (err: Error) => {
          opts.log(`stop failed: ${err.message}`);
          resolve(1);
        },
      );
    };
    process.on("SIGTERM", () => stop("SIGTERM"));
    process.on("SIGINT", () => stop("SIGINT"));
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ args: process.argv.slice(2), options: SERVE_FLAGS, strict: true });
  runEnvServerProcess(serveOptionsFrom(values)).then(
    (code) => process.exit(code),
    (err: Error) => {
      console.error(`[envs] ${err.message}`);
      process.exit(1);
    },
  );
}

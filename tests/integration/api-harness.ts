/**
 * A real Rollout Lab web server for the API / CLI / fuzz tests: a fresh migrated database on the real PostgreSQL
 * and `scripts/start.ts --no-seed` on a free port (no worker), as a user would start it. `stop()` shuts the server
 * down and drops the database.
 */
import { spawn, spawnSync } from "node:child_process";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { freePort } from "./helpers/start-app";
import { createToken, type TokenScope } from "../../server/services/tokens";
import { matchRoute } from "../../server/rest/routes";
import { responseSchema } from "../../server/rest/responses";

export interface ApiServer {
  base: string;
  db: TestDatabase;
  output(): string;
  /** A fresh token (so each test has its own rate-limit bucket). */
  token(scopes?: TokenScope[], name?: string): Promise<string>;
  stop(): Promise<void>;
}

export { freePort } from "./helpers/start-app";

/** True while some `next build` runs (another test file's server, or an engineer's build). */
function nextBuildRunning(): boolean {
  return spawnSync("pgrep", ["-f", "next build"], { encoding: "utf8" }).status === 0;
}

async function waitForOtherBuilds(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (nextBuildRunning() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1000));
}

/**
 * Starts the server; when start.ts found the build stale and another `next build` was already running (Next
 * refuses two at once), waits for that build and tries again.
 */
export async function startApiServer(env: Record<string, string> = {}): Promise<ApiServer> {
  for (let attempt = 1; ; attempt++) {
    await waitForOtherBuilds(300_000);
    try {
      return await startOnce(env);
    } catch (error) {
      if (attempt >= 3 || !/Another next build process is already running/.test((error as Error).message)) throw error;
    }
  }
}

async function startOnce(env: Record<string, string>): Promise<ApiServer> {
  const db = await createTestDatabase("rl_api");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    PORT: String(port),
    START_WORKER: "false",
    NEXT_TELEMETRY_DISABLED: "1",
    ...env,
  };
  if (!("DASHBOARD_PASSWORD" in env)) delete childEnv.DASHBOARD_PASSWORD;
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts", "--no-seed"], {
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    await db.drop();
  };
  // Up to 4 minutes: start.ts rebuilds the web app first when sources changed since the last build.
  const deadline = Date.now() + 240_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the server did not become healthy; output:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return {
    base,
    db,
    output: () => out,
    token: async (scopes = ["read", "write"], name = "test token") => (await createToken(db.prisma, { name, scopes })).token,
    stop,
  };
}

export async function api(
  base: string,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // JSONL or empty
  }
  if (res.ok && json !== null) assertDeclaredResponse(method, path, json);
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: json as Record<string, unknown> & {
      error?: { code: string; message: string; field?: string; issues?: { path: string; message: string }[] };
    },
  };
}

/**
 * Every success body must match the response schema the OpenAPI document declares (server/rest/responses.ts; objects
 * are strict), so each API test also proves the typed clients generated from the document are right.
 */
function assertDeclaredResponse(method: string, path: string, body: unknown): void {
  const matched = matchRoute(method, new URL(path, "http://x").pathname);
  if (!matched || !("route" in matched) || matched.route.kind !== "procedure") return;
  const parsed = responseSchema(matched.route.procedure).safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`${method} ${path}: the response does not match its declared schema:\n  ${issues.join("\n  ")}`);
  }
}

/**
 * An environment server on a loopback port over a fresh test database, a raw WebSocket peer for protocol-level
 * checks, and the gold actions each environment's own tests replay (τ²'s gold tool calls and closing message, the
 * other environments' gold demonstrations), for clients that must reach the reward those tests expect.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "./db";
import { EnvServer, type EnvServerOptions } from "../../../trainer/env-server/server";
import { getEnvironment } from "../../../trainer/envs/registry";
import type { Tau2TaskData } from "../../../trainer/envs/tau2/tau2-format";
import type { Task } from "../../../trainer/envs/types";

export function assertWebSocket(): void {
  if (typeof WebSocket === "undefined")
    throw new Error(
      "These tests need the WebSocket client of Node ≥ 22, or Node 20 with --experimental-websocket (scripts/test.ts passes it).",
    );
}

export interface TestEnvServer {
  db: TestDatabase;
  server: EnvServer;
  /** http://127.0.0.1:<port> */
  url: string;
  dataDir: string;
  close(): Promise<void>;
}

export async function startTestEnvServer(
  opts: Partial<Omit<EnvServerOptions, "db">> & { db?: TestDatabase } = {},
  log: string[] = [],
): Promise<TestEnvServer> {
  const { db: given, ...rest } = opts;
  const db = given ?? (await createTestDatabase("rl_envsrv"));
  const dataDir = mkdtempSync(path.join(tmpdir(), "rl-envsrv-"));
  const server = new EnvServer({
    db: db.prisma,
    dataRoots: [path.join(dataDir, "datasets")],
    tokenRequired: false,
    limits: { maxSessions: 64, idleTimeoutMs: 600_000, detachedGraceMs: 60_000 },
    maxMessageBytes: 1024 * 1024,
    journalFile: null,
    log: (line) => log.push(line),
    ...rest,
  });
  const port = await server.listen(0, "127.0.0.1");
  return {
    db,
    server,
    url: `http://127.0.0.1:${port}`,
    dataDir,
    async close() {
      await server.stop();
      if (!given) await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface RawPeer {
  ws: WebSocket;
  send(message: unknown): void;
  /** The next message from the server, parsed. */
  next(): Promise<{ type: string; data: Record<string, unknown> }>;
  request(message: unknown): Promise<{ type: string; data: Record<string, unknown> }>;
  closed: Promise<{ code: number; reason: string }>;
}

export async function openRaw(url: string, protocols: string[] = []): Promise<RawPeer> {
  assertWebSocket();
  const ws = new WebSocket(url.replace(/^http/, "ws"), protocols);
  const inbox: { type: string; data: Record<string, unknown> }[] = [];
  const waiting: ((m: { type: string; data: Record<string, unknown> }) => void)[] = [];
  ws.onmessage = (e) => {
    const m = JSON.parse(String(e.data));
    const w = waiting.shift();
    if (w) w(m);
    else inbox.push(m);
  };
  const closed = new Promise<{ code: number; reason: string }>((r) =>
    ws.addEventListener("close", (e) => r({ code: e.code, reason: e.reason })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error(`WebSocket to ${url} refused`));
  });
  const peer: RawPeer = {
    ws,
    send: (m) => ws.send(typeof m === "string" ? m : JSON.stringify(m)),
    next: () => (inbox.length ? Promise.resolve(inbox.shift()!) : new Promise((r) => waiting.push(r))),
    request: (m) => {
      peer.send(m);
      return peer.next();
    },
    closed,
  };
  return peer;
}

export interface GoldEpisode {
  env: string;
  taskId: string;
  /** Actions in OpenEnv's step data shape. */
  actions: { message: string; tool_calls?: { name: string; arguments: Record<string, unknown> }[] }[];
  /** The reward the environment's own gold test expects for this play (null: unscored offline). */
  expectedReward: number | null;
  maxTurns: number;
}

/**
 * τ²: its gold actions as structured tool calls, then the message its gold test sends (communicate info and NL
 * assertions) — reward 1 (trainer/envs/tau2/tau2.test.ts), or unscored (null) for a task whose reward counts NL
 * assertions, which offline nothing can judge (trainer/envs/tau2/omitted-write.test.ts). Others: the gold demonstration's assistant turns, whose
 * reward the environments' tests state: 1 for bfcl and the UserRL gyms, 1 − 0.25 × (turns − 1) for guess-number.
 */
export async function goldEpisodes(envName: string): Promise<GoldEpisode[]> {
  const env = getEnvironment(envName);
  const tasks = env.builtinTasks();
  if (envName === "tau2-retail") {
    return (tasks as Task<Tau2TaskData>[]).map((t) => ({
      env: envName,
      taskId: t.id,
      actions: [
        ...t.data.actions.map((a) => ({ message: "", tool_calls: [{ name: a.name, arguments: a.arguments }] })),
        { message: `All done. ${[...t.data.communicateInfo, ...t.data.nlAssertions].join(" ")}`.trim() },
      ],
      expectedReward: t.data.rewardBasis.includes("NL_ASSERTION") && t.data.nlAssertions.length > 0 ? null : 1,
      maxTurns: 40,
    }));
  }
  const demos = (await env.demonstrations?.(tasks)) ?? [];
  return demos.map((d) => {
    const actions = d.messages.filter((m) => m.role === "assistant").map((m) => ({ message: m.content }));
    return {
      env: envName,
      taskId: d.taskId!,
      actions,
      expectedReward: envName === "guess-number" ? 1 - 0.25 * (actions.length - 1) : 1,
      maxTurns: 40,
    };
  });
}

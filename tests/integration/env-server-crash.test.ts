/**
 * Durable before acknowledged (issue 38, finding 5): under 64-session load the server process is SIGKILLed; after a
 * restart every episode whose `done` a client received is stored (a trainer has trained on that reward), and every
 * episode a client had started and not seen end is either stored too (it ended just before the kill) or named as
 * lost, by trajectory id, in `lost_at_start` and in a warning on its run.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { serveOptionsFrom, startEnvServer } from "../../trainer/env-server/main";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { assertWebSocket } from "./helpers/env-server";

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase("rl_envcrash");
});
after(() => db?.drop());

interface Ledger {
  /** Trajectory ids whose final observation (done, with its reward) the client received. */
  acknowledged: string[];
  /** Trajectory ids whose opening observation the client received and whose end it never saw. */
  inFlight: Set<string>;
}

/** One client: plays guess-number episodes (guessing 1, 2, 3, … until done) until the connection dies. */
async function playUntilKilled(url: string, client: number, ledger: Ledger): Promise<void> {
  const ws = new WebSocket(url);
  const inbox: { type: string; data: Record<string, unknown> }[] = [];
  let wake: (() => void) | null = null;
  let closed = false;
  ws.onmessage = (e) => {
    inbox.push(JSON.parse(String(e.data)));
    wake?.();
  };
  ws.onclose = () => {
    closed = true;
    wake?.();
  };
  ws.onerror = () => {};
  await new Promise<void>((r) => ws.addEventListener("open", () => r()));
  const request = async (message: unknown) => {
    ws.send(JSON.stringify(message));
    while (!inbox.length && !closed) await new Promise<void>((r) => (wake = r));
    return inbox.shift() ?? null;
  };
  for (let n = 0; !closed; n++) {
    const opened = await request({
      type: "reset",
      data: { task_id: `guess-${1 + ((client + n) % 5)}`, experiment: "crash-load", episode_id: `c${client}-e${n}` },
    });
    if (!opened || opened.type !== "observation") return;
    const id = (opened.data.observation as { trajectory_id: string }).trajectory_id;
    ledger.inFlight.add(id);
    for (let guess = 1; ; guess++) {
      const r = await request({ type: "step", data: { message: String(guess) } });
      if (!r || r.type !== "observation") return;
      if (r.data.done) {
        ledger.inFlight.delete(id);
        ledger.acknowledged.push(id);
        break;
      }
    }
  }
}

test("SIGKILL under 64-session load: 0 acknowledged episodes missing after restart; the in-flight ones named as lost by id", async () => {
  assertWebSocket();
  const dataDir = mkdtempSync(path.join(tmpdir(), "rl-envs-crashload-"));
  try {
    const child = spawn(
      process.execPath,
      [...process.execArgv.filter((a) => !a.startsWith("--test")), "trainer/env-server/main.ts", "--port", "0", "--max-sessions", "128"],
      { env: { ...process.env, DATABASE_URL: db.url, ROLLOUT_LAB_DATA_DIR: dataDir }, stdio: ["ignore", "pipe", "inherit"] },
    );
    const port = await new Promise<number>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /http:\/\/127\.0\.0\.1:(\d+)\/envs/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once("exit", (code) => reject(new Error(`server exited (${code}): ${out}`)));
    });
    const ledger: Ledger = { acknowledged: [], inFlight: new Set() };
    const clients = Array.from({ length: 64 }, (_, i) => playUntilKilled(`ws://127.0.0.1:${port}/envs/guess-number/ws`, i, ledger));
    // Kill mid-load: once a good number of episodes were acknowledged (and PostgreSQL is likely behind).
    const deadline = Date.now() + 60_000;
    while (ledger.acknowledged.length < 300 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGKILL");
    await Promise.all(clients);
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.once("exit", r)));
    assert.ok(ledger.acknowledged.length >= 64, `load was running (${ledger.acknowledged.length} episodes acknowledged)`);

    const restarted = await startEnvServer({ ...serveOptionsFrom({ port: "0" }), dataDir, log: () => {} }, db.url);
    try {
      const stored = new Set(
        (await db.prisma.trajectory.findMany({ where: { run: { name: "crash-load" } }, select: { id: true } })).map((t) => t.id),
      );
      const missing = ledger.acknowledged.filter((id) => !stored.has(id));
      assert.deepEqual(missing, [], `${missing.length} of ${ledger.acknowledged.length} acknowledged episodes are missing`);
      assert.ok(stored.size >= ledger.acknowledged.length, `stored ${stored.size} ≥ acknowledged ${ledger.acknowledged.length}`);

      const health = await (await fetch(`http://127.0.0.1:${restarted.port}/health`)).json();
      const lost = new Set((health.lost_at_start as { trajectoryId?: string }[]).map((l) => l.trajectoryId));
      const unaccounted = [...ledger.inFlight].filter((id) => !stored.has(id) && !lost.has(id));
      assert.deepEqual(unaccounted, [], "every in-flight episode is stored or listed as lost");
      assert.ok(ledger.inFlight.size > 0, "some episodes were in flight at the kill");
      const events = await db.prisma.runEvent.findMany({ where: { run: { name: "crash-load" } } });
      const named = new Set(events.map((e) => (e.data as { trajectoryId?: string } | null)?.trajectoryId));
      for (const id of lost) assert.ok(named.has(id), `lost trajectory ${id} is named on its run`);
      console.log(
        `crash test: ${ledger.acknowledged.length} acknowledged, ${stored.size} stored, ${ledger.inFlight.size} in flight, ${lost.size} listed lost, ${health.replayed_at_start} replayed from the journal`,
      );
    } finally {
      await restarted.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

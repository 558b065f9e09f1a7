/**
 * The default mode under the load a user creates: `npm start` (embedded PostgreSQL, web server, worker) trains two
 * runs while several dashboard clients poll; the worker is SIGKILLed mid-run once. With PGlite behind one socket
 * this mode interleaved protocol messages (runs failed with empty errors, 4% of requests 500, false 404s); here
 * every request must succeed, the crashed worker must be restarted, and both runs must finish with every step
 * recorded exactly once.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPrismaClient } from "../../db/client";
import { localEmbeddedDatabaseUrl } from "../../db/embedded-credentials";
import { insertQueuedRun } from "../../trainer/record/testing/make-run";
import { descendantsOf, freePort, startApp, stopApp, waitFor } from "./helpers/start-app";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "rollout-lab-concurrency-"));
after(() => rmSync(dataDir, { recursive: true, force: true }));

const STEPS = 24;
const runConfig = (seed: number) => ({
  name: `concurrent ${seed}`,
  environment: "guess-number",
  seed,
  grpo: { steps: STEPS, groupsPerStep: 2, groupSize: 4, minibatchSize: 8 },
  rollout: { maxTurns: 4, maxNewTokens: 8 },
  checkpoint: { saveFreq: 4 },
  evaluation: { testFreq: 0 },
});

test(
  "two runs train while dashboard clients poll and the worker is killed once: no errors, nothing lost",
  { timeout: 600_000 },
  async () => {
    const port = await freePort();
    const dbPort = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const app = startApp({
      PORT: String(port),
      EMBEDDED_DB_PORT: String(dbPort),
      ROLLOUT_LAB_DATA_DIR: dataDir,
      START_WORKER: "true",
      SEED_DEMO: "false",
      WORKER_POLL_MS: "300",
    });
    try {
      await waitFor(() => app.output().includes("Rollout Lab is running at"), 240_000, "start", app.output);
      let polling = true;
      const db = createPrismaClient(localEmbeddedDatabaseUrl({ ROLLOUT_LAB_DATA_DIR: dataDir, EMBEDDED_DB_PORT: String(dbPort) })!, 2);
      try {
        const runIds = [await insertQueuedRun(db, runConfig(1)), await insertQueuedRun(db, runConfig(2))];

        // Dashboard clients: what the runs list and run pages poll, six of them each sending a request every ~20 ms
        // (a real page polls every few seconds). Back to back with no pause they would starve the worker of CPU on
        // a 2-core machine, and the test would measure the scheduler instead of the database.
        const failures: string[] = [];
        let requests = 0;
        const trpc = (proc: string, input: unknown) =>
          `${base}/api/trpc/${proc}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
        const urls = (id: string) => [
          trpc("runs.list", {}),
          trpc("runs.get", { id }),
          trpc("runs.metricSeries", { id, keys: ["reward/mean", "loss/policy", "kl", "time/rollout_s"], maxPoints: 200 }),
          trpc("runs.events", { id, limit: 50 }),
          trpc("runs.sparklines", { ids: runIds }),
        ];
        const client = async (k: number) => {
          for (let i = 0; polling; i++) {
            const url = urls(runIds[(k + i) % 2])[i % 5];
            const res = await fetch(url).catch((err: Error) => ({ ok: false, status: 0, text: async () => err.message }));
            requests++;
            if (!res.ok) failures.push(`${res.status} ${url.split("?")[0]}: ${(await res.text()).slice(0, 200)}`);
            await new Promise((r) => setTimeout(r, 20));
          }
        };
        const clients = Array.from({ length: 6 }, (_, k) => client(k));

        // Kill the worker once it is training, mid-run: the start script must restart it and the run must resume.
        await waitFor(
          async () => ((await db.run.findUnique({ where: { id: runIds[0] } }))?.step ?? 0) >= 3,
          180_000,
          "training to start",
          app.output,
        );
        const worker = descendantsOf(app.child.pid!).find((p) => p.cmdline.includes("trainer/main.ts"));
        assert.ok(worker, "the worker process is found");
        process.kill(worker.pid, "SIGKILL");
        await waitFor(
          () => /trainer worker exited unexpectedly \(SIGKILL\); restarting/.test(app.output()),
          30_000,
          "the restart notice",
          app.output,
        );

        await waitFor(
          async () =>
            (await db.run.findMany({ where: { id: { in: runIds } } })).every((r) => r.status === "succeeded" || r.status === "failed"),
          480_000,
          "both runs to finish",
          app.output,
        );
        polling = false;
        await Promise.all(clients);

        assert.deepEqual(failures, [], `every dashboard request succeeded (${requests} requests)`);
        assert.ok(requests > 100, `the clients kept polling (${requests} requests)`);
        for (const id of runIds) {
          const run = await db.run.findUniqueOrThrow({ where: { id } });
          assert.equal(run.status, "succeeded", `run ${id}: ${run.error}`);
          const steps = await db.metricPoint.findMany({
            where: { runId: id, key: "reward/mean" },
            orderBy: { step: "asc" },
            select: { step: true },
          });
          assert.deepEqual(
            steps.map((s) => s.step),
            Array.from({ length: STEPS }, (_, i) => i),
            "every step recorded exactly once",
          );
        }
        const errors = await db.runEvent.findMany({ where: { runId: { in: runIds }, level: "error" } });
        assert.deepEqual(
          errors.map((e) => e.message),
          [],
          "no error events",
        );
        assert.doesNotMatch(app.output(), /bind message supplies|portal "" does not exist|protocol (?:error|violation|synchronization)/i);
      } finally {
        polling = false; // a failed wait must not leave the clients polling (the file would hang until its timeout)
        await db.$disconnect();
      }
    } finally {
      await stopApp(app.child);
    }
  },
);

/**
 * Runs trained elsewhere at their real size, over real HTTP against a running server on the real PostgreSQL: a
 * 1,000-step history in one request, samples upserted by id, fields of newer clients, runs whose client went
 * silent (stale, or failed with the reason), cancel, reattaching by run key or id, and the ingest-only token.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { api, startApiServer, type ApiServer } from "./api-harness";

let server: ApiServer;
before(async () => {
  server = await startApiServer();
});
after(async () => server?.stop());

const KEYS = Array.from({ length: 20 }, (_, k) => (k === 0 ? "reward/mean" : `train/key_${k}`));

function history(steps: number, perStep: number) {
  return {
    steps: Array.from({ length: steps }, (_, step) => ({
      step,
      metrics: Object.fromEntries(KEYS.map((k, i) => [k, i === 0 ? (step % 10) / 10 : step + i / 100])),
    })),
    trajectories: Array.from({ length: steps * perStep }, (_, n) => {
      const step = Math.floor(n / perStep);
      const k = n % perStep;
      return {
        id: `s${step}-k${k}`,
        step,
        group: `prompt-${k % 2}`,
        reward: k % 4 === 3 ? null : (k % 3) / 2,
        conversation: [
          { role: "user", content: `What is ${step} + ${k % 2}?` },
          { role: "assistant", content: `It is ${step + (k % 2)}.` },
        ],
      };
    }),
  };
}

async function createRun(token: string, body: Record<string, unknown> = {}) {
  const res = await api(server.base, token, "POST", "/external-runs", { name: "history", source: "trl", ...body });
  assert.equal(res.status, 201, res.text);
  return res.json as { id: string; resumed: boolean; step: number; status: string };
}

test("a 1,000-step × 20-key history with 16 samples a step is accepted in one request, and the same metrics through /steps", async () => {
  const token = await server.token(["write"], "history");
  const run = await createRun(token);
  const body = history(1000, 16);
  const res = await api(server.base, token, "POST", `/external-runs/${run.id}/batch`, body);
  assert.equal(res.status, 200, res.text.slice(0, 500));
  assert.deepEqual(res.json, { runId: run.id, stored: 16_000, updated: 0, unchanged: 0, skipped: 0, points: 20_000 });
  const db = server.db.prisma;
  assert.equal(await db.metricPoint.count({ where: { runId: run.id } }), 20_000);
  assert.equal(await db.trajectory.count({ where: { runId: run.id } }), 16_000);
  assert.equal(await db.group.count({ where: { runId: run.id } }), 2000, "two prompts a step");
  const status = await api(server.base, token, "GET", `/runs/${run.id}`);
  assert.equal(status.json.step, 1000);
  assert.equal((status.json.latestMetrics as Record<string, { step: number }>)["train/key_19"].step, 999);
  const chart = await api(server.base, token, "GET", `/runs/${run.id}/metrics?keys=train/key_1&maxPoints=100`);
  const series = (chart.json.series as Record<string, { step: number; value: number }[]>)["train/key_1"];
  assert.ok(series.length >= 50 && series.length <= 100, `a downsampled chart of the whole history (${series.length} points)`);
  assert.equal(series.at(-1)!.step, 999);

  // The documented maximum of the metrics route, which failed half way when each point was its own INSERT.
  const other = await createRun(token);
  const steps = await api(server.base, token, "POST", `/external-runs/${other.id}/steps`, { steps: body.steps });
  assert.equal(steps.status, 200, steps.text);
  assert.deepEqual(steps.json, { runId: other.id, points: 20_000 });

  const again = await api(server.base, token, "POST", `/external-runs/${run.id}/batch`, body);
  assert.equal(again.status, 200);
  assert.equal(again.json.unchanged, 16_000, "a retried history stores nothing twice");
  assert.equal(await db.trajectory.count({ where: { runId: run.id } }), 16_000);
});

test("a sample re-sent with the same id and new content is updated in place; the response counts stored, updated and unchanged", async () => {
  const token = await server.token(["write"], "upsert");
  const run = await createRun(token);
  const { trajectories } = history(1, 4);
  const first = await api(server.base, token, "POST", `/external-runs/${run.id}/trajectories`, { trajectories });
  assert.deepEqual(first.json, { runId: run.id, stored: 4, updated: 0, unchanged: 0, skipped: 0 });
  const rescored = { ...trajectories[3], reward: 1, reasoning: "judged late" };
  const moved = { ...trajectories[1], group: "prompt-new" };
  const fresh = { ...trajectories[0], id: "s0-k9" };
  const second = await api(server.base, token, "POST", `/external-runs/${run.id}/trajectories`, {
    trajectories: [trajectories[0], moved, trajectories[2], rescored, fresh],
  });
  assert.deepEqual(second.json, { runId: run.id, stored: 1, updated: 2, unchanged: 2, skipped: 2 });
  const db = server.db.prisma;
  assert.equal(await db.trajectory.count({ where: { runId: run.id } }), 5);
  const late = await db.trajectory.findFirstOrThrow({ where: { runId: run.id, reasoning: "judged late" } });
  const detail = await api(server.base, token, "GET", `/runs/${run.id}/trajectories/${late.id}`);
  assert.deepEqual([detail.json.reward, detail.json.status], [1, "ok"], "the late judgement replaced the unscored sample");
  const groups = await db.group.findMany({ where: { runId: run.id }, include: { _count: { select: { trajectories: true } } } });
  assert.deepEqual(
    Object.fromEntries(groups.map((g) => [g.taskId, [g._count.trajectories, g.rewardMean]])),
    { "prompt-0": [3, 1 / 3], "prompt-1": [1, 1], "prompt-new": [1, 0.5] },
    "the moved sample left its group; both groups' statistics follow",
  );
});

test("fields from newer clients are kept or ignored, not refused: OpenAI's reasoning_content and role developer", async () => {
  const token = await server.token(["write"], "newer-client");
  const run = await createRun(token, { clientVersion: "9.9" });
  assert.deepEqual((run as unknown as { ignoredFields: string[] }).ignoredFields, ["clientVersion"]);
  const sample = {
    id: "r1",
    step: 0,
    reward: 1,
    traceUrl: "https://example.invalid/trace/1",
    conversation: [
      { role: "developer", content: "Answer briefly." },
      { role: "user", content: "2+2?" },
      { role: "assistant", content: null, reasoning_content: "2 and 2 make 4.", tool_calls: [] },
      { role: "assistant", content: [{ type: "text", text: "4" }], reasoning_content: "Say it." },
    ],
  };
  const res = await api(server.base, token, "POST", `/external-runs/${run.id}/trajectories`, { trajectories: [sample] });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json.ignoredFields, ["traceUrl"]);
  const stored = await server.db.prisma.trajectory.findFirstOrThrow({ where: { runId: run.id } });
  const conversation = stored.conversation as { role: string; source: string; content: string; reasoning_content?: string }[];
  assert.deepEqual(
    conversation.map((m) => [m.role, m.source, m.content, m.reasoning_content ?? null]),
    [
      ["system", "system", "Answer briefly.", null],
      ["user", "user_simulator", "2+2?", null],
      ["assistant", "policy", "", "2 and 2 make 4."],
      ["assistant", "policy", "4", "Say it."],
    ],
  );
});

test("an external run whose client goes silent becomes stale (shown, filterable, running again with its next data) or failed with the reason", async () => {
  const token = await server.token(["write"], "silent");
  const stale = await createRun(token, { name: "silent trainer", staleAfterSeconds: 1 });
  const failing = await createRun(token, { name: "interrupted import", staleAfterSeconds: 1, onStale: "fail" });
  await api(server.base, token, "POST", `/external-runs/${stale.id}/steps`, { steps: [{ step: 0, metrics: { "reward/mean": 0.1 } }] });
  await new Promise((r) => setTimeout(r, 1600));

  const seen = await api(server.base, token, "GET", `/runs/${stale.id}`);
  assert.equal(seen.json.status, "stale");
  assert.match(String(seen.json.error), /No data from its client for 1 s .*next data .* makes it running again/);
  const listed = await api(server.base, token, "GET", "/runs?status=stale");
  assert.deepEqual(
    (listed.json.items as { id: string }[]).map((r) => r.id),
    [stale.id],
  );
  const failed = await api(server.base, token, "GET", `/runs/${failing.id}`);
  assert.equal(failed.json.status, "failed");
  assert.match(String(failed.json.error), /stopped before finishing/);
  const events = await server.db.prisma.runEvent.findMany({ where: { runId: stale.id } });
  assert.ok(events.some((e) => e.level === "warn" && /^Stale\. No data/.test(e.message)));

  const back = await api(server.base, token, "POST", `/external-runs/${stale.id}/steps`, {
    steps: [{ step: 1, metrics: { "reward/mean": 0.2 } }],
  });
  assert.equal(back.status, 200);
  assert.equal((await api(server.base, token, "GET", `/runs/${stale.id}`)).json.status, "running", "its next data revives it");
  const late = await api(server.base, token, "POST", `/external-runs/${failing.id}/steps`, { steps: [{ step: 0, metrics: { x: 1 } }] });
  assert.equal(late.status, 409);
  assert.match(late.json.error!.message, /already failed; resume it \(POST \/external-runs\/.+\/resume\)/);
});

test("cancel works on an external run (running or stale); its client's further data is refused until it resumes", async () => {
  const token = await server.token(["write"], "cancel-external");
  const run = await createRun(token);
  const cancelled = await api(server.base, token, "POST", `/runs/${run.id}/cancel`);
  assert.equal(cancelled.status, 200, cancelled.text);
  assert.equal(cancelled.json.status, "cancelled");
  const row = await server.db.prisma.run.findUniqueOrThrow({ where: { id: run.id } });
  assert.ok(row.finishedAt, "cancelled at once: no worker to wait for");
  const refused = await api(server.base, token, "POST", `/external-runs/${run.id}/steps`, { steps: [{ step: 0, metrics: { x: 1 } }] });
  assert.equal(refused.status, 409);
  const resumed = await api(server.base, token, "POST", `/external-runs/${run.id}/resume`);
  assert.equal(resumed.status, 200, resumed.text);
  assert.deepEqual([resumed.json.status, resumed.json.resumed], ["running", true]);
  assert.equal(
    (await api(server.base, token, "POST", `/external-runs/${run.id}/steps`, { steps: [{ step: 0, metrics: { x: 1 } }] })).status,
    200,
  );
});

test("a restarted trainer reattaches to its run by its own run key (resume never / allow / must), as wandb.init(id, resume) does", async () => {
  const token = await server.token(["write"], "resume-key");
  const key = `exp-${Date.now()}`;
  const first = await createRun(token, { runKey: key, resume: "allow" });
  assert.deepEqual([first.resumed, first.step], [false, 0]);
  await api(server.base, token, "POST", `/external-runs/${first.id}/steps`, {
    steps: [0, 1, 2].map((step) => ({ step, metrics: { "reward/mean": step / 4 } })),
  });
  const dup = await api(server.base, token, "POST", "/external-runs", { name: "history", source: "trl", runKey: key });
  assert.equal(dup.status, 409);
  assert.match(dup.json.error!.message, new RegExp(`runKey "${key}" is already run ${first.id} \\(running`));
  await api(server.base, token, "POST", `/external-runs/${first.id}/finish`, { status: "failed", error: "OOM at step 3" });

  const again = await createRun(token, { runKey: key, resume: "allow" });
  assert.deepEqual([again.id, again.resumed, again.step, again.status], [first.id, true, 3, "running"]);
  const byKey = await api(server.base, token, "GET", `/external-runs/by-key/${encodeURIComponent(key)}`);
  assert.deepEqual([byKey.json.id, byKey.json.status, byKey.json.error], [first.id, "running", null]);
  const must = await api(server.base, token, "POST", "/external-runs", {
    name: "x",
    source: "trl",
    runKey: `${key}-other`,
    resume: "must",
  });
  assert.equal(must.status, 404);
  const noKey = await api(server.base, token, "POST", "/external-runs", { name: "x", source: "trl", resume: "allow" });
  assert.equal(noKey.status, 400);
  assert.equal(noKey.json.error!.field, "runKey");
});

test("an ingest token writes external runs and nothing else", async () => {
  const token = await server.token(["ingest"], "cluster");
  const run = await createRun(token);
  assert.equal((await api(server.base, token, "POST", `/external-runs/${run.id}/batch`, history(2, 2))).status, 200);
  assert.equal((await api(server.base, token, "POST", `/external-runs/${run.id}/finish`, {})).status, 200);
  for (const [method, path, body] of [
    ["GET", "/runs", undefined],
    ["GET", `/runs/${run.id}/trajectories`, undefined],
    ["POST", "/runs", { config: { name: "x" } }],
    ["POST", `/runs/${run.id}/cancel`, undefined],
  ] as const) {
    const res = await api(server.base, token, method, path, body);
    assert.equal(res.status, 403, `${method} ${path}`);
    assert.match(res.json.error!.message, /scopes \[ingest\]/);
  }
});

/**
 * Evaluation runs end to end on the real PostgreSQL: created through the API's validation (tRPC caller), claimed and
 * played by the real trainer worker against the loopback fake OpenAI server, recorded like a training run (policy
 * calls as LlmCall rows of role "policy"), scored per task, listed on the environment's leaderboard beside a
 * checkpoint's evaluation, exported, and stopped cleanly at the cost ceiling.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { TRPCError } from "@trpc/server";
import { main } from "../../cli/main";
import { EXIT } from "../../cli/exit-codes";
import { createToken } from "../../server/services/tokens";
import { createCaller } from "../../server/api/root";
import { createTrpcContext } from "../../server/api/trpc";
import { exportRunJsonl } from "../../server/services/export";
import { getEnvironment } from "../../trainer/envs/registry";
import { startFakeLlmServer, type FakeChatRequest, type FakeLlmServer, type FakeReply } from "../../trainer/llm/fake-server/server";
import { createRealExecutor } from "../../trainer/loop/real/execute-run";
import { goldReplier, recordGoldTranscripts } from "../../trainer/eval/testing/gold-replier";
import { TrainerWorker } from "../../trainer/worker/worker";
import { runOneRescoring } from "../../trainer/rescore/loop";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { serveRest } from "./helpers/rest-server";

let db: TestDatabase;
let caller: ReturnType<typeof createCaller>;
let fake: FakeLlmServer;
const dataDir = mkdtempSync(path.join(tmpdir(), "rl-eval-"));

before(async () => {
  process.env.ROLLOUT_LAB_BACKEND ??= "cpu";
  db = await createTestDatabase("rl_eval");
  caller = createCaller(createTrpcContext(db.prisma));
  const env = getEnvironment("tau2-retail", {});
  const tasks = env.builtinTasks().slice(0, 3);
  fake = await startFakeLlmServer({ reply: goldReplier(await recordGoldTranscripts(env, tasks, 30)) });
});
after(async () => {
  await fake?.close();
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const work = () => new TrainerWorker({ db: db.prisma, executeRun: createRealExecutor(dataDir), log: () => {} }).runOnce();

const tau2Eval = (extra: Record<string, unknown> = {}) => ({
  name: "gpt-on-tau2",
  environment: "tau2-retail",
  rollout: { maxTurns: 30 },
  policy: { endpoint: { baseUrl: fake.url, model: "fake-model" } },
  eval: { k: 2, maxTasks: 3 },
  ...extra,
});

async function badRequest(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof TRPCError, `refused: ${String(err)}`);
  assert.equal(err.code, "BAD_REQUEST");
  return err.message;
}

test("an endpoint evaluation is created, played by the worker and scored per task as τ² reports it", { timeout: 300_000 }, async () => {
  const created = await caller.runActions.create({ config: tau2Eval() });
  assert.ok(await work());
  const run = await db.prisma.run.findUniqueOrThrow({ where: { id: created.id } });
  assert.equal(run.status, "succeeded", run.error ?? "");
  assert.equal(run.totalSteps, 3, "one step per task");
  assert.equal(run.step, 3);
  assert.equal(run.policyModel, `fake-model @ ${new URL(fake.url).host}`);
  assert.match(run.backend ?? "", /endpoint fake-model/);

  const view = await caller.evaluations.get({ runId: created.id });
  assert.equal(view.isEvaluation, true);
  assert.equal(view.policyKind, "endpoint");
  assert.equal(view.summary.tasks, 3);
  assert.equal(view.summary.passHat[1], 1);
  assert.equal(view.summary.passHat[2], 1);
  assert.deepEqual(
    view.summary.perTask.map((t) => [t.trials, t.successes]),
    [
      [2, 2],
      [2, 2],
      [2, 2],
    ],
  );

  // The policy's own calls are stored (a new role the database accepts) and shown with the trajectory.
  const policyCalls = await db.prisma.llmCall.count({ where: { runId: created.id, role: "policy" } });
  assert.ok(policyCalls >= 6, `${policyCalls} policy calls`);
  const first = await db.prisma.trajectory.findFirstOrThrow({ where: { runId: created.id }, select: { id: true } });
  const shown = await caller.trajectories.get({ runId: created.id, id: first.id });
  const call = shown.llmCalls.find((c) => c.role === "policy")!;
  assert.ok(call.request.tools?.length, "the request's tools are recorded");
  const message = (shown.conversation as { source: string; llmCallIds?: string[] }[]).find((m) => m.source === "policy")!;
  assert.ok(message.llmCallIds?.includes(call.id) || shown.llmCalls.some((c) => message.llmCallIds?.includes(c.id)));

  // Metrics for CI and the charts; the status CI polls has them.
  const status = await caller.runActions.status({ id: created.id });
  assert.equal(status.latestMetrics["eval/pass@1"]?.value, 1);
  assert.equal(status.latestMetrics["eval/pass^2"]?.value, 1);

  // Export carries the policy calls; signals read an evaluation's trajectories.
  const lines: string[] = [];
  for await (const line of exportRunJsonl(db.prisma, { runId: created.id })) lines.push(line);
  assert.equal(lines.length, 6);
  const record = JSON.parse(lines[0]) as {
    gpt_call_history: { metadata: { type: string } }[];
    conversation_history: { role: string; content: string }[];
  };
  assert.ok(
    record.gpt_call_history.some((c) => c.metadata.type === "agent_response"),
    "the policy's calls are exported",
  );
  assert.ok(
    record.conversation_history.some((m) => m.role === "assistant" && /<tool_call>/.test(m.content)),
    "calls made as data are exported with the turn",
  );
  const signals = await caller.signals.warnings({ runId: created.id });
  assert.ok(signals.trajectoriesAnalysed >= 6);
  // Its groups never vary (every trial succeeds), and that is no "cannot learn" problem: it trains nothing.
  assert.deepEqual((await caller.signals.health({ runId: created.id })).problems, []);

  // Re-judging an evaluation's trajectories with another judge works as on a training run's.
  const rescoring = await caller.rescoring.create({ runId: created.id, selection: {}, scorer: { kind: "judge" } });
  assert.equal(await runOneRescoring(db.prisma, "test-worker"), true);
  const rejudged = await caller.rescoring.get({ runId: created.id, rescoringId: rescoring.id });
  assert.equal(rejudged.job.status, "succeeded", rejudged.job.error ?? "");
  assert.equal(rejudged.job.total, 6);
});

test(
  "unscored trials say why: τ²'s natural-language assertions cannot be scored offline, which is no endpoint failure",
  { timeout: 300_000 },
  async () => {
    // τ² retail's built-in lamp question counts an NL assertion besides DB and COMMUNICATE: a model that answers it
    // right passes both, and offline nothing can read the assertion.
    const answerer = await startFakeLlmServer({ reply: () => ({ content: "We have 3 desk lamp options; the cheapest costs $41.25." }) });
    try {
      const created = await caller.runActions.create({
        config: tau2Eval({
          name: "lamp question",
          policy: { endpoint: { baseUrl: answerer.url, model: "answerer" } },
          eval: { k: 2, tasks: ["tau2-builtin-hg_lamp_options_info"] },
        }),
      });
      assert.ok(await work());
      const run = await db.prisma.run.findUniqueOrThrow({ where: { id: created.id } });
      assert.equal(run.status, "succeeded", run.error ?? "");
      const view = await caller.evaluations.get({ runId: created.id });
      assert.equal(view.summary.unscored, 2);
      assert.deepEqual(view.summary.unscoredCauses, { needs_judge_endpoint: 2 });
    } finally {
      await answerer.close();
    }
  },
);

test("config mistakes are refused at creation with the field named", async () => {
  assert.match(
    await badRequest(
      caller.runActions.create({ config: { environment: "tau2-retail", policy: { endpoint: { baseUrl: fake.url, model: "m" } } } }),
    ),
    /policy\.endpoint.*eval/,
  );
  assert.match(
    await badRequest(
      caller.runActions.create({
        config: tau2Eval({ policy: { endpoint: { baseUrl: fake.url, model: "m", apiKeyEnv: "DATABASE_URL" } } }),
      }),
    ),
    /policy\.endpoint\.apiKeyEnv/,
  );
  assert.match(
    await badRequest(caller.runActions.create({ config: tau2Eval({ eval: { k: 2, maxCostUsd: 1 } }) })),
    /eval\.maxCostUsd.*price/,
  );
  assert.match(
    await badRequest(caller.runActions.create({ config: { ...tau2Eval(), policy: { checkpoint: { runId: "no-such-run" } } } })),
    /no-such-run/,
  );
});

test("the cost ceiling stops an evaluation cleanly: cancelled, with the reason, finished tasks kept", { timeout: 300_000 }, async () => {
  const created = await caller.runActions.create({
    config: tau2Eval({
      name: "ceiling",
      policy: { endpoint: { baseUrl: fake.url, model: "fake-model", price: { inputPerMTok: 1000, outputPerMTok: 1000 } } },
      eval: { k: 1, maxTasks: 3, maxCostUsd: 1, concurrency: 1 },
    }),
  });
  const billedUsd = () => (fake.stats.billed.promptTokens + fake.stats.billed.completionTokens) / 1000; // $1,000 per M tokens
  const before = billedUsd();
  assert.ok(await work());
  const billed = billedUsd() - before;
  const run = await db.prisma.run.findUniqueOrThrow({ where: { id: created.id } });
  assert.equal(run.status, "cancelled");
  assert.match(run.error ?? "", /cost ceiling.*eval\.maxCostUsd is \$1/);
  assert.ok(run.step < 3, `${run.step} of 3 tasks`);
  const events = await db.prisma.runEvent.findMany({ where: { runId: created.id, level: "warn" } });
  assert.ok(events.some((e) => /cost ceiling/.test(e.message)));
  // Every call the endpoint billed is stored and costed, those of the task cut short too (without a trajectory), and
  // the stop reason, the stored calls and the scores' cost all say what was billed.
  const stored = await db.prisma.llmCall.aggregate({ where: { runId: created.id }, _sum: { costUsd: true }, _count: true });
  assert.ok(Math.abs((stored._sum.costUsd ?? 0) - billed) < 1e-9, `stored $${stored._sum.costUsd} vs billed $${billed}`);
  assert.ok((await db.prisma.llmCall.count({ where: { runId: created.id, trajectoryId: null } })) > 0, "the cut task's calls are kept");
  assert.ok(run.error?.includes(`$${billed.toFixed(4)}`), `${run.error} vs billed $${billed.toFixed(4)}`);
  const view = await caller.evaluations.get({ runId: created.id });
  assert.ok(Math.abs(view.summary.costUsd - billed) < 1e-9, `summary $${view.summary.costUsd} vs billed $${billed}`);
});

test(
  "a training run's checkpoint is evaluated on the same footing and sits beside the gold replay on the environment's page",
  { timeout: 300_000 },
  async () => {
    const trained = await caller.runActions.create({
      config: {
        name: "tiny guesser",
        environment: "guess-number",
        policy: { model: "tiny", contextLength: 128 },
        rollout: { maxTurns: 3, maxNewTokens: 4 },
        grpo: { steps: 1, groupsPerStep: 1, groupSize: 2, minibatchSize: 2 },
        evaluation: { testFreq: 0 },
        checkpoint: { saveFreq: 1 },
      },
    });
    assert.ok(await work());
    assert.equal((await db.prisma.run.findUniqueOrThrow({ where: { id: trained.id } })).status, "succeeded");

    const fromCheckpoint = await caller.evaluations.evaluateCheckpoint({ runId: trained.id, k: 2, maxTasks: 3 });
    const gold = await caller.runActions.create({
      config: {
        name: "gold",
        environment: "guess-number",
        rollout: { maxTurns: 3 },
        policy: { scripted: "gold" },
        eval: { k: 2, maxTasks: 3 },
      },
    });
    assert.ok(await work());
    assert.ok(await work());
    for (const id of [fromCheckpoint.id, gold.id]) {
      const run = await db.prisma.run.findUniqueOrThrow({ where: { id } });
      assert.equal(run.status, "succeeded", run.error ?? "");
    }
    const stored = (await db.prisma.run.findUniqueOrThrow({ where: { id: fromCheckpoint.id } })).config as {
      policy: { checkpoint: { step: number } };
    };
    assert.equal(stored.policy.checkpoint.step, 1, "'latest' is pinned to the checkpoint that existed");

    const page = await caller.evaluations.environment({ name: "guess-number" });
    const board = page.leaderboards.find((b) => b.entries.some((e) => e.runId === gold.id))!;
    assert.ok(
      board.entries.some((e) => e.runId === fromCheckpoint.id),
      "same task set and k: one leaderboard",
    );
    const goldEntry = board.entries.find((e) => e.runId === gold.id)!;
    assert.equal(goldEntry.policyKind, "scripted");
    assert.equal(board.entries[0].runId, gold.id, "best pass@1 first");
    assert.equal(board.entries.find((e) => e.runId === fromCheckpoint.id)!.policyKind, "checkpoint");

    const overlay = await caller.evaluations.compare({ runIds: [gold.id, fromCheckpoint.id] });
    assert.equal(overlay.runs.length, 2);
    assert.equal(overlay.tasks.length, 3);
    assert.ok(overlay.tasks.every((t) => t.cells.every((c) => c !== null && c.trials === 2)));
  },
);

test(
  "leaderboards compare runs on the same tasks and k; a run cut short at the ceiling sits apart with its coverage, below complete runs",
  { timeout: 300_000 },
  async () => {
    const searcher = await startFakeLlmServer({ reply: binarySearch });
    const alwaysOne = await startFakeLlmServer({ reply: () => ({ content: "1" }) });
    // guess-number's built-in tasks are all in split "train": the default evalSplit "test" has none of them.
    const guess = (name: string, endpoint: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      name,
      environment: "guess-number",
      rollout: { maxTurns: 4 },
      policy: { endpoint },
      eval: { k: 1, maxTasks: 5, concurrency: 1, ...extra },
    });
    try {
      // Binary search solves every game it plays, but its $ ceiling stops it after a task or two: pass@1 = 1 on those.
      const partial = await caller.runActions.create({
        config: guess(
          "bisect, capped",
          { baseUrl: searcher.url, model: "bisect", price: { inputPerMTok: 10_000, outputPerMTok: 10_000 } },
          { maxCostUsd: 0.3 },
        ),
      });
      // A weak model plays all five tasks (it solves only secret 1): pass@1 = 0.2, complete.
      const complete = await caller.runActions.create({ config: guess("always one", { baseUrl: alwaysOne.url, model: "one" }) });
      assert.ok(await work());
      assert.ok(await work());
      const cut = await db.prisma.run.findUniqueOrThrow({ where: { id: partial.id } });
      assert.equal(cut.status, "cancelled", cut.error ?? "");
      assert.ok(cut.step >= 1 && cut.step < 5, `stopped after ${cut.step} of 5 tasks`);
      assert.equal((await db.prisma.run.findUniqueOrThrow({ where: { id: complete.id } })).status, "succeeded");

      const page = await caller.evaluations.environment({ name: "guess-number" });
      const board = page.leaderboards.find((b) => b.entries.some((e) => e.runId === complete.id))!;
      assert.ok(board, "the complete run is ranked");
      assert.deepEqual(
        board.entries.map((e) => e.runId),
        [complete.id],
        "only complete runs are ranked",
      );
      const apart = board.partial.find((e) => e.runId === partial.id);
      assert.ok(apart, "the capped run is on the same board (same tasks, same k), apart");
      assert.equal(apart.passAt1, 1);
      assert.deepEqual(apart.coverage, { evaluated: cut.step, selected: 5 });
      assert.equal(apart.complete, false);
      assert.equal(board.entries[0].passAt1, 0.2);
      // The label says what was selected: no task is in split "test".
      assert.doesNotMatch(board.label, /tasks of split "test"/);
      assert.match(board.label, /first 5 of 8 tasks \(none is in split "test"\)/);
      const view = await caller.evaluations.get({ runId: complete.id });
      assert.equal(view.taskSet?.label, board.label, "the run page says the same");
    } finally {
      await searcher.close();
      await alwaysOne.close();
    }
  },
);

/** A model that plays guess-number by binary search, reading the game's "higher than g" / "lower than g" replies. */
function binarySearch(req: FakeChatRequest): FakeReply {
  const max = Number(/Guess 1-(\d+)/.exec(req.messages.map((m) => m.content ?? "").join("\n"))?.[1] ?? 8);
  let [lo, hi] = [1, max];
  for (const m of req.messages) {
    const hint = /^(higher|lower) than (\d+)/.exec(m.role === "user" ? (m.content ?? "") : "");
    if (hint?.[1] === "higher") lo = Number(hint[2]) + 1;
    if (hint?.[1] === "lower") hi = Number(hint[2]) - 1;
  }
  return { content: String(Math.floor((lo + hi) / 2)) };
}

test("rollout-lab eval: creates the run, waits, prints the scores and exits as runs create --wait does", { timeout: 300_000 }, async () => {
  const api = await serveRest(db.prisma);
  const { token } = await createToken(db.prisma, { name: "ci", scopes: ["read", "write"] });
  const worker = new TrainerWorker({ db: db.prisma, executeRun: createRealExecutor(dataDir), log: () => {}, pollMs: 100 });
  const working = worker.start();
  const run = async (args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main([...args, "--url", api.url, "--token", token, "--interval", "0.1"], {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    });
    return { code, out: out.join("\n"), err: err.join("\n") };
  };
  try {
    const ok = await run([
      "eval",
      "--env",
      "tau2-retail",
      "--base-url",
      fake.url,
      "--model",
      "fake-model",
      "--k",
      "2",
      "--max-tasks",
      "2",
      "--min-pass",
      "0.9",
    ]);
    assert.equal(ok.code, EXIT.OK, ok.err);
    assert.match(ok.out, /pass\^1 1\.000 {2}pass\^2 1\.000/);
    assert.match(ok.out, /tau2-builtin-\S+\t2\t2\t1\.000/);

    // An API model playing binary search solves every secret: guess-number's success is "solved", so pass@1 = 1
    // although the turn penalty leaves most rewards below 1 (mean 0.59375).
    const searcher = await startFakeLlmServer({ reply: binarySearch });
    try {
      const solved = await run([
        "eval",
        "--env",
        "guess-number",
        "--base-url",
        searcher.url,
        "--model",
        "bisect",
        "--k",
        "2",
        "--min-pass",
        "1",
      ]);
      assert.equal(solved.code, EXIT.OK, solved.err);
      assert.match(solved.out, /pass\^1 1\.000 {2}pass\^2 1\.000/);
      assert.match(solved.out, /success: the secret was guessed/);
      assert.match(solved.out, /mean reward 0\.594/);
    } finally {
      await searcher.close();
    }
    // --metric reads another figure: the mean reward is below a 0.9 bar.
    const missed = await run(["eval", "--env", "guess-number", "--gold", "--k", "1", "--metric", "eval/reward_mean", "--min-pass", "0.9"]);
    assert.equal(missed.code, EXIT.THRESHOLD_MISSED, missed.err);
    assert.match(missed.err, /eval\/reward_mean 0\.5938 is below --min-pass 0\.9/);

    // An endpoint that only ever answers 500: every trial fails on infrastructure, so the run fails (exit 5) and says why.
    const broken = await startFakeLlmServer({ faults: { rate: 1, kinds: ["server_error"] } });
    try {
      const failed = await run([
        "eval",
        "--env",
        "guess-number",
        "--base-url",
        broken.url,
        "--model",
        "down",
        "--k",
        "1",
        "--max-tasks",
        "2",
      ]);
      assert.equal(failed.code, EXIT.RUN_FAILED, failed.err);
      assert.match(failed.err, /failed: All 2 trial\(s\) failed on infrastructure, so nothing was scored: the episode failed/);
    } finally {
      await broken.close();
    }

    const usage = await run(["eval", "--env", "guess-number", "--gold", "--model", "m"]);
    assert.equal(usage.code, EXIT.USAGE);
    const refused = await run(["eval", "--env", "tau2-retail", "--base-url", fake.url, "--model", "m", "--api-key-env", "PGPASSWORD"]);
    assert.equal(refused.code, EXIT.BAD_CONFIG, refused.err);
    assert.match(refused.err, /policy\.endpoint\.apiKeyEnv/);
  } finally {
    worker.stop();
    await working;
    await api.close();
  }
});

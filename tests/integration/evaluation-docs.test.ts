/**
 * Every command docs/evaluation.md documents, run as written against the real PostgreSQL, the REST handler and the
 * real worker: the `rollout-lab eval` lines of its command-line block (read from the page itself, so an example that
 * stops working fails here), `npm run db:seed -- --eval`, the checkpoint's `POST /api/v1/runs/{id}/evaluations` and
 * the YAML config. The page's own placeholders are replaced: api.openai.com by the loopback fake server (tests send
 * traffic only to 127.0.0.1) and `RUN_ID:40` by a checkpoint that exists.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { main } from "../../cli/main";
import { EXIT } from "../../cli/exit-codes";
import { parseRunConfig } from "../../lib/run-config";
import { createCaller } from "../../server/api/root";
import { responseSchema } from "../../server/rest/responses";
import { createTrpcContext } from "../../server/api/trpc";
import { createToken } from "../../server/services/tokens";
import { getEnvironment } from "../../trainer/envs/registry";
import { goldReplier, recordGoldTranscripts } from "../../trainer/eval/testing/gold-replier";
import { startFakeLlmServer, type FakeLlmServer } from "../../trainer/llm/fake-server/server";
import { createRealExecutor } from "../../trainer/loop/real/execute-run";
import { TrainerWorker } from "../../trainer/worker/worker";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { serveRest } from "./helpers/rest-server";

const REPO = path.resolve(import.meta.dirname, "../..");
const PAGE = readFileSync(path.join(REPO, "docs/evaluation.md"), "utf8");

let db: TestDatabase;
let fake: FakeLlmServer;
let api: Awaited<ReturnType<typeof serveRest>>;
let token: string;
const dataDir = mkdtempSync(path.join(tmpdir(), "rl-eval-docs-"));

before(async () => {
  process.env.ROLLOUT_LAB_BACKEND ??= "cpu";
  // The page's example reads the key from OPENAI_API_KEY on the worker host.
  process.env.OPENAI_API_KEY = "sk-docs-example-not-a-real-key";
  db = await createTestDatabase("rl_evaldocs");
  const env = getEnvironment("tau2-retail", {});
  const solvable = env.builtinTasks().filter((t) => !(t.data as { nlAssertions?: string[] }).nlAssertions?.length);
  fake = await startFakeLlmServer({ reply: goldReplier(await recordGoldTranscripts(env, solvable, 30)) });
  api = await serveRest(db.prisma);
  ({ token } = await createToken(db.prisma, { name: "docs", scopes: ["read", "write"] }));
});
after(async () => {
  await api?.close();
  await fake?.close();
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const work = () => new TrainerWorker({ db: db.prisma, executeRun: createRealExecutor(dataDir), log: () => {} }).runOnce();

/** The commands of a fenced block of the page (continuation lines joined, comments dropped). */
function commandsOf(lang: string): string[] {
  const blocks = [...PAGE.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]);
  return blocks
    .flatMap((b) => b.replace(/\\\n\s*/g, " ").split("\n"))
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
}

/** A documented `npx rollout-lab …` line, run through the CLI's main() while a worker plays what it queues. */
async function runCli(line: string, substitutions: [string, string][]) {
  let text = line;
  for (const [from, to] of substitutions) text = text.replaceAll(from, to);
  const args = text.split(/\s+/);
  assert.deepEqual(args.slice(0, 2), ["npx", "rollout-lab"], line);
  const out: string[] = [];
  const err: string[] = [];
  const worker = new TrainerWorker({ db: db.prisma, executeRun: createRealExecutor(dataDir), log: () => {}, pollMs: 100 });
  const working = worker.start();
  try {
    const code = await main([...args.slice(2), "--url", api.url, "--token", token, "--interval", "0.1"], {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    });
    return { code, out: out.join("\n"), err: err.join("\n") };
  } finally {
    worker.stop();
    await working;
  }
}

/** A tiny trained guess-number run with a checkpoint, for the page's `--checkpoint RUN_ID:40` and its POST. */
async function trainedRun(): Promise<{ id: string; step: number }> {
  const caller = createCaller(createTrpcContext(db.prisma));
  const run = await caller.runActions.create({
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
  const checkpoint = await db.prisma.checkpoint.findFirstOrThrow({ where: { runId: run.id }, orderBy: { step: "desc" } });
  return { id: run.id, step: checkpoint.step };
}

test(
  "the page's rollout-lab eval commands run as written (an API model with --max-cost and prices, the gold replay, a checkpoint)",
  { timeout: 600_000 },
  async () => {
    const lines = commandsOf("bash");
    assert.equal(lines.length, 3, `the page's command-line block: ${JSON.stringify(lines)}`);
    const trained = await trainedRun();
    const subs: [string, string][] = [
      ["https://api.openai.com/v1", fake.url],
      ["RUN_ID:40", `${trained.id}:${trained.step}`],
    ];

    const [apiModel, gold, checkpoint] = lines;
    assert.match(apiModel, /--max-cost 5/);
    const priced = await runCli(apiModel, subs);
    assert.equal(priced.code, EXIT.OK, priced.err);
    // Four tasks replayed right; the lamp question has no gold actions to replay, so the fake model answers nothing
    // useful there (reward 0): pass@1 0.8, above the page's --min-pass 0.6.
    assert.match(priced.out, /pass\^1 0\.800/, priced.out);
    const runId = priced.out.split("\n")[0];
    const stored = (await db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).config as {
      policy: { endpoint: { price: unknown; apiKeyEnv: string } };
    };
    assert.deepEqual(stored.policy.endpoint.price, { inputPerMTok: 0.4, outputPerMTok: 1.6 });
    assert.equal(stored.policy.endpoint.apiKeyEnv, "OPENAI_API_KEY");
    const cost = await db.prisma.llmCall.aggregate({ where: { runId }, _sum: { costUsd: true } });
    assert.ok((cost._sum.costUsd ?? 0) > 0, "the calls are costed at the given prices");

    const replay = await runCli(gold, subs);
    assert.equal(replay.code, EXIT.OK, replay.err);
    assert.match(replay.out, /gold actions replayed/);

    const fromCheckpoint = await runCli(checkpoint, subs);
    assert.equal(fromCheckpoint.code, EXIT.OK, fromCheckpoint.err);
    assert.match(fromCheckpoint.out, /pass\^8/, "k = 8 trials per task");

    // Without the prices the same ceiling is refused before anything is created, and says what to add.
    const unpriced = await runCli(apiModel.replace("--price-in 0.4 --price-out 1.6 ", ""), subs);
    assert.equal(unpriced.code, EXIT.USAGE, unpriced.err);
    assert.match(unpriced.err, /--max-cost needs .*--price-in and --price-out/);
  },
);

test("the page's demo command, checkpoint POST and YAML config work as documented", { timeout: 600_000 }, async () => {
  // npm run db:seed -- --eval: the demo evaluation, gold actions replayed, pass@1 = 1.
  assert.match(PAGE, /npm run db:seed -- --eval/);
  const seeded = spawnSync("npm", ["run", "--silent", "db:seed", "--", "--eval"], {
    cwd: REPO,
    env: { ...process.env, DATABASE_URL: db.url },
    encoding: "utf8",
    timeout: 180_000,
  });
  assert.equal(seeded.status, 0, seeded.stderr);
  assert.match(seeded.stdout, /Queued the demo evaluation (\S+)/);
  const demoId = /Queued the demo evaluation (\S+)/.exec(seeded.stdout)![1];
  assert.ok(await work());
  const demo = await db.prisma.run.findUniqueOrThrow({ where: { id: demoId } });
  assert.equal(demo.status, "succeeded", demo.error ?? "");
  const caller = createCaller(createTrpcContext(db.prisma));
  assert.equal((await caller.evaluations.get({ runId: demoId })).summary.passHat[1], 1);

  // POST /api/v1/runs/{id}/evaluations {"step": 40, "k": 4} — at a step the run has.
  const documented = /`POST \/api\/v1\/runs\/\{id\}\/evaluations (\{[^`]*\})`/.exec(PAGE);
  assert.ok(documented, "the page documents the POST");
  const trained = await trainedRun();
  const body = { ...(JSON.parse(documented[1]) as { step: number; k: number }), step: trained.step };
  const res = await fetch(`${api.url}/api/v1/runs/${trained.id}/evaluations`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 201, await res.clone().text());
  const { id } = (await res.json()) as { id: string };
  assert.ok(await work());
  const evaluated = await db.prisma.run.findUniqueOrThrow({ where: { id } });
  assert.equal(evaluated.status, "succeeded", evaluated.error ?? "");
  assert.equal((await caller.evaluations.get({ runId: id })).k, 4);
  // The page's reads answer, with the bodies the OpenAPI document declares (strict objects: new fields declared).
  const reads: [string, string][] = [
    [`/runs/${id}/evaluation`, "evaluations.get"],
    ["/environments/guess-number/evaluations", "evaluations.environment"],
    [`/runs/${id}`, "runActions.status"],
  ];
  for (const [read, procedure] of reads) {
    const got = await fetch(`${api.url}/api/v1${read}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(got.status, 200, read);
    const parsed = responseSchema(procedure).safeParse(await got.json());
    assert.ok(parsed.success, `${read}: ${parsed.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  }

  // The config block parses as a run config (an evaluation of τ² retail with a priced endpoint and a ceiling).
  const [yaml] = [...PAGE.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
  const config = parseRunConfig(parseYaml(yaml));
  assert.equal(config.eval?.maxCostUsd, 5);
  assert.deepEqual(config.policy.endpoint?.price, { inputPerMTok: 0.4, outputPerMTok: 1.6 });
});

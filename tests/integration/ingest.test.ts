/**
 * Runs trained elsewhere, over real HTTP against a running server on the real PostgreSQL: the ingest API (create,
 * steps, samples, finish), retries that never duplicate, bounded and validated input, external runs that workers
 * never claim and the lifecycle refuses (cancel aside: ingest-history.test.ts), the CLI importers. The logging clients
 * are in logging-clients.test.ts.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { api, startApiServer, type ApiServer } from "./api-harness";
import { main } from "../../cli/main";
import { externalTrajectoryId } from "../../server/services/ingest-samples";
import { claimNextRun } from "../../trainer/worker/lease";
import { createRescoring } from "../../server/services/rescoring";
import { executeRescoring } from "../../trainer/rescore/execute";
import { claimNextRescoring } from "../../trainer/rescore/queue";

let server: ApiServer;
before(async () => {
  server = await startApiServer();
});
after(async () => server?.stop());

const sample = (id: string, step: number, group: string, reward: number | null, extra: Record<string, unknown> = {}) => ({
  id,
  step,
  group,
  conversation: [
    { role: "user", content: `question ${group}` },
    { role: "assistant", content: `answer ${id}` },
  ],
  reward,
  ...extra,
});

async function createExternal(token: string, body: Record<string, unknown> = {}) {
  const res = await api(server.base, token, "POST", "/external-runs", {
    name: "verl qwen-7b",
    source: "verl",
    policyModel: "Qwen2.5-7B",
    config: { lr: 1e-6 },
    ...body,
  });
  assert.equal(res.status, 201, res.text);
  return res.json.id as string;
}

test("an external run gets steps and samples; retried batches never duplicate; groups and curves are what the pages read", async () => {
  const token = await server.token(["write", "read"], "verl-cluster");
  const id = await createExternal(token);
  const steps = { steps: [0, 1, 2].map((step) => ({ step, metrics: { "reward/mean": 0.2 * step, "kl/mean": 0.01 } })) };
  assert.equal((await api(server.base, token, "POST", `/external-runs/${id}/steps`, steps)).status, 200);
  assert.equal(
    (await api(server.base, token, "POST", `/external-runs/${id}/steps`, steps)).status,
    200,
    "a retry of the same steps is fine",
  );

  const batch = {
    trajectories: [
      sample("s2-a-0", 2, "a", 1, {
        rewardComponents: { correct: 1 },
        reasoning: "matches the reference",
        llmCalls: [
          { role: "policy", model: "qwen-7b-ft", messages: [{ role: "user", content: "solve it" }], response: "42", latencyMs: 95 },
          { role: "judge", model: "gpt-4.1", messages: [{ role: "user", content: "score it" }], response: '{"score": 1}', latencyMs: 812 },
        ],
      }),
      sample("s2-a-1", 2, "a", 0),
      sample("s2-b-0", 2, "b", null),
    ],
  };
  const first = await api(server.base, token, "POST", `/external-runs/${id}/trajectories`, batch);
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(first.json, { runId: id, stored: 3, updated: 0, unchanged: 0, skipped: 0 });
  const retry = await api(server.base, token, "POST", `/external-runs/${id}/trajectories`, batch);
  assert.deepEqual(
    retry.json,
    { runId: id, stored: 0, updated: 0, unchanged: 3, skipped: 3 },
    "the retried batch is recognised by the samples' ids",
  );

  const db = server.db.prisma;
  assert.equal(await db.trajectory.count({ where: { runId: id } }), 3);
  assert.equal(await db.metricPoint.count({ where: { runId: id } }), 6);
  const groups = await db.group.findMany({ where: { runId: id }, orderBy: { indexInStep: "asc" } });
  assert.deepEqual(
    groups.map((g) => [g.taskId, g.rewardMean, g.rewardStd]),
    [
      ["a", 0.5, 0.5],
      ["b", null, null],
    ],
  );
  const run = await db.run.findUniqueOrThrow({ where: { id } });
  assert.equal(run.source, "verl");
  assert.equal(run.step, 3);
  assert.equal(run.latestReward, 0.4);

  const list = await api(server.base, token, "GET", `/runs/${id}/trajectories`);
  assert.equal(list.status, 200, list.text);
  const items = list.json.items as { id: string; reward: number | null; status: string }[];
  assert.equal(items.length, 3);
  assert.ok(
    items.some((t) => t.reward === null && t.status === "unscored"),
    "an unscored sample stays unscored, never 0",
  );
  const judged = items.find((t) => t.reward === 1)!;
  const one = await api(server.base, token, "GET", `/runs/${id}/trajectories/${judged.id}`);
  assert.equal(one.json.reasoning, "matches the reference");
  const calls = one.json.llmCalls as { role: string; model: string; latencyMs: number }[];
  assert.deepEqual(
    calls.map((c) => [c.role, c.model, c.latencyMs]),
    [
      ["policy", "qwen-7b-ft", 95],
      ["judge", "gpt-4.1", 812],
    ],
  );

  const finished = await api(server.base, token, "POST", `/external-runs/${id}/finish`, {});
  assert.equal(finished.json.status, "succeeded");
  const late = await api(server.base, token, "POST", `/external-runs/${id}/steps`, steps);
  assert.equal(late.status, 409);
  assert.match(
    late.json.error!.message,
    /already succeeded; resume it \(POST \/external-runs\/.+\/resume\) to send more, or create a new run/,
  );
});

test("bad input is a 400 naming the field; batches are bounded; secrets in the config are refused", async () => {
  const token = await server.token(["write", "read"], "bad-input");
  const id = await createExternal(token);
  const badReward = await api(server.base, token, "POST", `/external-runs/${id}/trajectories`, {
    trajectories: [sample("x", 0, "g", 1), { ...sample("y", 0, "g", 0), reward: "high" }],
  });
  assert.equal(badReward.status, 400);
  assert.match(JSON.stringify(badReward.json.error), /trajectories\.1\.reward/);
  const tooMany = await api(server.base, token, "POST", `/external-runs/${id}/trajectories`, {
    trajectories: Array.from({ length: 201 }, (_, i) => sample(`t${i}`, 0, "g", 1)),
  });
  assert.equal(tooMany.status, 400);
  assert.match(JSON.stringify(tooMany.json.error), /trajectories/);
  const twice = await api(server.base, token, "POST", `/external-runs/${id}/trajectories`, {
    trajectories: [sample("same", 0, "g", 1), sample("same", 0, "g", 0)],
  });
  assert.equal(twice.status, 400);
  assert.match(twice.json.error!.message, /trajectories\.1\.id "same" appears twice/);
  assert.equal(await server.db.prisma.trajectory.count({ where: { runId: id } }), 0, "a refused batch stores nothing");

  const secret = await api(server.base, token, "POST", "/external-runs", {
    name: "leaky",
    source: "trl",
    config: { openai: { apiKey: "sk-live-abcdefghijklmnopqrstuvwx" } },
  });
  assert.equal(secret.status, 400);
  assert.match(secret.json.error!.message, /config\.openai\.apiKey looks like a secret/);
  const unknownSource = await api(server.base, token, "POST", "/external-runs", { name: "x", source: "megatron" });
  assert.equal(unknownSource.status, 400);
  assert.match(JSON.stringify(unknownSource.json.error), /source/);
});

test("workers never claim an external run; resume and clone refuse it; an internal run accepts no ingest", async () => {
  const token = await server.token(["write", "read"], "lifecycle");
  const external = await createExternal(token, { name: "external, running" });
  const internal = await api(server.base, token, "POST", "/runs", { config: { name: "internal", grpo: { steps: 2 } } });
  assert.equal(internal.status, 201, internal.text);
  const internalId = internal.json.id as string;

  for (const action of ["resume", "clone"]) {
    const res = await api(server.base, token, "POST", `/runs/${external}/${action}`, action === "clone" ? {} : undefined);
    assert.equal(res.status, 409, `${action}: ${res.text}`);
    assert.match(res.json.error!.message, /trained by verl and imported/);
  }
  const intoInternal = await api(server.base, token, "POST", `/external-runs/${internalId}/steps`, {
    steps: [{ step: 0, metrics: { x: 1 } }],
  });
  assert.equal(intoInternal.status, 409);
  assert.match(intoInternal.json.error!.message, /trained by Rollout Lab's own workers/);

  const db = server.db.prisma;
  const claimed: string[] = [];
  for (let claim = await claimNextRun(db, "test-worker", 60_000); claim; claim = await claimNextRun(db, "test-worker", 60_000))
    claimed.push(claim.id);
  assert.ok(claimed.includes(internalId), "the queued internal run is claimed");
  assert.ok(!claimed.includes(external), "the external run (running, no lease) is never claimed");
});

test("rollout-lab import verl <folder>: broken records are named by file and line, the rest lands in groups per prompt", async () => {
  const token = await server.token(["write", "read"], "importer");
  const out: string[] = [];
  const err: string[] = [];
  const folder = path.join(import.meta.dirname, "../fixtures/import/verl-rollouts");
  const code = await main(["import", "verl", folder, "--url", server.base, "--token", token, "--tag", "gsm8k"], {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  assert.equal(code, 3, "exit 3: some records could not be read");
  assert.ok(
    err.some((l) => l.startsWith("2.jsonl:3: not valid JSON")),
    err.join("\n"),
  );
  assert.ok(
    err.some((l) => l.startsWith("2.jsonl:6:")),
    err.join("\n"),
  );
  const id = out[0];
  const db = server.db.prisma;
  const run = await db.run.findUniqueOrThrow({ where: { id } });
  assert.equal(run.status, "succeeded");
  assert.deepEqual(run.tags, ["gsm8k"]);
  assert.equal(await db.trajectory.count({ where: { runId: id } }), 8);
  assert.equal(await db.group.count({ where: { runId: id } }), 4, "two prompts in each of two steps");
  assert.deepEqual(
    (await db.metricPoint.findMany({ where: { runId: id, key: "reward/mean" }, orderBy: { step: "asc" } })).map((p) => p.value),
    [0.5, 0.75],
  );

  // Re-judging works on imported samples exactly as on a local run's (here the offline judge; any judge config).
  const job = await createRescoring(db, { runId: id, name: "offline judge", selection: {}, scorer: { kind: "judge" } });
  assert.equal(await claimNextRescoring(db, "rescorer", 60_000), job.id);
  assert.equal(await executeRescoring(db, job.id, { workerId: "rescorer", env: {} }), "succeeded");
  const scores = await db.trajectoryScore.findMany({ where: { rescoringId: job.id } });
  assert.equal(scores.length, 8);
  assert.ok(
    scores.every((s) => s.reasoning && s.reasoning.length > 0),
    "every re-judged sample has the judge's reasoning",
  );
  // The reward pages' reads over REST (each answer checked against its declared schema by the harness).
  for (const p of [
    `/runs/${id}/rescorings`,
    `/runs/${id}/rescorings/${job.id}`,
    `/runs/${id}/signals`,
    `/runs/${id}/reliability`,
    `/runs/${id}/health`,
  ])
    assert.equal((await api(server.base, token, "GET", p)).status, 200, p);

  const againErr: string[] = [];
  const again = await main(["import", "verl", folder, "--url", server.base, "--token", token], {
    out: () => {},
    err: (l) => againErr.push(l),
  });
  assert.equal(again, 9, "the same files twice: refused, not silently duplicated");
  assert.ok(
    againErr.some((l) => l.includes(`These files were already imported as run ${id}`) && l.includes("--again")),
    againErr.join("\n"),
  );
  assert.equal(await db.run.count({ where: { source: "verl", name: run.name } }), 1);
  const copy = await main(["import", "verl", folder, "--again", "--url", server.base, "--token", token], { out: () => {}, err: () => {} });
  assert.equal(copy, 3, "--again makes a second copy (and reports the same broken lines)");
  assert.equal(await db.run.count({ where: { source: "verl", name: run.name } }), 2);
});

test("rollout-lab import simia <training_record>: one folder per sample is read recursively; groups per sample and round", async () => {
  const token = await server.token(["write", "read"], "simia-importer");
  const err: string[] = [];
  const out: string[] = [];
  const folder = path.join(import.meta.dirname, "../fixtures/import/simia-training-record");
  const code = await main(["import", "simia", folder, "--url", server.base, "--token", token], {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  assert.equal(code, 3);
  assert.ok(
    err.some((l) => l.startsWith("sample_9/env_4_ep0_20261120_100400_000000.json: not valid JSON")),
    err.join("\n"),
  );
  const db = server.db.prisma;
  assert.equal(await db.trajectory.count({ where: { runId: out[0] } }), 4);
  assert.equal(await db.group.count({ where: { runId: out[0] } }), 2);
  assert.equal(await db.llmCall.count({ where: { runId: out[0], role: "judge" } }), 4);
});

test("rollout-lab import trl <output_dir>: only trainer_state.json files are read; the curves land on the run", async () => {
  const token = await server.token(["write", "read"], "trl-importer");
  const folder = await mkdtemp(path.join(tmpdir(), "trl-out-"));
  await cp(path.join(import.meta.dirname, "../fixtures/import/trl-output"), folder, { recursive: true });
  // A real output_dir also holds weights and tokenizers; they must never be opened (this one is not text).
  await writeFile(path.join(folder, "checkpoint-4", "model.safetensors"), Buffer.from([0xff, 0xfe, 0x00, 0x01]));
  await writeFile(path.join(folder, "checkpoint-4", "tokenizer.json"), "{not json");
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(["import", "trl", folder, "--url", server.base, "--token", token], {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  assert.equal(code, 0, err.join("\n"));
  const points = await server.db.prisma.metricPoint.findMany({ where: { runId: out[0], key: "reward/mean" }, orderBy: { step: "asc" } });
  assert.deepEqual(
    points.map((p) => [p.step, p.value]),
    [
      [0, 0.25],
      [1, 0.31],
      [2, 0.38],
      [3, 0.44],
    ],
    "Hugging Face's global steps 1-4 are Rollout Lab's 0-3",
  );
  const run = await server.db.prisma.run.findUniqueOrThrow({ where: { id: out[0] } });
  assert.equal(run.source, "trl");
  assert.deepEqual([run.step, run.totalSteps], [4, 4], "four steps done of max_steps 4");
});

test("rollout-lab import skyrl <export_path> --tokenizer: eval dumps and pickled training batches, decoded to text, land as one run", async () => {
  const token = await server.token(["write", "read"], "skyrl-importer");
  const folder = await mkdtemp(path.join(tmpdir(), "skyrl-export-"));
  const fixture = path.join(import.meta.dirname, "../fixtures/import/skyrl-export");
  await cp(path.join(fixture, "dumped_evals"), path.join(folder, "dumped_evals"), { recursive: true });
  await cp(path.join(fixture, "dumped_data"), path.join(folder, "dumped_data"), { recursive: true });
  const model = await mkdtemp(path.join(tmpdir(), "skyrl-model-"));
  await cp(path.join(fixture, "tokenizer.json"), path.join(model, "tokenizer.json"));
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(["import", "skyrl", folder, "--tokenizer", model, "--url", server.base, "--token", token], {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  assert.equal(code, 3, "exit 3: a broken eval record and a tensor stored with torch.save are named");
  assert.ok(
    err.some((l) => l.startsWith("dumped_data/global_step_2_training_input.pkl: not read: rollout_expert_indices")),
    err.join("\n"),
  );
  const db = server.db.prisma;
  const train = await db.trajectory.findMany({ where: { runId: out[0], split: "train" }, orderBy: { step: "asc" } });
  assert.equal(train.length, 6);
  assert.equal(await db.trajectory.count({ where: { runId: out[0], split: "eval" } }), 8);
  assert.ok(
    train.every((t) => t.reward === null),
    "unscored: SkyRL's dump has no rewards",
  );
  const texts = train.flatMap((t) => (t.conversation as { content: string }[]).map((m) => m.content));
  assert.ok(texts.includes("It is sunny and 21 C in Paris.<|im_end|>"), "decoded with the --tokenizer given");
  const points = await db.metricPoint.findMany({ where: { runId: out[0], key: "reward/mean" }, orderBy: { step: "asc" } });
  assert.deepEqual(
    points.map((p) => [p.step, p.value]),
    [
      [1, 0.5],
      [2, 1],
    ],
  );
  const bad = await main(["import", "skyrl", folder, "--tokenizer", path.join(model, "nope"), "--url", server.base, "--token", token], {
    out: () => {},
    err: () => {},
  });
  assert.equal(bad, 3, "a --tokenizer that is not there is a configuration error");
});

const realFixtures = path.join(import.meta.dirname, "../fixtures/import/real");

test("rollout-lab import tau2 <real results file>: every message, tool call and reward lands as τ² wrote it; a recorded API key is left out, not refused", async () => {
  const token = await server.token(["ingest"], "tau2-real");
  const source = JSON.parse(await readFile(path.join(realFixtures, "tau2-grok-4-fast-airline.json"), "utf8"));
  source.info.agent_info.llm_args.api_key = "EMPTY"; // what a local vLLM run records
  const folder = await mkdtemp(path.join(tmpdir(), "tau2-real-"));
  await writeFile(path.join(folder, "results.json"), JSON.stringify(source));
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(["import", "tau2", path.join(folder, "results.json"), "--url", server.base, "--token", token], {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  assert.equal(code, 0, err.join("\n"));
  assert.ok(
    err.some((l) => /info\.agent_info\.llm_args\.api_key looks like a secret .* left out/.test(l)),
    err.join("\n"),
  );
  const db = server.db.prisma;
  const run = await db.run.findUniqueOrThrow({ where: { id: out[0] } });
  assert.ok(!JSON.stringify(run.config).includes("EMPTY"));
  const stored = await db.trajectory.findMany({ where: { runId: run.id }, include: { group: true, llmCalls: true } });
  assert.equal(stored.length, 4);
  for (const sim of source.simulations as {
    id: string;
    task_id: string;
    trial: number;
    reward_info: { reward: number };
    messages: Record<string, unknown>[];
  }[]) {
    const t = stored.find((s) => s.id === externalTrajectoryId(run.id, sim.id))!;
    assert.ok(t, `trial ${sim.trial} stored`);
    assert.deepEqual(
      (t.conversation as { role: string; content: string; toolCalls?: { name: string; arguments: unknown }[] }[]).map((m) => [
        m.role,
        m.content,
        (m.toolCalls ?? []).map((c) => [c.name, c.arguments]),
      ]),
      sim.messages.map((m) => [
        m.role,
        (m.content as string | null) ?? "",
        ((m.tool_calls ?? []) as { name: string; arguments: unknown }[]).map((c) => [c.name, c.arguments]),
      ]),
    );
    assert.equal((t.group.task as { id: string }).id, sim.task_id, "the group's task is tasks[]'s");
    assert.equal(t.llmCalls.length, sim.messages.filter((m) => m.role === "user" && m.cost !== undefined).length);
  }
});

test("rollout-lab import tau2 <run folder>: τ²'s directory format (results.json + simulations/), named by folder or by its results.json", async () => {
  const token = await server.token(["ingest"], "tau2-dir");
  const folder = path.join(realFixtures, "tau2-dir");
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(["import", "tau2", folder, "--url", server.base, "--token", token], {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  assert.equal(code, 0, err.join("\n"));
  assert.equal(await server.db.prisma.trajectory.count({ where: { runId: out[0] } }), 2);
  const byFile: string[] = [];
  const again = await main(["import", "tau2", path.join(folder, "results.json"), "--url", server.base, "--token", token], {
    out: () => {},
    err: (l) => byFile.push(l),
  });
  assert.equal(again, 9, "results.json brings its simulations/: the same files, so already imported");
  assert.ok(
    byFile.some((l) => l.includes(`already imported as run ${out[0]}`)),
    byFile.join("\n"),
  );
});

test("rollout-lab import verl <real dump>: text extras stay on their own sample", async () => {
  const token = await server.token(["ingest"], "verl-real");
  const out: string[] = [];
  const code = await main(["import", "verl", path.join(realFixtures, "verl-sdpo-rollouts"), "--url", server.base, "--token", token], {
    out: (l) => out.push(l),
    err: () => {},
  });
  assert.equal(code, 0);
  const samples = await server.db.prisma.trajectory.findMany({ where: { runId: out[0] }, orderBy: { reward: "asc" } });
  assert.deepEqual(
    samples.map((t) => [t.reward, t.reasoning?.split("\n")[0]]),
    [
      [0, "pred: Actions: ['getFlightInformation'], Inputs: {'flightNumber': 'KLM1234', 'date': '2023-04-05'}"],
      [1, "pred: Actions: ['searchDomains'], Inputs: {'query': 'music'}"],
    ],
  );
});

test("an import that fails half way is marked failed with the reason; importing the same file again continues it without duplicates", async () => {
  const token = await server.token(["ingest"], "interrupted");
  const { startFlakyProxy } = await import("./helpers/flaky-proxy");
  const proxy = await startFlakyProxy(server.base);
  try {
    const lines = [JSON.stringify({ type: "run", name: "interrupted import", source: "other" })];
    for (let i = 0; i < 450; i++)
      lines.push(
        JSON.stringify({
          type: "trajectory",
          id: `s${i}`,
          step: Math.floor(i / 16),
          group: `p${i % 8}`,
          reward: i % 2,
          conversation: [
            { role: "user", content: `q${i % 8}` },
            { role: "assistant", content: `a${i}` },
          ],
        }),
      );
    const file = path.join(await mkdtemp(path.join(tmpdir(), "interrupted-")), "run.jsonl");
    await writeFile(file, lines.join("\n"));
    let sampleBatches = 0;
    proxy.setFault(({ path: p }) => (p.endsWith("/trajectories") && ++sampleBatches === 2 ? 500 : null));
    const err: string[] = [];
    const first = await main(["import", "jsonl", file, "--url", proxy.url, "--token", token], { out: () => {}, err: (l) => err.push(l) });
    assert.equal(first, 1, "a server error stops the import");
    const db = server.db.prisma;
    const run = await db.run.findFirstOrThrow({ where: { name: "interrupted import" } });
    assert.equal(run.status, "failed", "never left running");
    assert.match(run.error ?? "", /^The import stopped: /);
    assert.equal(await db.trajectory.count({ where: { runId: run.id } }), 200, "the first batch landed");

    proxy.setFault(() => null);
    const out: string[] = [];
    const again: string[] = [];
    const second = await main(["import", "jsonl", file, "--url", server.base, "--token", token], {
      out: (l) => out.push(l),
      err: (l) => again.push(l),
    });
    assert.equal(second, 0, again.join("\n"));
    assert.equal(out[0], run.id, "continued in the same run");
    assert.ok(
      again.some((l) => /import stopped \(failed\); continued it/.test(l)),
      again.join("\n"),
    );
    assert.equal(await db.trajectory.count({ where: { runId: run.id } }), 450);
    assert.equal((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status, "succeeded");
  } finally {
    await proxy.close();
  }
});

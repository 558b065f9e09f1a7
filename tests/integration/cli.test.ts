/**
 * The CLI end to end as CI uses it: `bin/rollout-lab.mjs` as a child process against a real server on the real
 * PostgreSQL. The first token comes from `tokens create` talking to the database directly.
 *
 * No trainer worker runs here (START_WORKER=false, and these tests must stay fast): a simulated worker moves the
 * run rows the way trainer/worker does — claims (running), records steps and latestReward, finishes, and honours
 * cancelRequested by marking the run cancelled — so what is tested is the CLI/API side of that contract.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startApiServer, type ApiServer } from "./api-harness";
import { insertSyntheticRun } from "./helpers/synthetic-run";

let server: ApiServer;
let token: string;
const dir = mkdtempSync(path.join(os.tmpdir(), "rollout-lab-cli-"));

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> & { child: ReturnType<typeof spawn> } {
  const child = spawn(process.execPath, [path.resolve("bin/rollout-lab.mjs"), ...args], {
    cwd: dir, // not the repo: the CLI must work from a CI checkout of another project
    env: { ...process.env, ROLLOUT_LAB_URL: server.base, ROLLOUT_LAB_TOKEN: token, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const done = new Promise<CliResult>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  return Object.assign(done, { child });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for the run the CLI just created (newest by name) and returns its id. */
async function awaitRun(name: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const run = await server.db.prisma.run.findFirst({ where: { name }, orderBy: { createdAt: "desc" } });
    if (run) return run.id;
    await sleep(100);
  }
  throw new Error(`run "${name}" was never created`);
}

/** The simulated worker: claim, record steps, then finish with `final`. */
async function simulateTraining(id: string, final: { status: "succeeded" | "failed"; latestReward?: number; error?: string }) {
  await server.db.prisma.run.update({ where: { id }, data: { status: "running", startedAt: new Date(), phase: "rollout", claims: 1 } });
  for (let step = 1; step <= 2; step++) {
    await sleep(250);
    await server.db.prisma.run.update({ where: { id }, data: { step, latestReward: (final.latestReward ?? 0) * (step / 2) } });
  }
  await server.db.prisma.run.update({ where: { id }, data: { ...final, phase: null, finishedAt: new Date() } });
}

function writeConfig(file: string, text: string): string {
  const p = path.join(dir, file);
  writeFileSync(p, text);
  return p;
}

before(async () => {
  server = await startApiServer();
  const created = await cli(["tokens", "create", "--name", "github-actions", "--database-url", server.db.url]);
  assert.equal(created.code, 0, created.stderr);
  token = created.stdout.trim();
  assert.match(token, /^rl_[A-Za-z0-9]{40}$/, "stdout is exactly the token");
  assert.match(created.stderr, /shown only now/);
});
after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("runs create --wait from a YAML config exits 0 when the run succeeds above --min-reward, printing progress", async () => {
  const config = writeConfig("ok.yaml", "name: cli success\ntags: [ci]\ngrpo:\n  steps: 2\n");
  const notes = "Baseline for the KL sweep.\nLaunched from CI.";
  const running = cli([
    "runs",
    "create",
    "--config",
    config,
    "--notes",
    notes,
    "--wait",
    "--min-reward",
    "0.5",
    "--timeout",
    "60",
    "--interval",
    "0.1",
  ]);
  const id = await awaitRun("cli success");
  await simulateTraining(id, { status: "succeeded", latestReward: 0.8 });
  const result = await running;
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), id, "stdout carries the run id for scripts");
  assert.match(result.stderr, /\[\d+s\] running step \d\/2 \(rollout\)/, "progress while running");
  assert.ok((result.stderr.match(/\[\d+s\]/g) ?? []).length >= 2, "a line per change, not only the final one");
  assert.match(result.stderr, /succeeded; reward 0.8/);
  const row = await server.db.prisma.run.findUniqueOrThrow({ where: { id } });
  assert.equal(row.launchedBy, "cli");
  assert.equal(row.launchedByName, "github-actions");
  assert.equal(row.notes, notes, "--notes lands as the run's notes");
  assert.equal((row.config as { notes?: unknown }).notes, undefined, "never in its config");
});

test("a reward below --min-reward exits 7; a failed run exits 5 with its error", async () => {
  const config = writeConfig("low.json", JSON.stringify({ name: "cli low reward", grpo: { steps: 2 } }));
  const low = cli(["runs", "create", "--config", config, "--wait", "--min-reward", "0.5", "--interval", "0.1"]);
  await simulateTraining(await awaitRun("cli low reward"), { status: "succeeded", latestReward: 0.2 });
  const lowResult = await low;
  assert.equal(lowResult.code, 7, lowResult.stderr);
  assert.match(lowResult.stderr, /below --min-reward 0.5/);

  const failing = cli(["runs", "create", "--config", config, "--name", "cli failing", "--wait", "--interval", "0.1"]);
  await simulateTraining(await awaitRun("cli failing"), { status: "failed", error: "judge endpoint unreachable" });
  const failed = await failing;
  assert.equal(failed.code, 5);
  assert.match(failed.stderr, /judge endpoint unreachable/);
});

test("runs cancel stops a waiting run: the worker sees cancelRequested, the waiting CLI exits 6", async () => {
  const config = writeConfig("cancel.json", JSON.stringify({ name: "cli cancel", grpo: { steps: 50 } }));
  const waiting = cli(["runs", "create", "--config", config, "--wait", "--interval", "0.1"]);
  const id = await awaitRun("cli cancel");
  await server.db.prisma.run.update({ where: { id }, data: { status: "running", step: 3 } });
  const cancel = await cli(["runs", "cancel", id]);
  assert.equal(cancel.code, 0, cancel.stderr);
  assert.match(cancel.stdout, /Cancel requested/);
  const row = await server.db.prisma.run.findUniqueOrThrow({ where: { id } });
  assert.equal(row.cancelRequested, true);
  // The waiting CLI shows the pending cancel on its next poll; only then does the (simulated) worker honour it, or
  // the run could go straight from "running" to "cancelled" between two polls.
  let seen = "";
  waiting.child.stderr!.on("data", (d) => (seen += d));
  for (let i = 0; i < 200 && !/cancel requested/.test(seen); i++) await sleep(50);
  await server.db.prisma.run.update({ where: { id }, data: { status: "cancelled", finishedAt: new Date() } }); // the worker honours it
  const result = await waiting;
  assert.equal(result.code, 6, result.stderr);
  assert.match(result.stderr, /cancel requested/);

  const resumed = await cli(["runs", "resume", id]);
  assert.equal(resumed.code, 0);
  assert.equal((await server.db.prisma.run.findUniqueOrThrow({ where: { id } })).status, "queued");
});

test("--timeout exits 8 (and --cancel-on-timeout cancels the queued run)", async () => {
  const config = writeConfig("slow.json", JSON.stringify({ name: "cli timeout" }));
  const started = Date.now();
  const result = await cli(["runs", "create", "--config", config, "--wait", "--timeout", "1", "--interval", "0.2", "--cancel-on-timeout"]);
  assert.equal(result.code, 8, result.stderr);
  assert.ok(Date.now() - started < 15_000);
  const id = result.stdout.trim();
  assert.equal((await server.db.prisma.run.findUniqueOrThrow({ where: { id } })).status, "cancelled");
});

test("bad configs exit 3 with the field path; bad tokens exit 4; unknown runs exit 9; bad flags exit 2", async () => {
  const invalid = await cli(["runs", "create", "--config", writeConfig("bad.yaml", "grpo:\n  groupSize: four\n")]);
  assert.equal(invalid.code, 3);
  assert.match(invalid.stderr, /config\.grpo\.groupSize/);
  const unparsable = await cli(["runs", "create", "--config", writeConfig("broken.json", "{ nope")]);
  assert.equal(unparsable.code, 3);
  const secret = await cli([
    "runs",
    "create",
    "--config",
    writeConfig(
      "secret.json",
      JSON.stringify({ llm: { judge: { baseUrl: "https://x.test/v1", model: "m", apiKey: "sk-0123456789abcdefghijkl" } } }),
    ),
  ]);
  assert.equal(secret.code, 3);
  assert.match(secret.stderr, /apiKeyEnv/);

  const auth = await cli(["runs", "list"], { ROLLOUT_LAB_TOKEN: `rl_${"A".repeat(40)}` });
  assert.equal(auth.code, 4);
  const noToken = await cli(["runs", "list"], { ROLLOUT_LAB_TOKEN: "" });
  assert.equal(noToken.code, 4);
  assert.equal((await cli(["runs", "get", "no-such-run"])).code, 9);
  assert.equal((await cli(["runs", "create", "--config", "x.json", "--timeout", "soon"])).code, 2);
  assert.equal((await cli(["launch"])).code, 2);
});

test("runs get and runs export write what the API returns", async () => {
  const id = await insertSyntheticRun(server.db.prisma);
  const got = await cli(["runs", "get", id, "--json"]);
  assert.equal(got.code, 0, got.stderr);
  assert.equal((JSON.parse(got.stdout) as { status: string }).status, "succeeded");
  const out = path.join(dir, "export.jsonl");
  const exported = await cli(["runs", "export", id, "--out", out, "--split", "train"]);
  assert.equal(exported.code, 0, exported.stderr);
  const lines = readFileSync(out, "utf8").trim().split("\n");
  assert.equal(lines.length, await server.db.prisma.trajectory.count({ where: { runId: id, split: "train" } }));
  assert.ok(lines.every((l) => (JSON.parse(l) as { split: string; conversation_history: unknown[] }).split === "train"));
  const none = await cli(["runs", "export", id, "--out", out, "--split", "no-such-split"]);
  assert.equal(none.code, 0, none.stderr);
  assert.equal(readFileSync(out, "utf8"), "", "an empty selection is an empty file");

  // Simia-RL's own layout: one indented JSON file per episode under sample_<index>/env_<slot>_ep<episode>_<time>.json.
  const layout = path.join(dir, "training_record");
  const simia = await cli(["runs", "export", id, "--layout", "simia", "--out", layout, "--split", "train"]);
  assert.equal(simia.code, 0, simia.stderr);
  const files = readdirSync(layout, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".json"));
  assert.equal(files.length, lines.length);
  assert.ok(
    files.every((f) => /^sample_[^/]+\/env_\d+_ep\d+_\d{8}_\d{6}_\d{6}(_.+)?\.json$/.test(f)),
    files[0],
  );
  const first = JSON.parse(readFileSync(path.join(layout, files[0]), "utf8")) as { env_id: number; episode_count: number };
  assert.ok(files[0].includes(`env_${first.env_id}_ep${first.episode_count}_`));
  assert.equal((await cli(["runs", "export", id, "--layout", "simia"])).code, 2, "--layout simia needs --out");

  const list = await cli(["tokens", "list", "--database-url", server.db.url]);
  assert.match(list.stdout, /github-actions/);
  assert.ok(!list.stdout.includes(token), "the token itself is never shown again");
});

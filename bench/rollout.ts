/**
 * `npm run bench:rollout` — how well the rollout overlaps LLM latency. 128 simulated episodes x 10 turns, every
 * role (user simulator, tool simulator, judge) served by the loopback fake server (a separate process) with a
 * fixed 200 ms per call. If episodes run truly concurrently, wall time ~ the longest episode's serial LLM time
 * (its critical path); the ratio is the overhead (target <= 1.15), reported against the critical path the client
 * measured (which includes its own queueing) and against the ideal one (calls x 200 ms). A second scenario injects
 * 30% faults and checks that every episode still ends with a recorded outcome. A third plays the simulated
 * preset's groups with the real policy sampling its turns (bench/rollout-policy.ts): how well sampling and LLM
 * waits overlap. Prints one JSON object, led by the clean scenario's wall time over the ideal critical path (the
 * client-seen path includes the client's own queueing, so a loaded client hides its overhead in it), with the load
 * average before and after.
 *
 * Flags: --scenario clean|faults|policy (repeatable or comma-separated; default all three; `clean` alone takes
 * under a minute).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { LlmCallRecord } from "../lib/conversation";
import { LlmClient, type LlmConfigInput } from "../trainer/llm";
import { createSimulatedEnvironment } from "../trainer/envs/simulated";
import { runEpisodes, type EpisodeTrajectory, type Policy } from "../trainer/rollout";
import { policyScenario } from "./rollout-policy";

const EPISODES = 128;
const TURNS = 10;
const LATENCY_MS = 200;
const FAULT_RATE = 0.3;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

async function startServerProcess(
  args: string[],
): Promise<{ url: string; child: ChildProcess; stop: () => Promise<Record<string, unknown>> }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "trainer/llm/fake-server/main.ts"), "--port", "0", ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw new Error("fake server exited before printing its URL");
  const { url } = JSON.parse(first.value) as { url: string };
  return {
    url,
    child,
    stop: async () => {
      child.kill("SIGTERM");
      const last = await iterator.next();
      return last.done ? {} : ((JSON.parse(last.value) as { stats: Record<string, unknown> }).stats ?? {});
    },
  };
}

function llmConfig(url: string, extra: Partial<LlmConfigInput> = {}): LlmConfigInput {
  const endpoint = { baseUrl: url, model: "fake-model", params: { temperature: 0.7, max_tokens: 256 } };
  return { endpoints: { user_simulator: endpoint, tool_simulator: endpoint, judge: endpoint }, concurrency: 256, ...extra };
}

// Never satisfies the user, so every episode runs all TURNS turns (the worst case for the critical path).
const chattyPolicy: Policy = async () => ({ text: "Could you tell me a bit more about what you need?" });

async function scenario(
  url: string,
  config: LlmConfigInput,
): Promise<{ trajectories: EpisodeTrajectory[]; records: LlmCallRecord[]; wallMs: number }> {
  const env = createSimulatedEnvironment();
  const tasks = env.builtinTasks();
  const records: LlmCallRecord[] = [];
  // The fake server is on loopback, which the endpoint policy refuses unless the operator allows it: allowed here.
  const allowFake = { ...process.env, ROLLOUT_LAB_LLM_BASE_URLS: `${new URL(url).origin}/` };
  const client = new LlmClient(config, { onCall: (r) => records.push(r), env: allowFake });
  const jobs = Array.from({ length: EPISODES }, (_, i) => ({
    env,
    task: tasks[i % tasks.length],
    policy: chattyPolicy,
    ctx: { seed: i, llm: client },
    maxTurns: TURNS,
  }));
  const t0 = performance.now();
  const trajectories = await runEpisodes(jobs, EPISODES);
  return { trajectories, records, wallMs: performance.now() - t0 };
}

function countBy<T>(items: T[], key: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of items) out[key(i)] = (out[key(i)] ?? 0) + 1;
  return out;
}

function summary(trajectories: EpisodeTrajectory[], records: LlmCallRecord[], wallMs: number) {
  // Measured: the longest episode's summed call latencies as the client saw them (includes client CPU queueing).
  const criticalPathMs = Math.max(...trajectories.map((t) => t.timings.llmMs));
  // Ideal: what that serial chain costs if each call took exactly the server's fixed latency.
  const idealCriticalPathMs = Math.max(...trajectories.map((t) => t.llmCalls.length)) * LATENCY_MS;
  return {
    episodes: trajectories.length,
    rolloutWallMs: Math.round(wallMs),
    criticalPathMs: Math.round(criticalPathMs),
    wallToCriticalPath: Number((wallMs / criticalPathMs).toFixed(3)),
    idealCriticalPathMs,
    wallToIdealCriticalPath: Number((wallMs / idealCriticalPathMs).toFixed(3)),
    llmCalls: records.length,
    callsPerSecond: Number((records.length / (wallMs / 1000)).toFixed(1)),
    statuses: countBy(trajectories, (t) => t.status),
    endReasons: countBy(trajectories, (t) => t.endReason),
  };
}

const SCENARIOS = ["clean", "faults", "policy"] as const;
type Scenario = (typeof SCENARIOS)[number];

function chosenScenarios(argv: string[]): Set<Scenario> {
  const named = argv.flatMap((a, i) =>
    argv[i - 1] === "--scenario" ? a.split(",") : a.startsWith("--scenario=") ? a.slice(11).split(",") : [],
  );
  const unknown = named.filter((n) => !SCENARIOS.includes(n as Scenario));
  if (unknown.length) {
    console.error(`Unknown --scenario ${unknown.join(", ")}: use ${SCENARIOS.join(", ")}.`);
    process.exit(2);
  }
  return new Set((named.length ? named : SCENARIOS) as Scenario[]);
}

const loadAverage = () => os.loadavg().map((x) => Number(x.toFixed(2)));

async function cleanScenario() {
  const clean = await startServerProcess(["--latency", String(LATENCY_MS)]);
  try {
    const { trajectories, records, wallMs } = await scenario(clean.url, llmConfig(clean.url));
    return { ...summary(trajectories, records, wallMs), target: "wallToIdealCriticalPath <= 1.15" };
  } finally {
    await clean.stop();
  }
}

async function faultScenario() {
  const faulty = await startServerProcess([
    "--latency",
    String(LATENCY_MS),
    "--fault-rate",
    String(FAULT_RATE),
    "--retry-after",
    "0.2",
    "--seed",
    "42",
  ]);
  try {
    const { trajectories, records, wallMs } = await scenario(
      faulty.url,
      llmConfig(faulty.url, { timeoutMs: 3_000, retry: { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 2_000, maxRetryAfterMs: 5_000 } }),
    );
    const serverStats = await faulty.stop();
    const outcomes = trajectories.filter((t) => (t.status === "error" ? t.error !== null : t.evaluation !== null)).length;
    return {
      ...summary(trajectories, records, wallMs),
      faultRate: FAULT_RATE,
      faultsInjected: serverStats.faults,
      failedAttempts: records.filter((r) => r.error !== null).length,
      retries: records.filter((r) => r.attempt > 1).length,
      unscoredJudgements: trajectories.filter((t) => t.status === "unscored").length,
      episodesWithRecordedOutcome: `${outcomes}/${trajectories.length}`,
    };
  } finally {
    if (faulty.child.exitCode === null) faulty.child.kill("SIGTERM");
  }
}

async function withPolicyScenario() {
  const server = await startServerProcess(["--latency", String(LATENCY_MS)]);
  try {
    return await policyScenario(llmConfig(server.url), LATENCY_MS);
  } finally {
    await server.stop();
  }
}

const chosen = chosenScenarios(process.argv.slice(2));
const loadAverageBefore = loadAverage();
const cleanResult = chosen.has("clean") ? await cleanScenario() : undefined;
const faultResult = chosen.has("faults") ? await faultScenario() : undefined;
const withPolicy = chosen.has("policy") ? await withPolicyScenario() : undefined;

const conditions = {
  episodes: EPISODES,
  turns: TURNS,
  latencyMs: LATENCY_MS,
  cpus: os.availableParallelism(),
  loadAverageBefore,
  loadAverageAfter: loadAverage(),
  node: process.version,
  scenarios: [...chosen],
};
console.log(
  JSON.stringify(
    {
      // The headline: the clean scenario's wall time over the ideal critical path (goal <= 1.15).
      wallToIdealCriticalPath: cleanResult?.wallToIdealCriticalPath ?? null,
      conditions,
      clean: cleanResult,
      faults: faultResult,
      withPolicy,
    },
    null,
    2,
  ),
);

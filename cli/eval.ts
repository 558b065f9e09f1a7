/**
 * `rollout-lab eval`: evaluate a model on an environment the way `tau2 run` or `vf-eval` does — every selected
 * task k times, scored as τ²-bench scores (pass@1, pass^k, mean reward) — as an evaluation run on the server, then
 * wait for it and print the scores per task. Exit codes as `runs create --wait` (exit-codes.ts); `--min-pass` is the
 * bar for eval/pass@1 (or --metric, e.g. eval/pass^4).
 */
import type { ApiClient } from "./api-client";
import { CliError, EXIT, type ExitCode } from "./exit-codes";
import type { CliIo } from "./main";
import { waitForRun, type WaitOptions } from "./wait";

export interface EvalFlags {
  env?: string;
  "base-url"?: string;
  model?: string;
  "api-key-env"?: string;
  gold?: boolean;
  checkpoint?: string;
  k?: number;
  tasks?: string;
  "max-tasks"?: number;
  "max-cost"?: number;
  /** The endpoint's price in USD per million prompt / completion tokens (policy.endpoint.price). */
  "price-in"?: number;
  "price-out"?: number;
  concurrency?: number;
  temperature?: number;
  "max-turns"?: number;
  dataset?: string;
  name?: string;
  wait: boolean;
}

const usage = (message: string) => new CliError(EXIT.USAGE, message);

/** The RunConfig of the evaluation the flags describe (endpoint or gold replay; checkpoints go through their run). */
export function evalConfigFromFlags(f: EvalFlags): Record<string, unknown> {
  if (!f.env) throw usage("eval needs --env (e.g. --env tau2-retail).");
  const players = [f["base-url"] || f.model ? "endpoint" : null, f.gold ? "gold" : null, f.checkpoint ? "checkpoint" : null].filter(
    Boolean,
  );
  if (players.length !== 1)
    throw usage("eval needs exactly one player: --base-url URL --model M (an API model), --gold, or --checkpoint RUN[:STEP].");
  if (players[0] === "endpoint" && (!f["base-url"] || !f.model)) throw usage("An API model needs both --base-url and --model.");
  const priced = f["price-in"] !== undefined || f["price-out"] !== undefined;
  if (priced && players[0] !== "endpoint") throw usage("--price-in / --price-out price an API model (--base-url, --model).");
  if (priced && (f["price-in"] === undefined || f["price-out"] === undefined))
    throw usage("Give both --price-in and --price-out (USD per million prompt / completion tokens; 0 for a free side).");
  if (f["max-cost"] && players[0] === "endpoint" && !priced)
    throw usage(
      "--max-cost needs the model's price to count cost: add --price-in and --price-out (USD per million prompt / completion tokens, e.g. --price-in 0.4 --price-out 1.6).",
    );
  const tasks = f.tasks
    ?.split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  return {
    name: f.name ?? `eval · ${f.env} · ${f.gold ? "gold actions replayed" : f.model}`,
    tags: ["eval"],
    environment: f.env,
    ...(f.dataset ? { dataset: { path: f.dataset } } : {}),
    // Environments cap their own episodes (τ²: 20 turns); this only has to be above that.
    rollout: { maxTurns: f["max-turns"] ?? 30 },
    policy: f.gold
      ? { scripted: "gold" }
      : {
          endpoint: {
            baseUrl: f["base-url"],
            model: f.model,
            ...(f["api-key-env"] ? { apiKeyEnv: f["api-key-env"] } : {}),
            ...(priced ? { price: { inputPerMTok: f["price-in"], outputPerMTok: f["price-out"] } } : {}),
          },
          ...(f.temperature !== undefined ? { sampling: { temperature: f.temperature } } : {}),
        },
    eval: evalSection(f, tasks),
  };
}

function evalSection(f: EvalFlags, tasks: string[] | undefined) {
  return {
    k: f.k ?? 4,
    ...(tasks?.length ? { tasks } : {}),
    ...(f["max-tasks"] ? { maxTasks: f["max-tasks"] } : {}),
    ...(f["max-cost"] ? { maxCostUsd: f["max-cost"] } : {}),
    ...(f.concurrency ? { concurrency: f.concurrency } : {}),
  };
}

interface EvaluationView {
  policy: string;
  summary: {
    tasks: number;
    trials: number;
    unscored: number;
    maxK: number;
    rewardMean: number | null;
    passHat: Record<string, number>;
    costUsd: number;
    /** Absent from servers older than the per-environment success rules. */
    successRule?: string;
    perTask: { taskId: string; trials: number; successes: number; rewardMean: number | null; costUsd: number }[];
  };
}

const fmt = (v: number | null | undefined) => (v === null || v === undefined ? "—" : v.toFixed(3));

/** The scores as a short table on stdout (what a CI log shows). */
export function printScores(view: EvaluationView, out: (line: string) => void): void {
  const s = view.summary;
  out(`policy: ${view.policy}`);
  out(
    `tasks ${s.tasks}, trials ${s.trials}${s.unscored ? ` (+${s.unscored} not scored)` : ""}; mean reward ${fmt(s.rewardMean)}; cost $${s.costUsd.toFixed(4)}`,
  );
  if (s.successRule) out(`success: ${s.successRule}`);
  out(Array.from({ length: s.maxK }, (_, i) => `pass^${i + 1} ${fmt(s.passHat[String(i + 1)])}`).join("  "));
  out("task\ttrials\tsuccesses\tmean reward\tcost");
  for (const t of s.perTask) out(`${t.taskId}\t${t.trials}\t${t.successes}\t${fmt(t.rewardMean)}\t$${t.costUsd.toFixed(4)}`);
}

export async function evalCommand(client: ApiClient, f: EvalFlags, waitOpts: WaitOptions, io: CliIo): Promise<ExitCode> {
  let created: { id: string; url: string };
  if (f.checkpoint) {
    // The checkpoint's run decides the environment, options and dataset: the evaluation is on its footing.
    const [runId, step] = f.checkpoint.split(":");
    const tasks = f.tasks?.split(",").filter(Boolean);
    created = await client.create(`/runs/${encodeURIComponent(runId)}/evaluations`, {
      ...(step !== undefined ? { step: Number(step) } : {}),
      ...evalSection(f, tasks),
      ...(f.name ? { name: f.name } : {}),
    });
  } else {
    created = await client.create("/runs", { config: evalConfigFromFlags(f) });
  }
  io.out(created.id);
  io.err(`Created evaluation run ${created.id}: ${created.url}`);
  if (!f.wait) return EXIT.OK;
  const { code } = await waitForRun(client, created.id, {
    ...waitOpts,
    metric: waitOpts.metric ?? "eval/pass@1",
    thresholdFlag: "--min-pass",
  });
  if (code === EXIT.OK || code === EXIT.THRESHOLD_MISSED || code === EXIT.RUN_CANCELLED) {
    printScores(await client.json<EvaluationView>("GET", `/runs/${encodeURIComponent(created.id)}/evaluation`), io.out);
  }
  return code;
}

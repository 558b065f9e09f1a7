/**
 * The real pieces behind an evaluation run (eval-run.ts): the environment and its selected tasks, the LLM client
 * (simulators, judge and — for an endpoint — the evaluated model, all recorded, retried and capped alike), the cost
 * budget every call reports to, and the player for the policy the config names:
 *
 *   policy.endpoint     an OpenAI-compatible model (endpoint-policy.ts), tools as schemas
 *   policy.scripted     the gold replay (gold-policy.ts), tools as schemas
 *   policy.checkpoint   a training run's checkpoint, sampled by the trainer's own player (play-group.ts)
 *   otherwise           the configured policy model as it is (a built-in size or a Hugging Face folder)
 */
import type { RunConfig } from "../../lib/run-config";
import { policyLabel } from "../../lib/eval-config";
import { selectBackend } from "../backend/select";
import { loadCheckpoint } from "../checkpoint/checkpoint";
import { getEnvironment } from "../envs/registry";
import type { Task } from "../envs/types";
import { LlmClient } from "../llm/client";
import { runLlmConfig } from "../llm/run-llm-config";
import { Semaphore } from "../llm/semaphore";
import { loadPolicy } from "../loop/real/load-policy";
import { createGroupPlayer } from "../loop/real/play-group";
import { CostBudget } from "./cost-budget";
import { createEndpointPolicy } from "./endpoint-policy";
import type { EvalDeps } from "./eval-run";
import { createEvalPlayer, type TrialPolicy } from "./eval-player";
import { createGoldPolicy, loadGoldScripts } from "./gold-policy";
import { selectEvalTasks } from "./select-tasks";

export interface EvalSetup {
  deps: EvalDeps;
  /** What plays, for the run page's "Backend" line. */
  backend: string;
  dispose(): void;
}

export interface EvalSetupOptions {
  /** policy.checkpoint's folder, looked up by the executor (the Checkpoint row of that run and step). */
  checkpointLocation?: string;
  /** Where `apiKeyEnv` names are looked up (default process.env). */
  env?: Record<string, string | undefined>;
}

export async function createEvalDeps(config: RunConfig, opts: EvalSetupOptions = {}): Promise<EvalSetup> {
  const settings = config.eval;
  if (!settings) throw new Error("createEvalDeps needs a config with an eval section.");
  const env = getEnvironment(config.environment, config.environmentOptions);
  let all: Task[];
  if (config.dataset.path) {
    if (!env.loadTasks) throw new Error(`Environment "${env.name}" has no dataset importer; omit dataset.path to use its built-in tasks.`);
    all = await env.loadTasks(config.dataset.path);
  } else all = env.builtinTasks();
  const selection = selectEvalTasks(all, config);
  let tasks = selection.tasks;
  const notes = [...selection.notes];
  let selectionLabel = selection.label;

  const budget = new CostBudget(settings.maxCostUsd ?? null);
  const llm = new LlmClient(runLlmConfig(config), { env: opts.env, onCall: (r) => budget.add(r.costUsd) });
  const episodes = new Semaphore(settings.concurrency);
  const label = policyLabel(config);
  const endpointPlayer = (policyFor: (trial: number, signal: AbortSignal) => TrialPolicy) =>
    createEvalPlayer({ config, env, llm, episodes, policyFor });

  if (config.policy.endpoint) {
    const seed = config.policy.sampling.seed;
    const player = endpointPlayer((trial, signal) =>
      createEndpointPolicy({ llm, signal, beforeCall: () => budget.check(), ...(seed !== undefined ? { seed: seed + trial } : {}) }),
    );
    return {
      deps: { tasks, runGroup: (req) => player.runGroup(req), budget, policyLabel: label, notes, selectionLabel },
      backend: `endpoint ${config.policy.endpoint.model} (OpenAI chat API, tools as function schemas)`,
      dispose() {},
    };
  }

  if (config.policy.scripted === "gold") {
    const scripts = await loadGoldScripts(env, tasks);
    const without = tasks.filter((t) => !scripts.has(t.id));
    if (without.length === tasks.length)
      throw new Error(`Environment "${env.name}" has no gold demonstration for any selected task, so the gold replay cannot play it.`);
    if (without.length) {
      notes.push(
        `${without.length} task(s) have no gold demonstration and are left out: ${without
          .slice(0, 5)
          .map((t) => t.id)
          .join(", ")}${without.length > 5 ? ", …" : ""}.`,
      );
      tasks = tasks.filter((t) => scripts.has(t.id));
      selectionLabel += ` · the ${tasks.length} with gold actions`;
    }
    const policy = createGoldPolicy(scripts);
    const player = endpointPlayer(() => ({ policy, calls: [] }));
    return {
      deps: { tasks, runGroup: (req) => player.runGroup(req), budget, policyLabel: label, notes, selectionLabel },
      backend: "built-in script: the tasks' gold actions replayed (not a model)",
      dispose() {},
    };
  }

  // The trainer's own policy: a training run's checkpoint, or the configured model as it is.
  const backend = await selectBackend();
  const { model, chat } = await loadPolicy(config);
  try {
    if (opts.checkpointLocation) await loadCheckpoint(opts.checkpointLocation, model);
  } catch (err) {
    model.dispose();
    throw err;
  }
  const player = createGroupPlayer({ config, env, model, chat, llm });
  return {
    deps: { tasks, runGroup: (req) => player.runGroup(req), budget, policyLabel: label, notes, selectionLabel },
    backend: `${backend.backend}; ${label}`,
    dispose() {
      model.dispose();
    },
  };
}

/**
 * Test support: an evaluation run of a few tasks against the loopback fake OpenAI server, recorded in memory, with
 * its scores (lib/pass-k.ts) and what the server saw.
 */
import { summariseTrials } from "../../../lib/pass-k";
import { successRuleFor } from "../../../lib/success-rules";
import { parseRunConfig, type RunConfigInput } from "../../../lib/run-config";
import { getEnvironment } from "../../envs/registry";
import { startFakeLlmServer, type FakeLlmServerOptions } from "../../llm/fake-server/server";
import { createMemorySink } from "../../loop/memory-sink";
import type { StopControl } from "../../loop/types";
import { createEvalDeps } from "../eval-deps";
import { evalRun } from "../eval-run";

const running: StopControl = { reason: () => null, signal: new AbortController().signal };

export interface Setup {
  environment: string;
  environmentOptions?: Record<string, unknown>;
  datasetPath?: string;
  /** Task ids to evaluate (default: the first `maxTasks`). */
  tasks?: string[];
  maxTasks?: number;
  maxTurns: number;
}

export async function tasksOf(s: Setup) {
  const env = getEnvironment(s.environment, s.environmentOptions ?? {});
  const all = s.datasetPath ? await env.loadTasks!(s.datasetPath) : env.builtinTasks();
  const tasks = s.tasks ? all.filter((t) => s.tasks!.includes(t.id)) : all.slice(0, s.maxTasks ?? all.length);
  return { env, tasks };
}

/** Plays an evaluation of `s` against a fake server answering with `fake`; everything recorded in memory. */
export async function evaluate(s: Setup, fake: FakeLlmServerOptions, extra: Partial<RunConfigInput> & { k?: number } = {}) {
  const server = await startFakeLlmServer(fake);
  try {
    const { k = 2, ...rest } = extra;
    const config = parseRunConfig({
      environment: s.environment,
      environmentOptions: s.environmentOptions ?? {},
      ...(s.datasetPath ? { dataset: { path: s.datasetPath } } : {}),
      rollout: { maxTurns: s.maxTurns },
      ...rest,
      policy: { endpoint: { baseUrl: server.url, model: "fake-model", ...rest.policy?.endpoint }, sampling: { seed: 100 } },
      eval: { k, concurrency: 4, ...(s.tasks ? { tasks: s.tasks } : {}), ...(s.maxTasks ? { maxTasks: s.maxTasks } : {}), ...rest.eval },
    });
    const setup = await createEvalDeps(config);
    const sink = createMemorySink();
    const outcome = await evalRun(config, setup.deps, sink, running);
    const summary = summariseTrials(await sink.recordedEvalTrials!(), successRuleFor(config.environment), await sink.unattachedCostUsd!());
    const spentUsd = setup.deps.budget?.spentUsd ?? 0;
    return {
      outcome,
      sink,
      summary,
      spentUsd,
      stats: server.stats,
      trajectories: [...sink.steps.values()].flatMap((r) => r.groups[0].trajectories),
    };
  } finally {
    await server.close();
  }
}

/**
 * The pre-flight check of an evaluation played by an endpoint or the gold replay: which tasks and how many trials,
 * and the first request the model will receive — the first task's opening as chat messages with its tools as
 * function schemas, exactly as the endpoint policy sends it (no key: keys never leave the worker's environment).
 */
import type { PreflightResult } from "../../lib/preflight";
import type { RunConfig } from "../../lib/run-config";
import { toWireMessages } from "../eval/endpoint-policy";
import { selectEvalTasks } from "../eval/select-tasks";
import { getEnvironment } from "../envs/registry";
import { redactUrl } from "../llm/redact";
import { estimateMessagesTokens, estimateTokens } from "../llm/pricing";
import { runLlmConfig } from "../llm/run-llm-config";
import { offlineOnly } from "./offline-only";

export async function computeEvalPreflight(config: RunConfig): Promise<PreflightResult> {
  const settings = config.eval!;
  const env = getEnvironment(config.environment, config.environmentOptions);
  const all = config.dataset.path && env.loadTasks ? await env.loadTasks(config.dataset.path) : env.builtinTasks();
  const { tasks } = selectEvalTasks(all, config);
  const task = tasks[0];
  if (!task) throw new Error(`environment "${env.name}" has no task to evaluate${config.dataset.path ? ` in ${config.dataset.path}` : ""}`);
  const episode = env.createEpisode(task, {
    seed: config.seed,
    llm: offlineOnly,
    maxTurns: config.rollout.maxTurns,
    toolPresentation: "schemas",
  });
  const wire = toWireMessages(await episode.reset());
  const tools = [...(episode.tools?.() ?? [])];
  const endpoint = config.policy.endpoint;
  const params = runLlmConfig(config).endpoints?.policy?.params ?? {};
  const messages = wire.map((m) => ({ role: m.role, content: m.content ?? "" }));
  const promptTokens = estimateMessagesTokens(messages) + estimateTokens(JSON.stringify(tools));
  const problems: string[] = [];
  return {
    environment: env.name,
    taskId: task.id,
    promptTokens,
    contextLength: 0,
    maxNewTokens: config.policy.sampling.maxTokens,
    fits: true,
    headroom: 0,
    promptTail: "",
    episodesPerStep: settings.k,
    tokensPerStep: 0,
    sampledTokensPerStep: 0,
    parameters: 0,
    memoryBytes: 0,
    memoryLimitBytes: 0,
    forwardMs: 0,
    // No model runs here: the policy is the endpoint (or the script).
    backend: endpoint ? "endpoint" : "script",
    stepSecondsEstimate: 0,
    problems,
    evaluation: {
      tasks: tasks.length,
      trials: tasks.length * settings.k,
      firstRequest: {
        endpoint: endpoint ? redactUrl(endpoint.baseUrl) : "built-in script",
        model: endpoint?.model ?? "gold actions replayed (not a model)",
        messages,
        tools,
        params: endpoint ? params : {},
      },
    },
  };
}

/**
 * The part of a pre-flight check that needs no weights: the environment's real opening prompt for its first training
 * task, rendered with the policy's chat template (the checkpoint's own, with the episode's tools when it renders
 * them) and tokenizer and held against the context, then tokens and memory
 * per step. computePreflight (compute.ts) adds the measured forward pass; the presets test runs exactly this for
 * every environment's launch-form defaults.
 */
import type { PreflightResult } from "../../lib/preflight";
import type { PolicyContextMode, RunConfig } from "../../lib/run-config";
import { estimateStepMemory, stepMemoryInputOf, stepMemoryProblem } from "../../lib/step-memory";
import { getEnvironment } from "../envs/registry";
import type { ModelConfig } from "../policy/config";
import type { ChatFormat } from "../policy/chat/chat-format";
import { EpisodeTokens } from "../rollout/episode-tokens";
import { offlineOnly } from "./offline-only";

/** Everything but the timing, which needs the model's weights. */
export type PreflightPlan = Omit<PreflightResult, "forwardMs" | "stepSecondsEstimate" | "backend"> & {
  /** The opening prompt's ids (the forward pass is timed on them). */
  openingIds: number[];
};

/** Most of the rendered prompt the answer carries (a τ² system prompt with its policy document is ~30,000). */
const PROMPT_SHOWN_CHARS = 40_000;

/**
 * Most tokens one episode trains (observations aside, which the check cannot know). "append": one sequence, at most
 * the context. "rerender": a template that renders each turn otherwise than it was sampled (a tool call's JSON spaced
 * apart from json.dumps) starts a sequence per turn, each repeating the history: turn t's is up to the prompt and t
 * replies, so the sum over turns — what a τ² run on such a template really trained (16,929 tokens a step where one
 * sequence per episode promised 5,748).
 */
export function trainedPerEpisode(
  mode: PolicyContextMode,
  context: number,
  prompt: number,
  maxTurns: number,
  maxNewTokens: number,
): number {
  if (mode === "append") return Math.min(context, prompt + maxTurns * maxNewTokens);
  let total = 0;
  for (let t = 1; t <= maxTurns; t++) total += Math.min(context, prompt + t * maxNewTokens);
  return total;
}

/** `config` has its paths confined already (confineRunPaths); `memoryLimitBytes` is the worker's step budget. */
export async function planPreflight(
  config: RunConfig,
  policy: { modelConfig: ModelConfig; chat: ChatFormat },
  memoryLimitBytes: number,
): Promise<PreflightPlan> {
  const env = getEnvironment(config.environment, config.environmentOptions);
  const tasks = config.dataset.path && env.loadTasks ? await env.loadTasks(config.dataset.path) : env.builtinTasks();
  const train = tasks.filter((t) => t.split === config.dataset.trainSplit);
  const task = (train.length ? train : tasks)[0];
  if (!task) throw new Error(`environment "${env.name}" has no training task${config.dataset.path ? ` in ${config.dataset.path}` : ""}`);

  const { modelConfig, chat } = policy;
  // the episode as a run plays it: tools as schemas for a template that renders them (loop/real/play-group.ts)
  const episode = env.createEpisode(task, {
    seed: config.seed,
    llm: offlineOnly,
    maxTurns: config.rollout.maxTurns,
    toolPresentation: chat.toolPresentation,
  });
  const opening = await episode.reset();
  const tools = episode.tools?.();
  const prompt = chat.renderConversation(opening, { tools, addGenerationPrompt: true });
  const ids = new EpisodeTokens(chat).prompt(opening, { tools });
  const contextLength = modelConfig.maxPositions;
  const { maxNewTokens, maxTurns } = config.rollout;
  const fits = ids.length + maxNewTokens <= contextLength;
  const episodesPerStep = config.grpo.groupsPerStep * config.grpo.groupSize;
  const sampledPerEpisode = maxTurns * maxNewTokens;

  const memoryInput = stepMemoryInputOf(config, modelConfig, modelConfig.vocabSize);
  const estimate = estimateStepMemory(memoryInput);

  const problems: string[] = [];
  if (!fits) {
    problems.push(
      `The opening prompt is ${ids.length} tokens and a reply may take ${maxNewTokens}, but the policy's context is ${contextLength}: ` +
        `the prompt would be cut by ${ids.length + maxNewTokens - contextLength} tokens from the start and later turns could not fit. ` +
        `Raise policy.contextLength to at least ${ids.length + maxNewTokens + maxNewTokens}, lower rollout.maxNewTokens, or use a tokenizer that needs fewer tokens.`,
    );
  } else if (ids.length + 2 * maxNewTokens > contextLength && maxTurns > 1) {
    problems.push(
      `Only one turn fits: after the first reply, ${contextLength - ids.length - maxNewTokens} tokens are left for the next observation and reply, so most episodes will end context_full. Raise policy.contextLength.`,
    );
  }
  const memory = stepMemoryProblem(estimate, memoryLimitBytes, memoryInput.microBatch, contextLength);
  if (memory) problems.push(memory);

  return {
    environment: env.name,
    taskId: task.id,
    promptTokens: ids.length,
    contextLength,
    maxNewTokens,
    fits,
    headroom: contextLength - ids.length - maxNewTokens,
    promptTail: prompt.slice(-600),
    prompt: prompt.length > PROMPT_SHOWN_CHARS ? `…${prompt.slice(-PROMPT_SHOWN_CHARS)}` : prompt,
    chatTemplate: chat.describe(),
    episodesPerStep,
    tokensPerStep: episodesPerStep * trainedPerEpisode(config.rollout.policyContext, contextLength, ids.length, maxTurns, maxNewTokens),
    sampledTokensPerStep: episodesPerStep * Math.min(sampledPerEpisode, Math.max(0, contextLength - ids.length)),
    parameters: estimate.parameters,
    memoryBytes: estimate.bytes.total,
    memoryLimitBytes,
    problems,
    openingIds: ids,
  };
}

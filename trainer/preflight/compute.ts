/**
 * The pre-flight check of a run config (lib/preflight.ts): render the environment's real opening prompt for its
 * first training task with the chosen policy's chat template (the checkpoint's own, with the episode's tools when
 * it renders them) and tokenizer, and compare it with the context; then
 * estimate tokens, memory and time per step. Runs on a trainer worker: the environments, tokenizers and model live
 * here, never in the web app.
 */
import os from "node:os";
import * as tf from "@tensorflow/tfjs";
import type { PreflightResult } from "../../lib/preflight";
import type { RunConfig } from "../../lib/run-config";
import { estimateStepMemory, stepMemoryInputOf, stepMemoryLimitBytes, stepMemoryProblem } from "../../lib/step-memory";
import { getEnvironment } from "../envs/registry";
import { offlineOnly } from "./offline-only";
import { loadPolicy } from "../loop/real/load-policy";
import { confineRunPaths } from "../loop/real/run-paths";
import { padBatch, tokenLogProbs } from "../policy/logprobs";
import { EpisodeTokens } from "../rollout/episode-tokens";
import { computeEvalPreflight } from "./eval-preflight";

/** Most of the rendered prompt the answer carries (a τ² system prompt with its policy document is ~30,000). */
const PROMPT_SHOWN_CHARS = 40_000;

/** `roots`: the folders a run config may read (dataReadRoots in trainer/data-roots.ts). */
export async function computePreflight(raw: RunConfig, roots: string[]): Promise<PreflightResult> {
  const config = await confineRunPaths(raw, roots);
  // Played by an endpoint or a script, there is no model here to fit: show the first request instead.
  if (config.eval && (config.policy.endpoint || config.policy.scripted)) return computeEvalPreflight(config);
  const env = getEnvironment(config.environment, config.environmentOptions);
  const tasks = config.dataset.path && env.loadTasks ? await env.loadTasks(config.dataset.path) : env.builtinTasks();
  const train = tasks.filter((t) => t.split === config.dataset.trainSplit);
  const task = (train.length ? train : tasks)[0];
  if (!task) throw new Error(`environment "${env.name}" has no training task${config.dataset.path ? ` in ${config.dataset.path}` : ""}`);

  const { model, chat } = await loadPolicy(config);
  try {
    // the episode as a run plays it: tools as schemas for a template that renders them (rollout/play-group.ts)
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
    const contextLength = model.config.maxPositions;
    const { maxNewTokens, maxTurns } = config.rollout;
    const fits = ids.length + maxNewTokens <= contextLength;
    const episodesPerStep = config.grpo.groupsPerStep * config.grpo.groupSize;
    const sampledPerEpisode = maxTurns * maxNewTokens;
    const tokensPerStep = episodesPerStep * Math.min(contextLength, ids.length + sampledPerEpisode);
    const sampledTokensPerStep = episodesPerStep * Math.min(sampledPerEpisode, Math.max(0, contextLength - ids.length));

    const memoryInput = stepMemoryInputOf(config, model.config, model.config.vocabSize);
    const microBatch = memoryInput.microBatch;
    const estimate = estimateStepMemory(memoryInput);
    const limit = stepMemoryLimitBytes(process.env, os.totalmem());

    const measured = ids.slice(-Math.min(ids.length, contextLength));
    const started = performance.now();
    tf.tidy(() => tokenLogProbs(model, padBatch([measured])).logp.dataSync());
    const forwardMs = performance.now() - started;
    const perToken = forwardMs / Math.max(1, measured.length) / 1000;
    const stepSecondsEstimate = 3 * perToken * tokensPerStep + perToken * sampledTokensPerStep;

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
    const memory = stepMemoryProblem(estimate, limit, microBatch, contextLength);
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
      tokensPerStep,
      sampledTokensPerStep,
      parameters: estimate.parameters,
      memoryBytes: estimate.bytes.total,
      memoryLimitBytes: limit,
      forwardMs: Math.round(forwardMs * 10) / 10,
      stepSecondsEstimate: Math.round(stepSecondsEstimate * 10) / 10,
      problems,
    };
  } finally {
    model.dispose();
  }
}

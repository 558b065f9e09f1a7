/**
 * Plays one GRPO group in a real run: `size` episodes of the same task, all at once, with the TF.js policy sampling
 * every turn through one BatchedSampler (turns of different episodes that are waiting together are decoded as one
 * batch; each episode's keys and values are kept between its turns, so a turn runs only its new tokens) and each
 * episode's token ids recorded as sampled (rollout/episode-tokens.ts). Episodes are played by
 * rollout/runEpisode, so every simulator / judge LLM call is recorded with them.
 *
 * The policy meets the environment as it was trained (policy/chat): prompts are its chat template's, with the
 * episode's tools given to the template as schemas when the template renders tools; its replies are read by its
 * family's tool-call parser and handed over as calls, the text kept as sampled; sampling stops on its end-of-turn
 * token and every eos id of its generation config.
 */
import type { RunConfig } from "../../../lib/run-config";
import type { Environment } from "../../envs/types";
import type { LlmClient } from "../../llm/client";
import type { DecoderLM } from "../../policy/model";
import { Rng } from "../../policy/rng";
import { BatchedSampler } from "../../policy/batched-sampler";
import type { ChatFormat } from "../../policy/chat/chat-format";
import { tokenPieces } from "../../policy/tokenizer/token-pieces";
import { EpisodeTokens } from "../../rollout/episode-tokens";
import { roundTokenValue, type PolicyTokens } from "../../../lib/policy-tokens";
import { runEpisode, type EpisodeTrajectory } from "../../rollout/run-episode";
import { tokenPolicy } from "../../rollout/token-policy";
import type { GroupRequest, GroupRollout, RolloutSample } from "../types";
import { turnRewardsOf } from "./turn-credit";

export interface PolicySample {
  /** Every rendering's tokens one after another (EpisodeTokens.forTraining); each trains as its own sequence. */
  tokens: number[];
  lossMask: number[];
  /** Where each rendering starts in `tokens` ([0] unless the chat template was not prefix-stable). */
  segmentStarts: number[];
  /**
   * The sampler's log-prob of each token (aligned with `tokens`, 0 where nothing was sampled): the update's old
   * log-probs, since the weights have not changed between sampling and the update. Null when a turn lacked them.
   */
  sampledLogProbs: number[] | null;
  /** Multi-turn credit inputs (grpo.turnCredit): per-policy-turn rewards and each token's policy turn. */
  turnRewards: number[] | null;
  tokenTurnIds: number[];
}

export interface GroupPlayer {
  runGroup(req: GroupRequest): Promise<GroupRollout<PolicySample>>;
}

export interface GroupPlayerDeps {
  config: RunConfig;
  env: Environment;
  /** Per curriculum stage, the environment built with that stage's options (index-aligned with config.curriculum). */
  stageEnvs?: readonly Environment[];
  model: DecoderLM;
  chat: ChatFormat;
  llm: LlmClient;
}

export function createGroupPlayer(deps: GroupPlayerDeps): GroupPlayer {
  const { config, model, chat, llm } = deps;
  const tok = chat.tokenizer;
  const envFor = (req: GroupRequest): Environment => (req.stage !== undefined ? (deps.stageEnvs?.[req.stage] ?? deps.env) : deps.env);
  const maxPositions = model.config.maxPositions;
  // A turn is sampled only while the whole episode so far plus its longest reply fits the context: cutting a later
  // prompt would sample from a context other than the one the update trains on. Only the opening prompt may be
  // cut (from the left, for good: EpisodeTokens keeps the shortened sequence).
  const room = maxPositions - config.rollout.maxNewTokens - 1;
  if (room < 1) {
    throw new Error(
      `rollout.maxNewTokens (${config.rollout.maxNewTokens}) leaves no room for a prompt in the policy's context of ${maxPositions} tokens; lower it below ${maxPositions - 1}.`,
    );
  }
  const sampler = new BatchedSampler(model, {
    maxNewTokens: config.rollout.maxNewTokens,
    temperature: config.rollout.temperature,
    topP: config.rollout.topP,
    stopTokenIds: chat.stopIds,
    prefixCacheBytes: config.rollout.prefixCacheMb * 2 ** 20,
  });

  /** One episode; `batchSizes` collects, per policy turn, how many prompts were decoded together with it. */
  async function playOne(
    req: GroupRequest,
    i: number,
    batchSizes: number[],
  ): Promise<{ episode: EpisodeTrajectory; tokens: EpisodeTokens }> {
    const tokens = new EpisodeTokens(chat, config.rollout.policyContext);
    const rng = new Rng(req.seed + i);
    // The session's cache lives as long as the episode: the weights change only after the whole group is played.
    const session = sampler.open();
    try {
      const episode = await runEpisode({
        env: envFor(req),
        task: req.task,
        maxTurns: config.rollout.maxTurns,
        ctx: { seed: req.seed + i, llm, signal: req.signal, toolPresentation: chat.toolPresentation },
        policy: tokenPolicy({
          chat,
          tokens,
          room,
          sample: async (prompt) => {
            const sample = await session.sample(prompt, rng);
            batchSizes.push(sample.batchSize);
            return sample;
          },
        }),
      });
      return { episode, tokens };
    } finally {
      session.close();
    }
  }

  function toSample({ episode: e, tokens }: { episode: EpisodeTrajectory; tokens: EpisodeTokens }): RolloutSample<PolicySample> {
    const responseTokens = e.policyOutputs.reduce((s, p) => s + (p.tokens ?? 0), 0);
    const train = tokens.forTraining(); // fits maxPositions: every turn was sampled within it
    return {
      sample: {
        tokens: train.ids,
        lossMask: train.lossMask,
        segmentStarts: train.segmentStarts,
        sampledLogProbs: tokens.logprobsComplete ? train.logprobs : null,
        turnRewards: turnRewardsOf(e.messages, e.evaluation?.reward ?? null),
        tokenTurnIds: train.turnIds,
      },
      record: {
        reward: e.evaluation?.reward ?? null,
        components: e.evaluation?.components ?? {},
        reasoning: e.evaluation?.reasoning ?? null,
        status: e.status,
        endReason: e.endReason,
        error: e.error,
        numTurns: e.turns,
        promptTokens: tokens.ids.length - responseTokens,
        responseTokens,
        conversation: e.messages,
        finalState: e.evaluation?.finalState,
        expectedState: e.evaluation?.expectedState,
        llmCalls: e.llmCalls,
        policyTokens: policyView(train, tokens),
      },
    };
  }

  /** The sequence the update trains on, as the inspector shows it (the update's per-token values join later). */
  function policyView(train: ReturnType<EpisodeTokens["forTraining"]>, tokens: EpisodeTokens): PolicyTokens {
    return {
      ids: train.ids,
      // A reply's bytes are decoded apart from what follows: its text is what the environment was sent.
      pieces: tokenPieces(
        tok,
        train.ids,
        (i) => train.lossMask[i] !== train.lossMask[i - 1] || train.turnIds[i] !== train.turnIds[i - 1] || train.segmentStarts.includes(i),
      ),
      sampled: train.lossMask,
      turns: train.turnIds,
      logprobs: tokens.logprobsComplete ? train.logprobs.map(roundTokenValue) : null,
      truncatedPrompt: tokens.truncatedPrompt,
      contextSize: maxPositions,
      chatTemplate: chat.describe(),
      ...(train.segmentStarts.length > 1 && { rerenderedAt: train.segmentStarts.slice(1) }),
      ...(tokens.mode === "append" && tokens.divergedTurns > 0 && { templateDivergedTurns: tokens.divergedTurns }),
    };
  }

  return {
    async runGroup(req) {
      const batchSizes: number[] = [];
      const before = sampler.stats();
      const played = await Promise.all(Array.from({ length: req.size }, (_, i) => playOne(req, i, batchSizes)));
      const after = sampler.stats();
      const metrics: Record<string, number> = {};
      // share of the group's prompt tokens whose keys and values came from the episode's earlier turns
      const promptTokens = after.promptTokens - before.promptTokens;
      if (promptTokens > 0) metrics["rollout/prefix_reuse_frac"] = (after.reusedTokens - before.reusedTokens) / promptTokens;
      // mean over this group's policy turns of the batch each was decoded in
      if (batchSizes.length) metrics["rollout/policy_batch_mean"] = batchSizes.reduce((a, b) => a + b, 0) / batchSizes.length;
      // episodes whose opening prompt did not fit the policy's context and lost its beginning (a too-small policy)
      metrics["rollout/prompt_truncated_frac"] = played.filter((p) => p.tokens.truncatedPrompt > 0).length / played.length;
      // per episode, turns whose prompt the chat template would have rendered otherwise than the policy's context:
      // re-rendered (rollout.policyContext "rerender") or appended to as the observation's delta ("append")
      metrics["rollout/template_diverged_turns"] = played.reduce((s, p) => s + p.tokens.divergedTurns, 0) / played.length;
      return { samples: played.map(toSample), rewardSeconds: played.reduce((s, p) => s + p.episode.timings.evaluateMs / 1000, 0), metrics };
    },
  };
}

/**
 * Plays one GRPO group in a real run: `size` episodes of the same task, all at once, with the TF.js policy sampling
 * every turn through one BatchedSampler (turns of different episodes that are waiting together are decoded as one
 * batch) and each episode's token ids recorded as sampled (rollout/episode-tokens.ts). Episodes are played by
 * rollout/runEpisode, so every simulator / judge LLM call is recorded with them.
 */
import type { RunConfig } from "../../../lib/run-config";
import type { Environment } from "../../envs/types";
import type { LlmClient } from "../../llm/client";
import type { DecoderLM } from "../../policy/model";
import { Rng } from "../../policy/rng";
import { BatchedSampler } from "../../policy/batched-sampler";
import { endOfTurnId } from "../../policy/tokenizer/chat-template";
import type { Tokenizer } from "../../policy/tokenizer/types";
import { EpisodeTokens } from "../../rollout/episode-tokens";
import { runEpisode, type EpisodeTrajectory } from "../../rollout/run-episode";
import type { GroupRequest, RolloutSample } from "../types";
import { turnRewardsOf } from "./turn-credit";

export interface PolicySample {
  tokens: number[];
  lossMask: number[];
  /** Multi-turn credit inputs (grpo.turnCredit): per-policy-turn rewards and each token's policy turn. */
  turnRewards: number[] | null;
  tokenTurnIds: number[];
}

export interface GroupPlayer {
  runGroup(req: GroupRequest): Promise<{ samples: RolloutSample<PolicySample>[]; rewardSeconds: number }>;
  /** Policy batching since the last call: mean prompts per generate call (a metric for the run page). */
  takeBatchStats(): { meanBatch: number; batches: number } | null;
}

export function createGroupPlayer(deps: { config: RunConfig; env: Environment; model: DecoderLM; tok: Tokenizer; llm: LlmClient }): GroupPlayer {
  const { config, env, model, tok, llm } = deps;
  const maxPositions = model.config.maxPositions;
  // room for the longest turn, so a prompt cut to this length still leaves maxNewTokens inside the context
  const room = maxPositions - config.rollout.maxNewTokens - 1;
  const sampler = new BatchedSampler(model, {
    maxNewTokens: config.rollout.maxNewTokens,
    temperature: config.rollout.temperature,
    topP: config.rollout.topP,
    stopTokenIds: [endOfTurnId(tok)],
  });
  let reported = sampler.stats();

  async function playOne(req: GroupRequest, i: number): Promise<{ episode: EpisodeTrajectory; tokens: EpisodeTokens }> {
    const tokens = new EpisodeTokens(tok);
    const rng = new Rng(req.seed + i);
    sampler.enter();
    try {
      const episode = await runEpisode({
        env,
        task: req.task,
        maxTurns: config.rollout.maxTurns,
        ctx: { seed: req.seed + i, llm, signal: req.signal },
        policy: async (messages, { turn }) => {
          const sample = await sampler.sample(tokens.prompt(messages).slice(-room), rng);
          tokens.addTurn(sample.tokens, turn, sample.finishReason === "stop", sample.logprobs);
          return { text: tokens.text(sample.tokens), tokens: sample.tokens.length, logProbs: sample.logprobs };
        },
      });
      return { episode, tokens };
    } finally {
      sampler.leave();
    }
  }

  function toSample({ episode: e, tokens }: { episode: EpisodeTrajectory; tokens: EpisodeTokens }): RolloutSample<PolicySample> {
    const responseTokens = e.policyOutputs.reduce((s, p) => s + (p.tokens ?? 0), 0);
    return {
      sample: {
        tokens: tokens.ids.slice(-maxPositions),
        lossMask: tokens.lossMask.slice(-maxPositions),
        turnRewards: turnRewardsOf(e.messages, e.evaluation?.reward ?? null),
        tokenTurnIds: tokens.turnIds.slice(-maxPositions),
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
      },
    };
  }

  return {
    async runGroup(req) {
      const played = await Promise.all(Array.from({ length: req.size }, (_, i) => playOne(req, i)));
      return { samples: played.map(toSample), rewardSeconds: played.reduce((s, p) => s + p.episode.timings.evaluateMs / 1000, 0) };
    },
    takeBatchStats() {
      const now = sampler.stats();
      const batches = now.batches - reported.batches;
      const requests = now.requests - reported.requests;
      reported = now;
      return batches > 0 ? { meanBatch: requests / batches, batches } : null;
    },
  };
}

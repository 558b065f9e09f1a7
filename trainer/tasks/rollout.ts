/**
 * Plays environment episodes with the TF.js policy, all episodes of a batch in lockstep (one batched KV-cache
 * generate call per turn). Token ids are recorded as sampled (rollout/episode-tokens.ts), so the ids and loss mask
 * used for training are exactly what was sampled (no re-tokenisation drift).
 */
import type { ConversationMessage, EpisodeEndReason } from "../../lib/conversation";
import type { Environment, Evaluation, LlmChat, Task } from "../envs/types";
import type { DecoderLM } from "../policy/model";
import { generate } from "../policy/sampling";
import type { Rng } from "../policy/rng";
import type { Tokenizer } from "../policy/tokenizer/types";
import { endOfTurnId } from "../policy/tokenizer/chat-template";
import { EpisodeTokens } from "../rollout/episode-tokens";

export interface RolloutOptions {
  maxTurns: number;
  maxNewTokens: number;
  temperature: number;
  topP?: number;
  rng: Rng;
}

export interface EpisodeRecord {
  taskId: string;
  tokens: number[];
  lossMask: number[];
  /** Sampling log-probs aligned with tokens (0 where lossMask is 0). */
  logprobs: number[];
  messages: ConversationMessage[];
  evaluation: Evaluation;
  endReason: EpisodeEndReason;
  turns: number;
}

/** LlmChat for environments with rule-based simulators: always answers with the request's offline reply. */
export const offlineChat: LlmChat = {
  async chat(req) {
    return { text: req.offline ? await req.offline() : "", callId: "offline" };
  },
};

export async function runEpisodes<T>(
  model: DecoderLM,
  tok: Tokenizer,
  env: Environment<T>,
  tasks: Task<T>[],
  opts: RolloutOptions,
): Promise<EpisodeRecord[]> {
  const eot = endOfTurnId(tok);
  const states = await Promise.all(
    tasks.map(async (task, i) => {
      const episode = env.createEpisode(task, { seed: opts.rng.seed() + i, llm: offlineChat, maxTurns: opts.maxTurns });
      const messages = await episode.reset();
      return { task, episode, messages, tokens: new EpisodeTokens(tok), done: false, turns: 0, endReason: "max_turns" as EpisodeEndReason };
    }),
  );
  const room = model.config.maxPositions - opts.maxNewTokens - 1;
  while (states.some((s) => !s.done)) {
    const live = states.filter((s) => !s.done);
    const prompts = live.map((s) => s.tokens.prompt(s.messages));
    live.forEach((s, i) => {
      if (prompts[i].length <= room) return;
      s.done = true;
      s.endReason = "context_full";
    });
    const playing = live.filter((s) => !s.done);
    if (!playing.length) break;
    const samples = generate(model, playing.map((s) => s.tokens.ids), {
      maxNewTokens: opts.maxNewTokens, temperature: opts.temperature, topP: opts.topP, stopTokenIds: [eot], rng: opts.rng,
    });
    await Promise.all(
      playing.map(async (s, i) => {
        const sample = samples[i];
        s.tokens.addTurn(sample.tokens, s.turns, sample.finishReason === "stop", sample.logprobs);
        const text = s.tokens.text(sample.tokens);
        s.messages.push({ role: "assistant", source: "policy", content: text, turn: s.turns, tokens: sample.tokens.length });
        const res = await s.episode.step(text, s.turns);
        s.turns++;
        s.messages.push(...res.observations);
        if (res.done || s.turns >= opts.maxTurns) {
          s.done = true;
          s.endReason = res.endReason ?? "max_turns";
        }
      }),
    );
  }
  return Promise.all(
    states.map(async (s) => {
      const train = s.tokens.forTraining();
      return {
        taskId: s.task.id, tokens: train.ids, lossMask: train.lossMask, logprobs: train.logprobs, messages: s.messages,
        evaluation: await s.episode.evaluate(s.endReason), endReason: s.endReason, turns: s.turns,
      };
    }),
  );
}

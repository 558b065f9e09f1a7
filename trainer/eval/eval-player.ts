/**
 * Plays one task's k trials with a policy that is not the trainer's sampler (an endpoint, the gold script). Each
 * trial is a real episode (rollout/runEpisode) with the tools offered as schemas; a trial's record carries every
 * LLM call it made — the policy's beside the simulator's and the judge's — and each policy message names the calls
 * that produced it, so the inspector shows them beside the message.
 */
import type { ConversationMessage, LlmCallRecord } from "../../lib/conversation";
import type { RunConfig } from "../../lib/run-config";
import type { Environment, LlmChat } from "../envs/types";
import type { Semaphore } from "../llm/semaphore";
import type { GroupRequest, GroupRollout, RolloutSample } from "../loop/types";
import { runEpisode, type EpisodeTrajectory, type Policy } from "../rollout/run-episode";

export interface TrialPolicy {
  policy: Policy;
  /** The policy's own LLM calls (none for a scripted policy). */
  calls: LlmCallRecord[];
}

export interface EvalPlayerDeps {
  config: RunConfig;
  env: Environment;
  /** Serves the environment's simulator and judge roles. */
  llm: LlmChat;
  /** A fresh policy for one trial (`trial` 0..k−1 of the task). */
  policyFor(trial: number, signal: AbortSignal): TrialPolicy;
  /** Caps episodes in flight across every task (eval.concurrency). */
  episodes: Semaphore;
}

/** The policy calls of each policy turn, named on the message they produced (and its tokens). */
function attachPolicyCalls(messages: ConversationMessage[], calls: readonly LlmCallRecord[]): void {
  for (const m of messages) {
    if (m.source !== "policy") continue;
    const mine = calls.filter((c) => c.turn === m.turn);
    if (mine.length) m.llmCallIds = mine.map((c) => c.id);
  }
}

function toSample(e: EpisodeTrajectory, policyCalls: LlmCallRecord[]): RolloutSample<null> {
  attachPolicyCalls(e.messages, policyCalls);
  const llmCalls = [...e.llmCalls, ...policyCalls].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  return {
    sample: null,
    record: {
      reward: e.evaluation?.reward ?? null,
      components: e.evaluation?.components ?? {},
      reasoning: e.evaluation?.reasoning ?? null,
      status: e.status,
      endReason: e.endReason,
      error: e.error,
      numTurns: e.turns,
      promptTokens: policyCalls.reduce((s, c) => s + (c.error ? 0 : c.promptTokens), 0),
      responseTokens: policyCalls.reduce((s, c) => s + (c.error ? 0 : c.completionTokens), 0),
      conversation: e.messages,
      finalState: e.evaluation?.finalState,
      expectedState: e.evaluation?.expectedState,
      llmCalls,
    },
  };
}

export function createEvalPlayer(deps: EvalPlayerDeps): { runGroup(req: GroupRequest): Promise<GroupRollout<null>> } {
  const { config, env, llm } = deps;
  async function playTrial(req: GroupRequest, trial: number): Promise<{ sample: RolloutSample<null>; evaluateMs: number }> {
    const release = await deps.episodes.acquire();
    try {
      const { policy, calls } = deps.policyFor(trial, req.signal);
      const episode = await runEpisode({
        env,
        task: req.task,
        maxTurns: config.rollout.maxTurns,
        ctx: { seed: req.seed + trial, llm, signal: req.signal, toolPresentation: "schemas" },
        policy,
      });
      return { sample: toSample(episode, calls), evaluateMs: episode.timings.evaluateMs };
    } finally {
      release();
    }
  }
  return {
    async runGroup(req) {
      const played = await Promise.all(Array.from({ length: req.size }, (_, i) => playTrial(req, i)));
      return { samples: played.map((p) => p.sample), rewardSeconds: played.reduce((s, p) => s + p.evaluateMs / 1000, 0) };
    },
  };
}

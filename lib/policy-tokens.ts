/**
 * The policy's own view of one trajectory: the token sequence the GRPO update trained on (the chat template
 * rendered around every message, the policy's sampled replies in between) with what the trainer knew about each
 * token. The conversation view shows what the environment saw; this shows what the policy saw and was trained
 * with. Recorded by the trainer (trainer/rollout, trainer/update), read by the inspector's policy view.
 *
 * Every array is aligned with `ids`. Values exist only for sampled tokens; context tokens hold 0 (or null where
 * 0 would be a real value).
 */
export interface PolicyTokens {
  ids: number[];
  /**
   * Decoded text of each token. A character split over several byte tokens is shown on the token that completes
   * it; the tokens before it get "" (their bytes alone are not text).
   */
  pieces: string[];
  /** 1 = sampled by the policy (trained on), 0 = context (template, system, user, tool, simulator). */
  sampled: number[];
  /** Policy turn of each sampled token (0-based), -1 for context. */
  turns: number[];
  /** The sampler's log-prob of each sampled token; null when the sampler recorded none. */
  logprobs: number[] | null;
  /** Tokens cut from the start of the opening prompt so the episode fitted the policy's context. */
  truncatedPrompt: number;
  /** The policy's context window, in tokens. */
  contextSize: number;
  /** How the prompts were rendered: whose chat template, how tools were given, which tokens stop a reply. */
  chatTemplate?: string;
  /**
   * Where the chat template re-rendered the conversation instead of extending it (it was not prefix-stable, e.g.
   * Qwen3 dropping earlier reasoning): the tokens from each index on were sampled from that new rendering, and each
   * rendering trained as its own sequence. Absent when every prompt extended the one before.
   */
  rerenderedAt?: number[];
  /**
   * With rollout.policyContext "append": prompts (after the opening one) where the chat template would have rendered
   * the conversation otherwise than the context the policy sampled from; the observation's rendered delta was
   * appended instead. Absent when 0 or when re-rendering (rerenderedAt says where then).
   */
  templateDivergedTurns?: number;
  /** What the update did with each token; absent when the step made no update (or the sample was unscored). */
  update?: PolicyTokenUpdate;
}

export interface PolicyTokenUpdate {
  /** The advantage each token was trained with (outcome advantage broadcast, or its turn's credit). */
  advantages: number[];
  /**
   * π_new/π_old at the last update pass that computed this token, null where none did (a zero-advantage row the
   * update could leave out: it carries no gradient). 1 on the first pass over on-policy samples.
   */
  ratio: (number | null)[] | null;
  /** Which branch of the clipped surrogate the token took at that pass (CLIP_CODES). */
  clipped: number[] | null;
  /** Per-token KL to the reference policy (the run's estimator); null without a reference. */
  kl: (number | null)[] | null;
}

/** Clip codes: the trust region did not bind, the PPO clip bound (no gradient), or the dual-clip cap bound. */
export const CLIP_CODES = { none: 0, clipped: 1, dualClipped: 2 } as const;

/** Rounds a per-token value for storage: 5 significant decimals are far below what a heat strip can show. */
export function roundTokenValue(x: number): number {
  return Math.round(x * 1e5) / 1e5;
}

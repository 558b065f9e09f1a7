/**
 * Why an evaluation trial has no score, in words a researcher can act on. "An endpoint or judge failed" was said of
 * every unscored trial, also of τ² tasks whose natural-language assertions no offline scorer can read — a
 * configuration matter, not a failure. Infrastructure failures are told apart because a run whose every trial failed
 * on infrastructure has measured nothing and ends failed (trainer/eval/eval-run.ts).
 */

/** Written into an environment's unscored reasoning when only an LLM judge could score it and none is configured. */
export const NOT_SCORABLE_OFFLINE = "not scorable offline";

export type UnscoredCause = "episode_failed" | "judge_failed" | "needs_judge_endpoint";

export const UNSCORED_CAUSE_TEXT: Record<UnscoredCause, string> = {
  episode_failed: "the episode failed: an endpoint (the policy's, a simulator's) or the environment erred after its retries",
  judge_failed: "the judge or scorer failed: its reply could not be read after its retries",
  needs_judge_endpoint: "not scorable offline: the task's natural-language assertions need a judge endpoint (llm.judge)",
};

/** Causes that are the infrastructure's fault (not the configuration's, not the model's). */
export const INFRASTRUCTURE_CAUSES: ReadonlySet<UnscoredCause> = new Set(["episode_failed", "judge_failed"]);

/** The cause of a stored trial without a reward (null for a scored one). */
export function unscoredCauseOf(t: { reward: number | null; status: string; reasoning?: string | null }): UnscoredCause | null {
  if (t.reward !== null && Number.isFinite(t.reward)) return null;
  if (t.status === "error") return "episode_failed";
  if ((t.reasoning ?? "").includes(NOT_SCORABLE_OFFLINE)) return "needs_judge_endpoint";
  return "judge_failed";
}

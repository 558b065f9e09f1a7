/**
 * Rewards for BFCL multi-turn episodes, following BFCL's multi-turn checker (`multi_turn_checker.py`) and AWorld
 * EnvTuning's reward code (Lu et al., 2025, "Don't Just Fine-tune the Agent, Tune the Environment"; AWorld-RL
 * `env_tuning/format_reward.py`, `bfcl_reward.py`).
 *
 * EnvTuning scores an episode from one code per policy message ("round"): -1 calls executed without error, -2
 * calls of which one failed, -3 a format error, and, for a message that closed a user turn, that turn's verdict
 * 0 or 1 (a turn whose ground truth is empty is passed by answering and failed by calling). From the codes:
 * - format (stages 1-2): is_tool_call × (format_reward + tool_call_reward), in [0, 2], where format_reward is
 *   the share of rounds without a format error, tool_call_reward the share of call rounds without an error, and
 *   is_tool_call whether any call round happened (a policy that never calls scores 0);
 * - progress (stage 3): the mean of the turn verdicts, each as EnvTuning's score calculator gives it when the turn
 *   closes (envtuning-turn-score.ts: a turn without a call scores 0 and its ground truth is skipped too).
 * BFCL's own verdicts are reported beside them: state (after the last turn every involved class's public state
 * equals the ground truth's), response (each turn's ground-truth results appear among the model's results so
 * far), turn_success (both, and at least one call where the ground truth has calls), and bfcl_valid: every turn
 * with ground-truth calls succeeded (BFCL's checker skips turns whose ground truth is empty) — the "binary" mode.
 */

/** EnvTuning's per-round codes (`user_turn_rewards`). */
export const ROUND_CALLS_OK = -1;
export const ROUND_CALLS_ERROR = -2;
export const ROUND_FORMAT_ERROR = -3;

export interface TurnRecord {
  /** Execution results of the model's calls in this turn. */
  modelResults: string[];
  /** Canonical state per class at the end of the turn (model). */
  modelState: Record<string, string>;
  /** Ground truth of the same turn. */
  gtCalls: number;
  gtResults: string[];
  gtState: Record<string, string>;
}

export type BfclRewardMode = "format" | "progress" | "binary";

/** True when every item of `needed` can be matched to a distinct item of `have` (order ignored). */
export function containsAll(have: string[], needed: string[]): { ok: boolean; missing: string[] } {
  const pool = [...have];
  const missing: string[] = [];
  for (const item of needed) {
    const i = pool.indexOf(item);
    if (i < 0) missing.push(item);
    else pool.splice(i, 1);
  }
  return { ok: missing.length === 0, missing };
}

export interface TurnVerdict {
  /** The ground truth has calls and the model made none this turn. */
  emptyTurn: boolean;
  stateOk: boolean;
  responseOk: boolean;
  success: boolean;
  differingClasses: string[];
  missing: string[];
}

export function judgeTurns(turns: TurnRecord[]): TurnVerdict[] {
  const cumulative: string[] = [];
  return turns.map((t) => {
    cumulative.push(...t.modelResults);
    const differing = Object.keys(t.gtState).filter((cls) => t.modelState[cls] !== t.gtState[cls]);
    const response = containsAll(cumulative, t.gtResults);
    // A turn with ground-truth calls where the model called nothing fails outright (BFCL: empty turn response).
    const emptyTurn = t.gtCalls > 0 && t.modelResults.length === 0;
    const stateOk = differing.length === 0;
    return {
      emptyTurn,
      stateOk,
      responseOk: response.ok,
      success: stateOk && response.ok && !emptyTurn,
      differingClasses: differing,
      missing: response.missing,
    };
  });
}

export interface BfclScore {
  reward: number;
  components: Record<string, number>;
  reasoning: string;
}

/** EnvTuning's `format_reward.py` and `bfcl_reward.py` figures from the round codes. */
export function envTuningScores(codes: number[]) {
  const count = (c: number) => codes.filter((x) => x === c).length;
  const ok = count(ROUND_CALLS_OK);
  const failed = count(ROUND_CALLS_ERROR);
  const isToolCall = ok + failed > 0 ? 1 : 0;
  const formatReward = codes.length > 0 ? (codes.length - count(ROUND_FORMAT_ERROR)) / codes.length : 0;
  const toolCallReward = isToolCall ? ok / (ok + failed) : 0;
  const verdicts = codes.filter((c) => c === 0 || c === 1);
  const progress = verdicts.length ? verdicts.reduce((a: number, b) => a + b, 0) / verdicts.length : 0;
  return { format: isToolCall * (formatReward + toolCallReward), formatReward, toolCallReward, isToolCall, progress };
}

export function scoreBfcl(turns: TurnRecord[], codes: number[], mode: BfclRewardMode): BfclScore {
  const verdicts = judgeTurns(turns);
  // BFCL's checker skips turns whose ground truth is empty (the model should have asked, not called).
  const checked = verdicts.filter((_, i) => turns[i].gtCalls > 0);
  const lastChecked = [...verdicts.keys()].filter((i) => turns[i].gtCalls > 0).at(-1);
  const mean = (xs: boolean[]) => (xs.length === 0 ? 1 : xs.filter(Boolean).length / xs.length);
  const env = envTuningScores(codes);
  const components: Record<string, number> = {
    format: env.format,
    format_reward: env.formatReward,
    tool_call_reward: env.toolCallReward,
    is_tool_call: env.isToolCall,
    progress: env.progress,
    state: lastChecked === undefined || verdicts[lastChecked].stateOk ? 1 : 0,
    response: mean(checked.map((v) => v.responseOk)),
    turn_success: mean(checked.map((v) => v.success)),
    bfcl_valid: checked.every((v) => v.success) ? 1 : 0,
  };
  const reward = mode === "format" ? components.format : mode === "binary" ? components.bfcl_valid : components.progress;
  const notes = verdicts.map((v, i) => {
    if (turns[i].gtCalls === 0) return `turn ${i}: no ground-truth calls (not state-checked)`;
    if (v.success) return `turn ${i}: ok`;
    const why = [
      v.stateOk ? "" : `state differs in ${v.differingClasses.join(", ")}`,
      v.responseOk ? "" : `missing results ${v.missing.map((m) => JSON.stringify(m.slice(0, 80))).join(", ")}`,
      v.stateOk && v.responseOk ? "no call made" : "",
    ].filter(Boolean);
    return `turn ${i}: ${why.join("; ")}`;
  });
  const formatErrors = codes.filter((c) => c === ROUND_FORMAT_ERROR).length;
  return {
    reward,
    components,
    reasoning:
      `reward mode ${mode}; ${codes.length} rounds (${formatErrors} format errors), round codes [${codes.join(", ")}]; ` +
      `format ${env.format.toFixed(3)} = is_tool_call ${env.isToolCall} × (format ${env.formatReward.toFixed(3)} + tool calls ${env.toolCallReward.toFixed(3)}); ` +
      `progress ${env.progress.toFixed(3)}. ${notes.join(". ")}`,
  };
}

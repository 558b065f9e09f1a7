/**
 * A user turn's 0 / 1 as EnvTuning's `ScoreCalculator.calculate_turn_score` gives it when the turn closes (AWorld-RL
 * env_tuning/interaction/score_calculator.py), the verdicts its `progress` reward averages:
 * - a turn in which the policy made no call that decoded scores 0 *before* anything runs, so its ground truth is not
 *   executed either: the ground-truth instances skip that turn as the policy's did, and later turns can still pass;
 * - otherwise the turn's ground truth runs on the ground-truth instances (which persist across the turns executed so
 *   far), and the turn passes when every involved class's state equals the policy's and the turn's ground-truth results
 *   are among all the policy's results so far.
 * gorilla's checker (bfcl-reward.ts `judgeTurns`, the "binary" mode) instead runs every turn's ground truth, so after
 * a skipped turn every later state differs: multi_turn_base_2 with its first turn answered without calls has EnvTuning
 * progress 0.8 where that reading gives 0.
 */
import type { BfclTaskData } from "./bfcl-format";
import { containsAll } from "./bfcl-reward";
import { parsePythonCalls } from "./call-syntax";
import { runtimeForEntry, type BfclRuntime, type RuntimeOptions } from "./runtime";

export class EnvTuningTurnScorer {
  private readonly groundTruth: BfclRuntime;

  constructor(
    private readonly task: BfclTaskData,
    messages: RuntimeOptions["messages"],
  ) {
    this.groundTruth = runtimeForEntry(task, messages);
  }

  /**
   * The verdict of turn `turn` (whose ground truth has calls), given whether the policy made a decoded call in it, the
   * policy's runtime and every result the policy's calls gave so far, this turn's included.
   */
  verdict(turn: number, madeCalls: boolean, model: BfclRuntime, modelResults: readonly string[]): 0 | 1 {
    if (!madeCalls) return 0;
    const gtResults = this.task.groundTruth[turn].flatMap((c) => parsePythonCalls(c)).map((c) => this.groundTruth.execute(c).result);
    const gtStates = this.groundTruth.stateStrings();
    const modelStates = model.stateStrings();
    if (Object.keys(gtStates).some((cls) => modelStates[cls] !== gtStates[cls])) return 0;
    return containsAll([...modelResults], gtResults).ok ? 1 : 0;
  }
}

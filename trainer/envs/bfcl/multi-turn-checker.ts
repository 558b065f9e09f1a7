/**
 * gorilla's `multi_turn_checker` on a whole model output: the model's calls and the ground truth are executed turn
 * by turn on their own API instances; the first turn with ground-truth calls that fails decides, in gorilla's order
 * of checks (no call made → state of every involved class → the turn's ground-truth results among all the model's
 * results so far). Turns whose ground truth is empty are executed but not checked. The episode computes the same
 * per-turn verdicts as it goes (bfcl-episode.ts); this entry point replays a finished output, as gorilla's
 * evaluation does, and is what the parity fixtures are checked with.
 */
import type { BfclTaskData } from "./bfcl-format";
import { judgeTurns, type TurnRecord } from "./bfcl-reward";
import { runGroundTruth } from "./bfcl-episode";
import { parsePythonCalls } from "./call-syntax";
import { runtimeForEntry } from "./runtime";

export type MultiTurnErrorType =
  "multi_turn:empty_turn_model_response" | "multi_turn:instance_state_mismatch" | "multi_turn:execution_response_mismatch";

export interface MultiTurnVerdict {
  valid: boolean;
  errorType: MultiTurnErrorType | null;
  /** The turn that failed. */
  turn: number | null;
}

/** `modelTurns[t]` is turn t's model steps, each a list of call strings in BFCL's Python syntax. */
export function checkMultiTurn(task: BfclTaskData, modelTurns: string[][][]): MultiTurnVerdict {
  const rt = runtimeForEntry(task);
  const gt = runGroundTruth(task);
  const records: TurnRecord[] = task.groundTruth.map((calls, t) => {
    const modelResults = (modelTurns[t] ?? [])
      .flat()
      .flatMap((c) => parsePythonCalls(c))
      .map((call) => rt.execute(call).result);
    return { modelResults, modelState: rt.stateStrings(), gtCalls: calls.length, gtResults: gt.results[t], gtState: gt.states[t] };
  });
  const verdicts = judgeTurns(records);
  for (const [t, v] of verdicts.entries()) {
    if (records[t].gtCalls === 0 || v.success) continue;
    const errorType = v.emptyTurn
      ? "multi_turn:empty_turn_model_response"
      : !v.stateOk
        ? "multi_turn:instance_state_mismatch"
        : "multi_turn:execution_response_mismatch";
    return { valid: false, errorType, turn: t };
  }
  return { valid: true, errorType: null, turn: null };
}

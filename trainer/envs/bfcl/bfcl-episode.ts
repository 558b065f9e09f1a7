/**
 * One BFCL multi-turn episode. The dataset's user turns are presented in order; within a turn the policy makes
 * function calls (JSON tool calls or BFCL's Python syntax `[cd(folder='x'), ls()]`), each executed against the
 * episode's API instances with the result returned as a tool observation, and ends the turn with a plain-text
 * reply; then the next user turn follows. After the last turn the episode is done. Ground truth is executed on
 * fresh instances turn by turn (shared per task, see `GroundTruthRun`) for the state and response checks.
 */
import type { ConversationMessage } from "../../../lib/conversation";
import type { Episode, EpisodeContext, StepResult } from "../types";
import { formatErrorObservation, formatToolsPrompt, parsePolicyAction, type ToolPromptStyle } from "../parse";
import { BfclRuntime } from "./runtime";
import { CallSyntaxError, parsePythonCalls, type PyCall } from "./call-syntax";
import type { BfclTaskData } from "./bfcl-format";
import { judgeTurns, scoreBfcl, type BfclRewardMode, type TurnRecord } from "./bfcl-reward";

/** BFCL's inference loop stops a turn after 20 model steps; so do we (then the turn counts as answered). */
export const MAX_STEPS_PER_TURN = 20;

export interface GroundTruthRun {
  results: string[][];
  states: Record<string, string>[];
  finalState: Record<string, unknown>;
}

export function runGroundTruth(task: BfclTaskData): GroundTruthRun {
  const rt = new BfclRuntime(task.involvedClasses, task.initialConfig);
  const results: string[][] = [];
  const states: Record<string, string>[] = [];
  for (const turn of task.groundTruth) {
    results.push(turn.flatMap((c) => parsePythonCalls(c)).map((call) => rt.execute(call).result));
    states.push(rt.stateStrings());
  }
  return { results, states, finalState: rt.state() };
}

export interface BfclEpisodeDeps {
  groundTruth: () => GroundTruthRun;
  toolStyle: ToolPromptStyle;
  rewardMode: BfclRewardMode;
}

const LOOKS_LIKE_CALL = /^\s*(?:```(?:python|py)?\s*)?\[?\s*[A-Za-z_][\w.]*\s*\(/;

type Parsed = { kind: "calls"; calls: (PyCall & { id: string })[] } | { kind: "reply"; text: string } | { kind: "error"; obs: ConversationMessage };

function parseTurn(text: string, turn: number): Parsed {
  const parsed = parsePolicyAction(text, { idPrefix: `t${turn}_call_` });
  if (parsed.ok && parsed.action.kind === "tool_calls") {
    return { kind: "calls", calls: parsed.action.calls.map((c) => ({ id: c.id, name: c.name, positional: [], keywords: c.arguments })) };
  }
  if (parsed.ok && parsed.action.kind === "action" && parsed.action.call) {
    const c = parsed.action.call;
    return { kind: "calls", calls: [{ id: c.id, name: c.name, positional: [], keywords: c.arguments }] };
  }
  const body = parsed.ok ? text.replace(/<think>[\s\S]*?<\/think>/gi, "").trim() : text.trim();
  if (LOOKS_LIKE_CALL.test(body)) {
    try {
      return { kind: "calls", calls: parsePythonCalls(body).map((c, i) => ({ ...c, id: `t${turn}_call_${i}` })) };
    } catch (e) {
      const message = e instanceof CallSyntaxError ? e.message : String(e);
      return {
        kind: "error",
        obs: formatErrorObservation({ code: "invalid_json", message: `The function call could not be parsed: ${message}.`, snippet: body.slice(0, 200) }, turn),
      };
    }
  }
  if (!parsed.ok) return { kind: "error", obs: formatErrorObservation(parsed.error, turn) };
  const a = parsed.action;
  const reply = a.kind === "message" ? a.text : a.kind === "answer" ? a.answer : a.kind === "finish" ? a.text : a.kind === "search" ? a.query : a.kind === "action" ? a.content : "";
  return { kind: "reply", text: reply };
}

export function bfclSystemPrompt(task: BfclTaskData, style: ToolPromptStyle): string {
  return [
    "You are an expert in composing functions. You are given a question and a set of possible functions; make one or more function calls to achieve the purpose.",
    "Call functions with the format below, or write them in Python syntax, e.g. [func_name1(param=value), func_name2(param=value)].",
    "After the calls of a request are done, reply to the user in plain text (no call) to finish that request.",
    formatToolsPrompt(task.tools, style),
  ].join("\n\n");
}

export function createBfclEpisode(task: BfclTaskData, ctx: EpisodeContext, deps: BfclEpisodeDeps): Episode {
  const rt = new BfclRuntime(task.involvedClasses, task.initialConfig);
  const records: { modelResults: string[]; modelState: Record<string, string> | null }[] = task.turns.map(() => ({ modelResults: [], modelState: null }));
  let userTurn = 0;
  let stepsInTurn = 0;
  const format = { messages: 0, malformed: 0 };

  const userMessages = (t: number, turn: number): ConversationMessage[] =>
    // The user turns are the dataset's own instructions, not a simulator's: attributed to "system".
    task.turns[t].map((m) => ({ role: "user", source: "system", content: m.content, turn }));

  const turnRecords = (): TurnRecord[] => {
    const gt = deps.groundTruth();
    const live = rt.stateStrings();
    return task.turns.map((_, t) => ({
      modelResults: records[t].modelResults,
      // A turn never closed (episode cut short) is judged on the state reached so far.
      modelState: records[t].modelState ?? live,
      gtCalls: task.groundTruth[t].length,
      gtResults: gt.results[t],
      gtState: gt.states[t],
    }));
  };

  /** Closes the current user turn; its per-turn verdict is the turn reward (EnvTuning's fine-grained signal). */
  const closeTurn = (turn: number, notice?: string): StepResult => {
    records[userTurn].modelState = rt.stateStrings();
    const verdict = judgeTurns(turnRecords().slice(0, userTurn + 1))[userTurn];
    userTurn += 1;
    stepsInTurn = 0;
    const observations: ConversationMessage[] = notice ? [{ role: "user", source: "environment", content: notice, turn }] : [];
    const turnReward = verdict.success ? 1 : 0;
    if (userTurn >= task.turns.length) return { observations, turnReward, done: true, endReason: "agent_finished" };
    observations.push(...userMessages(userTurn, turn));
    return finish({ observations, turnReward, done: false }, turn);
  };

  const finish = (r: StepResult, turn: number): StepResult => (!r.done && turn + 1 >= ctx.maxTurns ? { ...r, done: true, endReason: "max_turns" } : r);

  return {
    async reset() {
      return [{ role: "system", source: "system", content: bfclSystemPrompt(task, deps.toolStyle), turn: 0 }, ...userMessages(0, 0)];
    },

    async step(policyText, turn) {
      format.messages += 1;
      stepsInTurn += 1;
      const parsed = parseTurn(policyText, turn);
      if (parsed.kind === "error") {
        format.malformed += 1;
        return finish({ observations: [parsed.obs], done: false }, turn);
      }
      if (parsed.kind === "reply") return closeTurn(turn);
      const observations: ConversationMessage[] = parsed.calls.map((call) => {
        const ex = rt.execute(call);
        records[userTurn].modelResults.push(ex.result);
        return { role: "tool", source: "tool", content: ex.result, turn, toolCallId: call.id, name: call.name };
      });
      if (stepsInTurn >= MAX_STEPS_PER_TURN) {
        const closed = closeTurn(turn, `Step limit of ${MAX_STEPS_PER_TURN} calls for this request reached; moving on.`);
        return { ...closed, observations: [...observations, ...closed.observations] };
      }
      return finish({ observations, done: false }, turn);
    },

    async evaluate() {
      const score = scoreBfcl(turnRecords(), format, deps.rewardMode);
      return {
        reward: score.reward,
        components: score.components,
        reasoning: `${task.entryId}: ${score.reasoning}`,
        finalState: rt.state(),
        expectedState: deps.groundTruth().finalState,
      };
    },
  };
}

/**
 * One BFCL multi-turn episode. The dataset's user turns are presented in order; within a turn the policy makes
 * function calls, each executed against the episode's API instances, and ends the turn with an answer; then the
 * next user turn follows. After the last turn the episode is done. Two protocols (`BfclProtocol`): EnvTuning's
 * (the default: `<think>` + `<tool_call>` JSON / `<answer>`, results as one user message, 5 attempts per turn)
 * and gorilla's (JSON tool calls or BFCL's Python syntax `[cd(folder='x'), ls()]`, results as tool messages, a
 * plain-text reply closes the turn). Ground truth is executed on
 * fresh instances turn by turn (shared per task, see `GroundTruthRun`) for the state and response checks.
 */
import type { ConversationMessage } from "../../../lib/conversation";
import type { Episode, EpisodeContext, StepResult } from "../types";
import {
  formatErrorObservation,
  formatToolsPrompt,
  readPolicyAction,
  textWithToolCalls,
  type StructuredToolCall,
  type ToolPromptStyle,
  type ToolSchema,
} from "../parse";
import { runtimeForEntry, type RuntimeOptions } from "./runtime";
import { CallSyntaxError, parsePythonCalls, type PyCall } from "./call-syntax";
import type { BfclTaskData } from "./bfcl-format";
import { ROUND_CALLS_ERROR, ROUND_CALLS_OK, ROUND_FORMAT_ERROR, scoreBfcl, type BfclRewardMode, type TurnRecord } from "./bfcl-reward";
import { EnvTuningTurnScorer } from "./envtuning-turn-score";
import {
  callsInAnswer,
  EMPTY_TURN_CALL_WARNING,
  ENVTUNING_FORMAT_INSTRUCTIONS,
  ENVTUNING_MAX_STEPS_PER_TURN,
  executionFeedback,
  parseEnvTuningResponse,
} from "./envtuning-format";

/** gorilla's BFCL inference loop stops a turn after 20 model steps (then the turn counts as answered). */
export const MAX_STEPS_PER_TURN = 20;

export interface GroundTruthRun {
  results: string[][];
  states: Record<string, string>[];
  finalState: Record<string, unknown>;
}

/** The protocol's tool messages: EnvTuning trains on its own reworded copy of the API classes. */
export const messagesOf = (protocol: BfclProtocol): RuntimeOptions["messages"] => (protocol === "envtuning" ? "envtuning" : "gorilla");

export function runGroundTruth(task: BfclTaskData, messages: RuntimeOptions["messages"] = "gorilla"): GroundTruthRun {
  const rt = runtimeForEntry(task, messages);
  const results: string[][] = [];
  const states: Record<string, string>[] = [];
  for (const turn of task.groundTruth) {
    results.push(turn.flatMap((c) => parsePythonCalls(c)).map((call) => rt.execute(call).result));
    states.push(rt.stateStrings());
  }
  return { results, states, finalState: rt.state() };
}

/**
 * "envtuning": AWorld EnvTuning's interaction — `<think>` + `<tool_call>`/`<answer>` messages, at most 5 attempts
 * per user turn, its feedback texts. "bfcl": gorilla's inference loop — calls as JSON or BFCL's Python syntax, a
 * plain-text reply closes the turn, at most 20 steps per turn.
 */
export type BfclProtocol = "envtuning" | "bfcl";

export interface BfclEpisodeDeps {
  groundTruth: () => GroundTruthRun;
  toolStyle: ToolPromptStyle;
  rewardMode: BfclRewardMode;
  protocol: BfclProtocol;
  /** Whose API classes run (default: the protocol's; the ground truth must run on the same). */
  apis?: BfclProtocol;
}

const LOOKS_LIKE_CALL = /^\s*(?:```(?:python|py)?\s*)?\[?\s*[A-Za-z_][\w.]*\s*\(/;

type Parsed =
  { kind: "calls"; calls: (PyCall & { id: string })[] } | { kind: "reply"; text: string } | { kind: "error"; obs: ConversationMessage };

function parseTurn(text: string, turn: number, toolCalls?: readonly StructuredToolCall[]): Parsed {
  const parsed = readPolicyAction(text, toolCalls, { idPrefix: `t${turn}_call_` });
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
        obs: formatErrorObservation(
          { code: "invalid_json", message: `The function call could not be parsed: ${message}.`, snippet: body.slice(0, 200) },
          turn,
        ),
      };
    }
  }
  if (!parsed.ok) return { kind: "error", obs: formatErrorObservation(parsed.error, turn) };
  const a = parsed.action;
  const reply =
    a.kind === "message"
      ? a.text
      : a.kind === "answer"
        ? a.answer
        : a.kind === "finish"
          ? a.text
          : a.kind === "search"
            ? a.query
            : a.kind === "action"
              ? a.content
              : "";
  return { kind: "reply", text: reply };
}

/** The policy's system prompt; `style` null (gorilla's protocol only) leaves the tools to the schemas. */
export function bfclSystemPrompt(task: BfclTaskData, style: ToolPromptStyle | null, protocol: BfclProtocol = "bfcl"): string {
  const intro =
    "You are an expert in composing functions. You are given a question and a set of possible functions; make one or more function calls to achieve the purpose.";
  if (protocol === "envtuning") return [intro, ENVTUNING_FORMAT_INSTRUCTIONS, formatToolsPrompt(task.tools, "json")].join("\n\n");
  if (style === null)
    return [intro, "After the calls of a request are done, reply to the user in plain text (no call) to finish that request."].join("\n\n");
  return [
    intro,
    "Call functions with the format below, or write them in Python syntax, e.g. [func_name1(param=value), func_name2(param=value)].",
    "After the calls of a request are done, reply to the user in plain text (no call) to finish that request.",
    formatToolsPrompt(task.tools, style),
  ].join("\n\n");
}

export function createBfclEpisode(task: BfclTaskData, ctx: EpisodeContext, deps: BfclEpisodeDeps): Episode {
  const classes = messagesOf(deps.apis ?? deps.protocol);
  const rt = runtimeForEntry(task, classes);
  const records: { modelResults: string[]; modelState: Record<string, string> | null }[] = task.turns.map(() => ({
    modelResults: [],
    modelState: null,
  }));
  const envTuning = deps.protocol === "envtuning";
  // EnvTuning's protocol is its own text; gorilla's function-calling mode takes the tools as schemas.
  const toolsAsSchemas = ctx.toolPresentation === "schemas" && !envTuning;
  const maxStepsPerTurn = envTuning ? ENVTUNING_MAX_STEPS_PER_TURN : MAX_STEPS_PER_TURN;
  let userTurn = 0;
  let stepsInTurn = 0;
  /** EnvTuning's per-message codes (see bfcl-reward.ts): what its format and progress rewards are computed from. */
  const codes: number[] = [];
  const scorer = new EnvTuningTurnScorer(task, classes);
  /** Whether the policy made a call that decoded in the current user turn (EnvTuning scores a turn without one 0). */
  let calledThisTurn = false;

  const userMessages = (t: number, turn: number, prefix = ""): ConversationMessage[] =>
    // The user turns are the dataset's own instructions, not a simulator's: attributed to "system".
    task.turns[t].map((m, i) => ({ role: "user", source: "system", content: i === 0 ? prefix + m.content : m.content, turn }));

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

  const finish = (r: StepResult, turn: number): StepResult =>
    !r.done && turn + 1 >= ctx.maxTurns ? { ...r, done: true, endReason: "max_turns" } : r;

  /**
   * Closes the current user turn with its verdict as the turn reward (EnvTuning's fine-grained signal): EnvTuning's
   * turn score (envtuning-turn-score.ts), or for a turn whose ground truth is empty, 1 when the policy answered and 0
   * when it called.
   */
  const closeTurn = (turn: number, opts: { notice?: string; emptyTurnVerdict?: 0 | 1; prefix?: string } = {}): StepResult => {
    records[userTurn].modelState = rt.stateStrings();
    const verdict =
      task.groundTruth[userTurn].length === 0
        ? (opts.emptyTurnVerdict ?? 0)
        : scorer.verdict(
            userTurn,
            calledThisTurn,
            rt,
            records.flatMap((r) => r.modelResults),
          );
    codes.push(verdict);
    userTurn += 1;
    stepsInTurn = 0;
    calledThisTurn = false;
    const observations: ConversationMessage[] = opts.notice ? [{ role: "user", source: "environment", content: opts.notice, turn }] : [];
    if (userTurn >= task.turns.length) {
      // EnvTuning still returns its warning, followed by the next question — "" after the last turn.
      if (opts.prefix) observations.push({ role: "user", source: "environment", content: opts.prefix, turn });
      return { observations, turnReward: verdict, done: true, endReason: "agent_finished" };
    }
    observations.push(...userMessages(userTurn, turn, opts.prefix));
    return finish({ observations, turnReward: verdict, done: false }, turn);
  };

  const execute = (calls: (Pick<PyCall, "name" | "positional" | "keywords"> & { id: string })[]) => {
    calledThisTurn = true;
    const results = calls.map((call) => rt.execute(call).result);
    records[userTurn].modelResults.push(...results);
    const failed = results.some((r) => r.startsWith("Error during execution:"));
    return { results, failed };
  };

  /** EnvTuning's interaction (AWorld-RL `new_multi_turn_fc.py`), message by message. */
  function stepEnvTuning(policyText: string, turn: number): StepResult {
    const parsed = parseEnvTuningResponse(policyText);
    const emptyGroundTruth = task.groundTruth[userTurn].length === 0;
    if (parsed.kind === "error") {
      stepsInTurn += 1;
      // Past the attempt limit EnvTuning moves on to the next question without showing this message's error.
      if (stepsInTurn > maxStepsPerTurn) return closeTurn(turn);
      codes.push(ROUND_FORMAT_ERROR);
      return finish(
        {
          observations: [{ role: "user", source: "environment", content: parsed.message, turn, formatError: parsed.message }],
          done: false,
        },
        turn,
      );
    }
    if (emptyGroundTruth) {
      // Nothing may be called in this turn: answering passes it, calling fails it and the calls are not executed.
      if (parsed.kind === "answer") return closeTurn(turn, { emptyTurnVerdict: 1 });
      return closeTurn(turn, { emptyTurnVerdict: 0, prefix: EMPTY_TURN_CALL_WARNING });
    }
    // An answer that is a JSON call list is run like a <tool_call> (EnvTuning decodes every reply on such a turn).
    const decoded = parsed.kind === "answer" ? callsInAnswer(parsed.text) : parsed.calls;
    if (!decoded || decoded.length === 0) return closeTurn(turn);
    const calls = decoded.map((c, i) => ({ id: `t${turn}_call_${i}`, name: c.name, positional: [], keywords: c.arguments }));
    const { results, failed } = execute(calls);
    stepsInTurn += 1;
    if (stepsInTurn > maxStepsPerTurn) return closeTurn(turn);
    codes.push(failed ? ROUND_CALLS_ERROR : ROUND_CALLS_OK);
    // EnvTuning returns the results as one user message; its author is the tools.
    return finish({ observations: [{ role: "user", source: "tool", content: executionFeedback(results), turn }], done: false }, turn);
  }

  /** gorilla's inference loop: calls in JSON or Python syntax, a plain reply closes the turn. */
  function stepBfcl(policyText: string, turn: number, toolCalls?: readonly StructuredToolCall[]): StepResult {
    stepsInTurn += 1;
    const parsed = parseTurn(policyText, turn, toolCalls);
    if (parsed.kind === "error") {
      codes.push(ROUND_FORMAT_ERROR);
      return finish({ observations: [parsed.obs], done: false }, turn);
    }
    if (parsed.kind === "reply") return closeTurn(turn, { emptyTurnVerdict: 1 });
    const { results, failed } = execute(parsed.calls);
    const observations: ConversationMessage[] = parsed.calls.map((call, i) => ({
      role: "tool",
      source: "tool",
      content: results[i],
      turn,
      toolCallId: call.id,
      name: call.name,
    }));
    if (stepsInTurn >= maxStepsPerTurn) {
      const closed = closeTurn(turn, { notice: `Step limit of ${maxStepsPerTurn} calls for this request reached; moving on.` });
      return { ...closed, observations: [...observations, ...closed.observations] };
    }
    codes.push(failed ? ROUND_CALLS_ERROR : ROUND_CALLS_OK);
    return finish({ observations, done: false }, turn);
  }

  return {
    async reset() {
      return [
        {
          role: "system",
          source: "system",
          content: bfclSystemPrompt(task, toolsAsSchemas ? null : deps.toolStyle, deps.protocol),
          turn: 0,
        },
        ...userMessages(0, 0),
      ];
    },

    tools(): ToolSchema[] {
      if (!toolsAsSchemas) return [];
      // miss_func: a held-back function joins the list from the turn that reveals it.
      const revealed = Object.entries(task.revealedTools ?? {}).flatMap(([t, tools]) => (Number(t) <= userTurn ? tools : []));
      return [...task.tools, ...revealed];
    },

    async step(policyText, turn, toolCalls) {
      return envTuning ? stepEnvTuning(textWithToolCalls(policyText, toolCalls), turn) : stepBfcl(policyText, turn, toolCalls);
    },

    async evaluate() {
      const score = scoreBfcl(turnRecords(), codes, deps.rewardMode);
      return {
        reward: score.reward,
        components: score.components,
        reasoning: `${task.entryId} (${deps.protocol} protocol): ${score.reasoning}`,
        finalState: rt.state(),
        expectedState: deps.groundTruth().finalState,
      };
    },
  };
}

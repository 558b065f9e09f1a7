/**
 * One τ² retail conversation: the policy (agent) talks to a simulated customer and calls retail tools against a
 * private deep copy of the database. As in τ², a tool call and a message are separate turns; the episode ends when
 * the customer says ###STOP### / ###TRANSFER###, when the agent transfers to a human, or after `maxTurns` (20).
 */
import type { ConversationMessage, EpisodeEndReason, ToolCall } from "../../../lib/conversation";
import type { Episode, EpisodeContext, StepResult } from "../types";
import { formatErrorObservation, formatToolsPrompt, parsePolicyAction, type ToolPromptStyle } from "../parse";
import { digestRecords, forkDb, pickRecords, sameDatabase, touchedIds, type RetailDb, type WorkingDb } from "./retail-db";
import { runRetailTool } from "./retail-tools";
import { RETAIL_TOOL_SCHEMAS } from "./retail-tool-schemas";
import type { Tau2TaskData } from "./tau2-format";
import { applyTau2StopRule, communicateChecks, evaluateTau2, type Tau2Trace } from "./tau2-reward";
import { Tau2UserSimulator } from "./user-simulator";
import type { UserStrategy } from "./user-prompts";

export const TAU2_MAX_TURNS = 20;

/** The database after replaying the gold actions on a fresh copy (failed gold calls change nothing, as in τ²). */
export function replayGoldActions(initial: RetailDb, task: Tau2TaskData): WorkingDb {
  const expected = forkDb(initial);
  for (const a of task.actions) runRetailTool(expected, a.name, a.arguments);
  return expected;
}

export interface Tau2EpisodeDeps {
  /** Shared and never mutated; the episode clones it. */
  initialDb: RetailDb;
  policy: string;
  strategy: UserStrategy;
  toolStyle: ToolPromptStyle;
  maxTurns: number;
  expected: () => WorkingDb;
}

function systemPrompt(policy: string, style: ToolPromptStyle): string {
  return [
    "You are a customer service agent of an online retail store. Help the customer following the policy below.",
    "Each turn, either call exactly one tool or send one message to the customer — never both.",
    `# Policy\n${policy.trim()}`,
    `# Tools\n${formatToolsPrompt(RETAIL_TOOL_SCHEMAS, style)}`,
  ].join("\n\n");
}

export function createTau2Episode(task: Tau2TaskData, ctx: EpisodeContext, deps: Tau2EpisodeDeps): Episode {
  const db = forkDb(deps.initialDb);
  const user = new Tau2UserSimulator(task.scenario, deps.strategy, ctx.llm);
  const trace: Tau2Trace = { toolCalls: [], agentMessages: [] };
  const maxTurns = Math.min(deps.maxTurns, ctx.maxTurns);
  const goldWrites = task.actions.some((a) => !a.name.startsWith("get_") && !a.name.startsWith("find_") && a.name !== "calculate" && a.name !== "transfer_to_human_agents");
  const dbMatchesExpected = (): boolean => sameDatabase(db, deps.expected());

  /** What the offline customer may know: the goal is reached only when nothing is left for the agent to do. */
  const goalMet = (): boolean => {
    const said = communicateChecks(task.communicateInfo, trace.agentMessages).every((c) => c.met);
    if (!said) return false;
    if (goldWrites) return trace.toolCalls.length > 0 && dbMatchesExpected();
    return task.communicateInfo.length > 0 && dbMatchesExpected();
  };

  const finish = (observations: ConversationMessage[], turn: number, done: boolean, endReason?: EpisodeEndReason): StepResult => {
    if (!done && turn + 1 >= maxTurns) return { observations, done: true, endReason: "max_turns" };
    return done ? { observations, done, endReason } : { observations, done: false };
  };

  async function runCalls(calls: ToolCall[], turn: number): Promise<StepResult> {
    const observations: ConversationMessage[] = [];
    let transferred = false;
    for (const call of calls) {
      const outcome = runRetailTool(db, call.name, call.arguments);
      trace.toolCalls.push({ name: call.name, arguments: call.arguments });
      if (call.name === "transfer_to_human_agents" && outcome.ok) transferred = true;
      observations.push({ role: "tool", source: "tool", content: outcome.content, turn, toolCallId: call.id, name: call.name });
    }
    return finish(observations, turn, transferred, transferred ? "env_terminal" : undefined);
  }

  async function talk(text: string, turn: number): Promise<StepResult> {
    trace.agentMessages.push(text);
    const reply = await user.reply(text, { goalMet: goalMet() }, turn);
    const obs: ConversationMessage = { role: "user", source: "user_simulator", content: reply.text, turn, llmCallIds: reply.callIds };
    if (reply.ending === "stop") return finish([obs], turn, true, "user_done");
    if (reply.ending === "transfer") return finish([obs], turn, true, "env_terminal");
    return finish([obs], turn, false);
  }

  return {
    async reset() {
      const opening = await user.opening(0);
      return [
        { role: "system", source: "system", content: systemPrompt(deps.policy, deps.toolStyle), turn: 0 },
        { role: "user", source: "user_simulator", content: opening.text, turn: 0, llmCallIds: opening.callIds },
      ];
    },

    async step(policyText, turn) {
      const parsed = parsePolicyAction(policyText, { idPrefix: `t${turn}_call_` });
      if (!parsed.ok) return finish([formatErrorObservation(parsed.error, turn)], turn, false);
      const action = parsed.action;
      switch (action.kind) {
        case "tool_calls":
          // Prose beside calls breaks the one-action-per-turn rule, but the customer may still read it.
          if (action.text) trace.agentMessages.push(action.text);
          return runCalls(action.calls, turn);
        case "action":
          if (action.call) return runCalls([action.call], turn);
          return finish([{ role: "user", source: "environment", content: `Unknown action "${action.content}": call a tool by name with JSON arguments.`, turn, formatError: "unknown_action" }], turn, false);
        case "finish":
          if (action.text) trace.agentMessages.push(action.text);
          return { observations: [], done: true, endReason: "agent_finished" };
        case "message":
          return talk(action.text, turn);
        case "answer":
          return talk(action.answer, turn);
        case "search":
          return talk(action.query, turn);
      }
    },

    async evaluate(endReason: EpisodeEndReason) {
      const expected = deps.expected();
      // Only records touched by the agent or the gold replay can differ; those are what the inspector diffs.
      const ids = touchedIds(db, expected);
      const evaluation = await evaluateTau2(
        task,
        trace,
        { finalHash: digestRecords(db, ids), expectedHash: digestRecords(expected, ids), finalState: pickRecords(db, ids), expectedState: pickRecords(expected, ids) },
        ctx.llm,
      );
      return applyTau2StopRule(evaluation, endReason);
    },
  };
}

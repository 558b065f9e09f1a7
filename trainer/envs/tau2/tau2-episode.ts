/**
 * One τ² conversation in any implemented domain (retail, airline, mock): the policy (agent) talks to a simulated user and
 * calls the domain's tools against a private copy of the database, prepared from the task's initial state as τ²
 * prepares it (initialization data, initialization actions, the write calls of a conversation already under way).
 * As in τ², a tool call and a message are separate turns; the episode ends when the user says ###STOP### /
 * ###TRANSFER###, when the agent transfers to a human, or after `maxTurns` (20).
 */
import type { ConversationMessage, EpisodeEndReason, ToolCall } from "../../../lib/conversation";
import type { Episode, EpisodeContext, StepResult } from "../types";
import { formatErrorObservation, formatToolsPrompt, readPolicyAction, type ToolPromptStyle } from "../parse";
import type { Tau2DomainTools } from "./domain";
import type { Tau2TaskData } from "./tau2-format";
import { applyTau2StopRule, communicateChecks, evaluateTau2, type Tau2Trace } from "./tau2-reward";
import { Tau2UserSimulator } from "./user-simulator";
import type { UserStrategy } from "./user-prompts";

export { TAU2_MAX_TURNS } from "../../../lib/environment-options";

/**
 * A private copy of the database in the task's initial state, as τ²'s Environment.set_state builds it: the
 * initialization data merged in, the initialization actions run, then the write calls of the initial conversation
 * replayed (reads change nothing and are skipped, as τ² skips them).
 */
export function initialCopy(domain: Tau2DomainTools, initialDb: unknown, task: Tau2TaskData): unknown {
  const w = domain.fork(initialDb);
  const init = task.initialState;
  if (!init) return w;
  if (init.agentData) domain.initialize(w, init.agentData);
  for (const a of init.actions) domain.runTool(w, a.funcName, a.arguments);
  for (const m of init.history) for (const c of m.toolCalls ?? []) if (domain.isWriteTool(c.name)) domain.runTool(w, c.name, c.arguments);
  return w;
}

/** The database after replaying the gold actions on the initial copy (failed gold calls change nothing, as in τ²). */
export function replayGoldActions(domain: Tau2DomainTools, initialDb: unknown, task: Tau2TaskData): unknown {
  const expected = initialCopy(domain, initialDb, task);
  for (const a of task.actions) domain.runTool(expected, a.name, a.arguments);
  return expected;
}

/** τ²'s ENV_ASSERTION checks on the final database: each function's result must equal its expected value. */
export function envAssertionChecks(
  domain: Tau2DomainTools,
  w: unknown,
  task: Tau2TaskData,
): { check: string; met: boolean; raised?: string }[] {
  return (task.envAssertions ?? []).map((a) => {
    const check = `${a.funcName}(${JSON.stringify(a.arguments)}) is ${a.assertValue}`;
    try {
      const result = domain.assertion ? domain.assertion(w, a.funcName, a.arguments) : null;
      return { check, met: result === a.assertValue };
    } catch (e) {
      // The function raised (a missing record): τ²'s evaluator does not catch it, so the task gets no reward there.
      return { check, met: false, raised: e instanceof Error ? e.message : String(e) };
    }
  });
}

export interface Tau2EpisodeDeps {
  domain: Tau2DomainTools;
  /** Shared and never mutated; the episode copies it. */
  initialDb: unknown;
  policy: string;
  strategy: UserStrategy;
  toolStyle: ToolPromptStyle;
  maxTurns: number;
  expected: () => unknown;
}

/** The agent's system prompt; `style` null leaves the tools out (the policy gets them as schemas). */
function systemPrompt(domain: Tau2DomainTools, policy: string, style: ToolPromptStyle | null): string {
  return [
    domain.agentRole,
    "Each turn, either call exactly one tool or send one message to the user — never both.",
    `# Policy\n${policy.trim()}`,
    ...(style ? [`# Tools\n${formatToolsPrompt(domain.toolSchemas, style)}`] : []),
  ].join("\n\n");
}

/** A task's initial conversation as the agent sees it, before the user simulator's first message. */
function historyMessages(task: Tau2TaskData): ConversationMessage[] {
  return (task.initialState?.history ?? []).map((m): ConversationMessage => {
    if (m.role === "tool")
      return { role: "tool", source: "tool", content: m.content, turn: 0, ...(m.toolCallId && { toolCallId: m.toolCallId }) };
    if (m.role === "assistant")
      return { role: "assistant", source: "system", content: m.content, turn: 0, ...(m.toolCalls && { toolCalls: m.toolCalls }) };
    return { role: "user", source: "system", content: m.content, turn: 0 };
  });
}

export function createTau2Episode(task: Tau2TaskData, ctx: EpisodeContext, deps: Tau2EpisodeDeps): Episode {
  const domain = deps.domain;
  const db = initialCopy(domain, deps.initialDb, task);
  const user = new Tau2UserSimulator(task.scenario, deps.strategy, ctx.llm);
  const trace: Tau2Trace = { toolCalls: [], agentMessages: [] };
  const maxTurns = Math.min(deps.maxTurns, ctx.maxTurns);
  const goldWrites = task.actions.some((a) => domain.isWriteTool(a.name));
  const toolsAsSchemas = ctx.toolPresentation === "schemas";
  const dbMatchesExpected = (): boolean => domain.compare(db, deps.expected()).same;

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
      const outcome = domain.runTool(db, call.name, call.arguments);
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
        { role: "system", source: "system", content: systemPrompt(domain, deps.policy, toolsAsSchemas ? null : deps.toolStyle), turn: 0 },
        ...historyMessages(task),
        { role: "user", source: "user_simulator", content: opening.text, turn: 0, llmCallIds: opening.callIds },
      ];
    },

    tools: () => (toolsAsSchemas ? [...domain.toolSchemas] : []),

    async step(policyText, turn, toolCalls) {
      const parsed = readPolicyAction(policyText, toolCalls, { idPrefix: `t${turn}_call_` });
      if (!parsed.ok) return finish([formatErrorObservation(parsed.error, turn)], turn, false);
      const action = parsed.action;
      switch (action.kind) {
        case "tool_calls":
          // Prose beside calls breaks the one-action-per-turn rule, but the customer may still read it.
          if (action.text) trace.agentMessages.push(action.text);
          return runCalls(action.calls, turn);
        case "action":
          if (action.call) return runCalls([action.call], turn);
          return finish(
            [
              {
                role: "user",
                source: "environment",
                content: `Unknown action "${action.content}": call a tool by name with JSON arguments.`,
                turn,
                formatError: "unknown_action",
              },
            ],
            turn,
            false,
          );
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
      const comparison = domain.compare(db, deps.expected());
      const checks = envAssertionChecks(domain, db, task);
      const evaluation = await evaluateTau2(task, trace, comparison, ctx.llm, checks);
      const raised = checks.find((c) => c.raised !== undefined);
      if (raised)
        return {
          ...evaluation,
          reward: null,
          reasoning: `Not scored: the env assertion ${raised.check} raised "${raised.raised}", which leaves the task unscored in τ² (its evaluator does not catch it). ${evaluation.reasoning}`,
        };
      return applyTau2StopRule(evaluation, endReason);
    },
  };
}

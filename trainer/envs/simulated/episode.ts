/**
 * One episode of the simulated environment (Simia-RL GeneralSimulated): the user simulator opens and replies, the
 * tool simulator answers tool calls, the judge scores the finished conversation. Each role goes through
 * `ctx.llm` — a real endpoint when configured, otherwise the deterministic offline simulators — so offline and
 * GPT-backed episodes are recorded identically.
 */
import type { ConversationMessage, EpisodeEndReason } from "../../../lib/conversation";
import type { Episode, EpisodeContext, Evaluation, StepResult, Task } from "../types";
import {
  formatErrorObservation,
  formatToolsPrompt,
  readPolicyAction,
  toolCallIdPrefix,
  type StructuredToolCall,
  type ToolPromptStyle,
  type ToolSchema,
} from "../parse";
import type { SimulatedTaskData } from "./task-schema";
import { judgePromptFor, renderTemplate, TERMINATE_MARKER, type SimulatedPrompts } from "../../../lib/simulated-prompts";
import { judgeSimulatedEpisode, simulatedFinalState } from "./judge-episode";
import {
  createSimulatedState,
  offlineToolAnswer,
  offlineUserReply,
  type OfflineJudgeOptions,
  type SimulatedState,
} from "./offline-simulators";

export interface SimulatedEpisodeOptions {
  prompts: SimulatedPrompts;
  toolPromptStyle: ToolPromptStyle;
  /** Simulator calls allowed per episode (Simia-RL's max_simulation_steps). */
  maxSimSteps: number;
  judge: OfflineJudgeOptions & {
    samples: number;
    maxAttempts: number;
    aggregate: "mean" | "majority";
    unparsable: "unscored" | "zero";
    mode: "strict" | "simia";
  };
  /** Sent with the simulator's and the judge's requests in Simia's mode (judge.mode "simia"). */
  simiaSampling: { temperature: number; max_completion_tokens: number };
}

/**
 * The agent's system prompt: the task's own (Simia's sample `system`, verbatim, tools included) or one composed from
 * its parts, with the tools unless `style` is null (they go to the policy as schemas).
 */
export function agentSystemPrompt(d: SimulatedTaskData, style: ToolPromptStyle | null): string {
  if (d.systemPrompt) return d.systemPrompt;
  return [
    `You are a ${d.domain} customer-support agent. Help the user by calling tools and replying to them.`,
    d.policy ? `Policy:\n${d.policy}` : "",
    style ? formatToolsPrompt(d.tools, style) : "",
    "When the user's request is fully handled, tell them the outcome. Reply [finish] only to end the conversation.",
  ]
    .filter(Boolean)
    .join("\n\n");
}

export class SimulatedEpisode implements Episode {
  private readonly state: SimulatedState = createSimulatedState();
  private readonly transcript: ConversationMessage[] = [];
  private simSteps = 0;
  /** Policy turn being stepped; its observations belong to the next turn (the one that answers them). */
  private turn = 0;

  constructor(
    private readonly task: Task<SimulatedTaskData>,
    private readonly ctx: EpisodeContext,
    private readonly options: SimulatedEpisodeOptions,
  ) {}

  private get data(): SimulatedTaskData {
    return this.task.data;
  }

  async reset(): Promise<ConversationMessage[]> {
    const d = this.data;
    const system: ConversationMessage = {
      role: "system",
      source: "system",
      turn: 0,
      content: agentSystemPrompt(d, this.toolsAsSchemas ? null : this.options.toolPromptStyle),
    };
    this.transcript.push(system);
    const opening = await this.askUser(0, () => d.opening, true);
    this.transcript.push(opening.message);
    return [system, opening.message];
  }

  /** A task with its own system prompt describes its tools in it; only a composed prompt can leave them out. */
  private get toolsAsSchemas(): boolean {
    return this.ctx.toolPresentation === "schemas" && !this.data.systemPrompt;
  }

  tools(): ToolSchema[] {
    return this.toolsAsSchemas ? [...this.data.tools] : [];
  }

  async step(policyText: string, turn: number, toolCalls?: readonly StructuredToolCall[]): Promise<StepResult> {
    this.state.policyTurns++;
    this.turn = turn;
    this.transcript.push({ role: "assistant", source: "policy", content: policyText, turn });
    const parsed = readPolicyAction(policyText, toolCalls, { idPrefix: toolCallIdPrefix(turn) });
    if (!parsed.ok) {
      this.state.formatErrors++;
      return this.observe(
        [formatErrorObservation(parsed.error, turn, "Call a tool with the documented format or reply to the user in plain text.")],
        false,
      );
    }
    const action = parsed.action;
    switch (action.kind) {
      case "finish":
        if (action.text) this.state.agentTexts.push({ turn, text: action.text });
        return { observations: [], done: true, endReason: "agent_finished" };
      case "search":
        return this.observe(
          [
            {
              role: "user",
              source: "environment",
              turn,
              content: "[search] is not available here. Call one of the tools or reply to the user.",
            },
          ],
          false,
        );
      case "tool_calls":
        if (action.text) this.state.agentTexts.push({ turn, text: action.text });
        return this.answerCalls(action.calls, turn);
      case "action":
        if (action.call) return this.answerCalls([action.call], turn);
        return this.replyAsUser(action.content, turn);
      case "answer":
        return this.replyAsUser(action.answer, turn);
      case "message":
        return this.replyAsUser(action.text, turn);
    }
  }

  async evaluate(endReason: EpisodeEndReason): Promise<Evaluation> {
    const d = this.data;
    return judgeSimulatedEpisode({
      ctx: this.ctx,
      prompt: renderTemplate(judgePromptFor(this.options.prompts, "split"), { ...this.templateValues(), history: this.historyText() }),
      task: d,
      state: this.state,
      judge: this.options.judge,
      simiaSampling: this.options.simiaSampling,
      endReason,
      finalState: simulatedFinalState(this.state, { revealedFacts: [...this.state.revealedFacts].map((i) => d.facts[i]?.value) }),
    });
  }

  private observe(observations: ConversationMessage[], done: boolean, endReason?: EpisodeEndReason): StepResult {
    const answered = observations.map((o) => ({ ...o, turn: this.turn + 1 }));
    this.transcript.push(...answered);
    return { observations: answered, done, endReason };
  }

  private simBudgetExceeded(): boolean {
    return ++this.simSteps > this.options.maxSimSteps;
  }

  private async answerCalls(calls: { id: string; name: string; arguments: Record<string, unknown> }[], turn: number): Promise<StepResult> {
    this.transcript[this.transcript.length - 1].toolCalls = calls;
    const observations: ConversationMessage[] = [];
    for (const call of calls) {
      if (!this.data.tools.some((t) => t.name === call.name)) {
        const names = this.data.tools.map((t) => t.name).join(", ") || "(none)";
        observations.push({
          role: "tool",
          source: "environment",
          turn,
          toolCallId: call.id,
          name: call.name,
          content: JSON.stringify({ error: `unknown tool "${call.name}"; available: ${names}` }),
        });
        continue;
      }
      if (this.simBudgetExceeded()) return this.observe(observations, true, "max_sim_steps");
      const previous = this.state.calls.map((c) => `${c.name}(${JSON.stringify(c.arguments)}) -> ${c.result}`).join("\n") || "(none)";
      const res = await this.ctx.llm.chat({
        role: "tool_simulator",
        turn,
        responseFormat: "json",
        messages: [
          {
            role: "user",
            content: renderTemplate(this.options.prompts.toolSimulator, {
              ...this.templateValues(),
              previous_tool_results: previous,
              call: JSON.stringify({ name: call.name, arguments: call.arguments }),
            }),
          },
        ],
        offline: () => offlineToolAnswer(this.data, this.state, call.name, call.arguments),
      });
      this.state.calls.push({ name: call.name, arguments: call.arguments, turn, result: res.text });
      observations.push({
        role: "tool",
        source: "tool_simulator",
        turn,
        toolCallId: call.id,
        name: call.name,
        content: res.text,
        llmCallIds: [res.callId],
      });
    }
    return this.observe(observations, false);
  }

  private async replyAsUser(agentText: string, turn: number): Promise<StepResult> {
    this.state.agentTexts.push({ turn, text: agentText });
    if (this.simBudgetExceeded()) return this.observe([], true, "max_sim_steps");
    const reply = await this.askUser(turn, () => offlineUserReply(this.data, this.state, agentText), false);
    return this.observe([reply.message], reply.done, reply.done ? "user_done" : undefined);
  }

  private async askUser(turn: number, offline: () => string, opening: boolean): Promise<{ message: ConversationMessage; done: boolean }> {
    const history = opening ? "(The conversation has not started. Write your opening message.)" : this.historyText();
    const res = await this.ctx.llm.chat({
      role: "user_simulator",
      turn,
      messages: [{ role: "user", content: renderTemplate(this.options.prompts.userSimulator, { ...this.templateValues(), history }) }],
      offline,
    });
    const done = !opening && res.text.includes(TERMINATE_MARKER);
    const content = res.text.split(TERMINATE_MARKER).join("").trim() || "Thank you, goodbye.";
    return { message: { role: "user", source: "user_simulator", turn, content, llmCallIds: [res.callId] }, done };
  }

  private templateValues(): Record<string, string> {
    const d = this.data;
    return {
      domain: d.domain,
      instruction: d.instruction,
      persona: d.persona || "(none)",
      policy: d.policy || "(none)",
      facts: d.facts.map((f) => f.say).join(" ") || "(none)",
      tools: d.tools.map((t) => JSON.stringify(t)).join("\n") || "(none)",
      expected: JSON.stringify(d.expected, null, 1),
      reference: d.reference ? d.reference.map((r) => `${r.from}: ${r.value}`).join("\n") : "(none)",
    };
  }

  private historyText(): string {
    return this.transcript
      .filter((m) => m.role !== "system")
      .map((m) => {
        if (m.role === "tool") return `Tool ${m.name ?? ""} result: ${m.content}`;
        if (m.source === "environment") return `Environment: ${m.content}`;
        return `${m.role === "assistant" ? "Agent" : "User"}: ${m.content}`;
      })
      .join("\n");
  }
}

/**
 * One episode as Simia-RL's GeneralSimulated env runs it (`simulator: "simia"`, the default):
 * - the agent's system prompt is the sample's own and the opening is the reference's first human message,
 *   verbatim (no LLM call);
 * - every agent message, whatever it is, goes unparsed to ONE simulator, which plays the user or the tool (it
 *   checks tool-call formatting itself) and says "[TERMINATE]" to end;
 * - after `maxSimSteps` agent messages the episode is judged without another simulator call;
 * - the judge sees the system prompt and the conversation only, and answers {"reasoning", "reward"}.
 * Offline, the same single call is answered by the deterministic simulators (tool answer, user reply or format
 * error, depending on what the agent sent), so offline and LLM-backed episodes are recorded alike.
 */
import type { ConversationMessage, EpisodeEndReason } from "../../../lib/conversation";
import type { Episode, EpisodeContext, Evaluation, StepResult, Task } from "../types";
import { parsePolicyAction, textWithToolCalls, toolCallIdPrefix, type StructuredToolCall } from "../parse";
import { judgeSimulatedEpisode, simulatedFinalState } from "./judge-episode";
import type { SimulatedTaskData } from "./task-schema";
import { judgePromptFor, renderTemplate, simiaReference, simiaTranscript, TERMINATE_MARKER } from "../../../lib/simulated-prompts";
import { agentSystemPrompt, type SimulatedEpisodeOptions } from "./episode";
import { createSimulatedState, offlineToolAnswer, offlineUserReply, type SimulatedState } from "./offline-simulators";
import { simiaReplyText } from "../../../lib/simia-record";
import { pythonStrip } from "../../../lib/python-values";

/** What the offline simulator says to a tool call that is not well-formed (the LLM simulator is asked the same). */
export const OFFLINE_FORMAT_ERROR = "Error: a tool call must be JSON inside <tool_call></tool_call> tags.";

/** For tasks written without a reference conversation: the opening, then each expected call and its result. */
function referenceFromTask(d: SimulatedTaskData): { from: string; value: string }[] {
  return [
    { from: "human", value: d.opening },
    ...d.expected.calls.flatMap((c) => [
      { from: "function_call", value: JSON.stringify({ name: c.name, arguments: c.arguments }) },
      { from: "observation", value: typeof c.result === "string" ? c.result : JSON.stringify(c.result) },
    ]),
  ];
}

export class SimiaEpisode implements Episode {
  private readonly state: SimulatedState = createSimulatedState();
  /** Simia's conversation_history: the agent's messages and the simulator's, in order. */
  private readonly history: { from: "agent" | "environment"; text: string }[] = [];
  private systemPrompt = "";

  constructor(
    private readonly task: Task<SimulatedTaskData>,
    private readonly ctx: EpisodeContext,
    private readonly options: SimulatedEpisodeOptions,
  ) {}

  private get data(): SimulatedTaskData {
    return this.task.data;
  }

  async reset(): Promise<ConversationMessage[]> {
    // A sample's own system prompt is kept even when empty, as Simia sends it; only a task without one gets ours.
    this.systemPrompt = this.data.systemPrompt ?? agentSystemPrompt(this.data, this.options.toolPromptStyle);
    const opening = pythonStrip(this.data.opening);
    this.history.push({ from: "environment", text: opening });
    return [
      { role: "system", source: "system", turn: 0, content: this.systemPrompt },
      { role: "user", source: "user_simulator", turn: 0, content: opening },
    ];
  }

  async step(policyText: string, turn: number, toolCalls?: readonly StructuredToolCall[]): Promise<StepResult> {
    // Simia's simulator reads the agent's message as text, calls included, stripped (an empty one stays).
    const text = pythonStrip(textWithToolCalls(policyText, toolCalls));
    this.state.policyTurns++;
    this.history.push({ from: "agent", text });
    // Simia counts agent messages; at the limit the episode is judged without asking the simulator again.
    if (this.state.policyTurns >= this.options.maxSimSteps) return { observations: [], done: true, endReason: "max_sim_steps" };

    const parsed = parsePolicyAction(text, { idPrefix: toolCallIdPrefix(turn) });
    const calls = parsed.ok && parsed.action.kind === "tool_calls" ? parsed.action.calls : [];
    if (!parsed.ok) this.state.formatErrors++;
    const res = await this.ctx.llm.chat({
      role: "user_simulator",
      turn,
      messages: [
        {
          role: "user",
          content: renderTemplate(this.options.prompts.simulator, {
            ...this.templateValues(),
            // Simia appends the agent's message to the history before formatting it: the simulator sees it twice.
            history: simiaTranscript(this.history, "No conversation history"),
            agent_message: text,
          }),
        },
      ],
      offline: () => this.offlineReply(text, parsed),
      ...(this.options.judge.mode === "simia" && { params: this.options.simiaSampling }),
    });
    // What Simia keeps of the simulator's reply (and shows the agent): the text after `</think>`, stripped.
    const reply = simiaReplyText(res.text);
    // The offline state follows the conversation too, so the offline judge can score it.
    if (calls.length) for (const c of calls) this.state.calls.push({ name: c.name, arguments: c.arguments, turn, result: reply });
    else this.state.agentTexts.push({ turn, text });
    this.history.push({ from: "environment", text: reply });
    const done = reply.includes(TERMINATE_MARKER);
    const observation: ConversationMessage = {
      role: "user",
      // Simia's one simulator speaks for both; attributed by what the agent sent, for the inspector.
      source: calls.length ? "tool_simulator" : "user_simulator",
      turn: turn + 1,
      content: reply,
      llmCallIds: [res.callId],
    };
    return done ? { observations: [observation], done: true, endReason: "user_done" } : { observations: [observation], done: false };
  }

  async evaluate(endReason: EpisodeEndReason): Promise<Evaluation> {
    return judgeSimulatedEpisode({
      ctx: this.ctx,
      prompt: renderTemplate(judgePromptFor(this.options.prompts, "simia"), {
        ...this.templateValues(),
        history: simiaTranscript(this.history, "No conversation history"),
      }),
      task: this.data,
      state: this.state,
      judge: this.options.judge,
      simiaSampling: this.options.simiaSampling,
      endReason,
      finalState: simulatedFinalState(this.state),
    });
  }

  /** The offline simulator's single reply: a tool result, a format error, or the user's next message. */
  private offlineReply(text: string, parsed: ReturnType<typeof parsePolicyAction>): string {
    if (!parsed.ok) return OFFLINE_FORMAT_ERROR;
    const action = parsed.action;
    if (action.kind === "tool_calls") {
      return action.calls.map((c) => offlineToolAnswer(this.data, this.state, c.name, c.arguments)).join("\n");
    }
    return offlineUserReply(this.data, this.state, action.kind === "message" ? action.text : text);
  }

  private templateValues(): Record<string, string> {
    const d = this.data;
    return {
      system_prompt: this.systemPrompt,
      reference: simiaReference(d.reference ?? referenceFromTask(d)),
      domain: d.domain,
      instruction: d.instruction,
      policy: d.policy || "(none)",
    };
  }
}

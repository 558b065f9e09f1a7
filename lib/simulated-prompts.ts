/**
 * Default prompt templates for the LLM-backed roles. They are part of the run config (exported for its schema);
 * `{{name}}` placeholders are filled per call.
 *
 * Simia-RL mode (the default, `simulator: "simia"`): one simulator plays both the user and the tools, given the
 * sample's system prompt, its reference conversation, the history and the agent's latest message, and says
 * "[TERMINATE]" to end; the judge sees only the system prompt and the conversation and answers
 * {"reasoning", "reward": 0|1}. The templates follow Simia-RL's GeneralSimulated env in structure, inputs and
 * transcript layout ("User/Tool response: …" / "Assistant: …"); the wording is ours — paste Simia's own text into
 * `prompts.simulator` / `prompts.judge` to run with it verbatim.
 *
 * Split mode (`simulator: "split"`): a user simulator and a tool simulator with the task's structured data, and a
 * judge that also sees the expected outcome.
 */
import { z } from "zod";
import { pythonStrip } from "./python-values";

export const TERMINATE_MARKER = "[TERMINATE]";

export const DEFAULT_USER_SIMULATOR_PROMPT = `You are playing a customer talking to a support agent. Stay in character; never mention that you are simulated.

Your goal: {{instruction}}
Your persona: {{persona}}
Facts you know (share one only when the agent asks for it): {{facts}}

Conversation so far:
{{history}}

Write your next message to the agent, one or two sentences. If your goal has been fully accomplished and the agent has told you the outcome, thank them and end your message with ${TERMINATE_MARKER}. If the agent is going in circles, restate what you need.`;

export const DEFAULT_TOOL_SIMULATOR_PROMPT = `You are simulating the backend tools of a {{domain}} service. Answer the tool call below with the JSON result the real tool would return. Be consistent with the task data and with earlier results; if the arguments do not identify a record, return {"error": "..."}.

Tools (JSON Schema):
{{tools}}

Task data (ground truth the backend holds):
{{expected}}

Earlier tool results in this conversation:
{{previous_tool_results}}

Tool call: {{call}}

Reply with only the JSON result.`;

export const DEFAULT_JUDGE_PROMPT = `You are judging whether a support agent accomplished a user's task. Be strict: the right tool calls with the right arguments must have been made, policy must have been followed, and the user must have been told the outcome.

Agent policy:
{{policy}}

User goal: {{instruction}}

Expected outcome (calls with arguments, facts to communicate, forbidden calls):
{{expected}}

Complete conversation:
{{history}}

Reply with only a JSON object: {"reasoning": "<what was and was not done>", "reward": 0 or 1, "components": {"calls": <0..1>, "facts": <0..1>}}`;

export const DEFAULT_SIMIA_SIMULATOR_PROMPT = `You are the environment of an agent being trained with reinforcement learning. Play whoever speaks next to it: the human user, or the tool it called.

The agent's system prompt (its task and rules):
{{system_prompt}}

A reference conversation for this task (the data to draw on):
{{reference}}

The conversation so far:
{{history}}

The agent's latest message:
{{agent_message}}

How to answer:
- If the agent is calling a tool, first check the call: it must sit inside <tool_call></tool_call> tags as well-formed JSON. If it does not, answer with an error that says so, and nothing else.
- For a well-formed call, return the tool's result. Use the matching result from the reference conversation when there is one; otherwise make up a plausible result for these arguments, consistent with everything so far.
- If the agent is talking to the user, write the user's next message, following the reference conversation's flow and adapting it to what the agent actually said.
- When the task is done or the conversation should end, output ${TERMINATE_MARKER}.

Write only the next message itself, with no "User/Tool response:" prefix.`;

export const DEFAULT_SIMIA_JUDGE_PROMPT = `Score how an agent being trained with reinforcement learning did on its task.

The agent's system prompt (its task, rules and policies):
{{system_prompt}}

The whole conversation:
{{history}}

Judge:
1. Did the agent understand what was asked?
2. Did it follow the rules and procedures of its system prompt? Finishing the user's request does not count if a policy was broken.
3. Were its tool calls inside <tool_call></tool_call> tags with valid JSON? A malformed or untagged call is a failure.
4. Did it use the tool results correctly?

Reply with a JSON object: {"reasoning": "<why this reward>", "reward": 0 or 1} (1 only for success).`;

export const SimulatedPromptsSchema = z
  .object({
    /** Simia mode's single simulator (user and tools). */
    simulator: z.string().min(1).default(DEFAULT_SIMIA_SIMULATOR_PROMPT),
    userSimulator: z.string().min(1).default(DEFAULT_USER_SIMULATOR_PROMPT),
    toolSimulator: z.string().min(1).default(DEFAULT_TOOL_SIMULATOR_PROMPT),
    /** The judge's template; when unset, the mode's own (Simia's inputs, or the split judge with the expected outcome). */
    judge: z.string().min(1).optional(),
  })
  .strict();
export type SimulatedPrompts = z.infer<typeof SimulatedPromptsSchema>;

export const DEFAULT_SIMULATED_PROMPTS: SimulatedPrompts = {
  simulator: DEFAULT_SIMIA_SIMULATOR_PROMPT,
  userSimulator: DEFAULT_USER_SIMULATOR_PROMPT,
  toolSimulator: DEFAULT_TOOL_SIMULATOR_PROMPT,
};

/** The judge template a mode uses when the config gives none. */
export function judgePromptFor(prompts: SimulatedPrompts, mode: "simia" | "split"): string {
  return prompts.judge ?? (mode === "simia" ? DEFAULT_SIMIA_JUDGE_PROMPT : DEFAULT_JUDGE_PROMPT);
}

/** A reference conversation (ShareGPT from/value) as Simia-RL shows it to its simulator. */
export function simiaReference(conv: readonly { from: string; value: string }[] | undefined): string {
  const lines = (conv ?? [])
    .filter((m) => pythonStrip(m.value))
    .map((m) => {
      const who = m.from === "human" ? "User/Tool response" : m.from === "gpt" || m.from === "assistant" ? "Assistant" : m.from;
      return `${who}: ${pythonStrip(m.value)}`;
    });
  return lines.length ? lines.join("\n\n") : "No reference conversation";
}

/**
 * A transcript as Simia-RL lays it out for its simulator and judge: the agent's messages as "Assistant: …", the
 * user's and the tools' (one "human" side in Simia) as "User/Tool response: …", each stripped and separated by
 * blank lines. An empty message stays ("Assistant: "), as in Simia's `_format_history_for_prompt`.
 */
export function simiaTranscript(messages: readonly { from: "agent" | "environment"; text: string }[], empty: string): string {
  const lines = messages.map((m) => `${m.from === "agent" ? "Assistant" : "User/Tool response"}: ${pythonStrip(m.text)}`);
  return lines.length ? lines.join("\n\n") : empty;
}

/** Fills `{{name}}` placeholders; unknown placeholders are left visible so a typo in a custom template shows. */
export function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (m, key: string) => (key in values ? values[key] : m));
}

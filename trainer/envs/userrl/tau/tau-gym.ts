/**
 * Tau gym (UserRL TauGym): tau-bench's customer service (retail or airline) as a UserRL gym. The policy is the agent: `[search]
 * tools` lists the internal tools (once; `[search] help` explains the moves), `[action] <message>` talks to the
 * customer (an LLM user briefed with the task's instruction), `[answer] {"name": ..., "arguments": {...}}` calls a
 * tool on the episode's copy of the data, `[finish]` stops. The conversation ends when the customer says ###STOP###
 * or the agent transfers to a human; tau-bench's reward is then given for that turn: 1 when the data equals what
 * the task's gold actions produce and every required output appeared in one of the agent's messages, else 0. An
 * episode that never ends that way (finished by the agent, or cut at the turn limit) scores 0, as in TauGym.
 *
 * Offline, the customer is τ²'s rule-based one: it gives its identity when asked, confirms, and stops once the
 * data matches and the outputs were said.
 */
import { Tau2UserSimulator } from "../../tau2/user-simulator";
import { STOP_TOKEN } from "../../tau2/user-prompts";
import type { GymRules, GymTurnOutcome } from "../gym-episode";
import type { TauGymTask } from "./tau-data";
import { forkData, sameData, type TauData, type Work } from "./tool-core";
import { runDomainTool, TAU_DOMAINS, TERMINATE_TOOLS, type TauDomainName } from "./domains";

interface TauState {
  work: Work;
  user: Tau2UserSimulator | null;
  /** The agent's messages to the customer (where required outputs must appear). */
  said: string[];
  toolsListed: boolean;
  /** Set when the conversation ended (customer stop or transfer): tau-bench's verdict. */
  ended: Verdict | null;
}

interface Verdict {
  reward: 0 | 1;
  dataMatches: boolean;
  outputs: { output: string; said: boolean }[];
  how: "user_stop" | "transfer";
}

export interface TauGymDeps {
  /** The task's data (shared, never changed: episodes fork it). */
  dataFor(task: TauGymTask): TauData;
  /** The data after the gold actions (cached per task). */
  expectedFor(task: TauGymTask): Work;
}

/** tau-bench's `[search] tools` listing: each tool, its description and its parameters. */
export function toolsListing(domain: TauDomainName): string {
  const lines = ["Available Tools:"];
  for (const tool of TAU_DOMAINS[domain].toolInfo) {
    const f = tool.function as {
      name: string;
      description: string;
      parameters?: { properties?: Record<string, { description?: string }> };
    };
    lines.push(`- ${f.name}: ${f.description}`);
    const params = Object.entries(f.parameters?.properties ?? {});
    if (params.length) lines.push("  Parameters:", ...params.map(([p, info]) => `    - ${p}: ${info.description ?? ""}`));
  }
  return lines.join("\n");
}

const HELP =
  "Choose one move per message: [search] tools lists the internal tools (and [search] help shows this); [action] <message> " +
  'talks to the customer; [answer] {"name": <tool>, "arguments": {...}} calls an internal tool. Find out what the ' +
  "customer wants, work out which tool would do it and what its arguments need, then get those from the customer or from other tools.";

/** The tool call in an [answer]: TauGym reads a JSON object {name, arguments} or `name: {json arguments}`. */
export function parseToolCall(content: string): { name: string; args: Record<string, unknown> } | null {
  try {
    if (content.startsWith("{") && content.endsWith("}")) {
      const call = JSON.parse(content) as { name?: unknown; arguments?: unknown };
      const args = call.arguments ?? {};
      if (typeof args !== "object" || args === null || Array.isArray(args)) return null;
      return { name: typeof call.name === "string" ? call.name : "", args: args as Record<string, unknown> };
    }
    const colon = content.indexOf(":");
    if (colon < 0) return null;
    const args = JSON.parse(content.slice(colon + 1).trim()) as unknown;
    if (typeof args !== "object" || args === null || Array.isArray(args)) return null;
    return { name: content.slice(0, colon).trim(), args: args as Record<string, unknown> };
  } catch {
    return null;
  }
}

/** tau-bench's output check: case-insensitive, commas removed from the agent's message. */
function outputChecks(outputs: string[], said: string[]): Verdict["outputs"] {
  return outputs.map((output) => ({ output, said: said.some((m) => m.toLowerCase().replace(/,/g, "").includes(output.toLowerCase())) }));
}

/** tau-bench's calculate_reward: the data equals the gold actions' result and every output was said. */
export function tauBenchVerdict(
  task: Pick<TauGymTask, "outputs">,
  work: Work,
  expected: Work,
  said: string[],
  how: Verdict["how"],
): Verdict {
  const dataMatches = sameData(work, expected);
  const outputs = outputChecks(task.outputs, said);
  return { reward: dataMatches && outputs.every((o) => o.said) ? 1 : 0, dataMatches, outputs, how };
}

const verdict = (task: TauGymTask, state: TauState, deps: TauGymDeps, how: Verdict["how"]) =>
  tauBenchVerdict(task, state.work, deps.expectedFor(task), state.said, how);

/** The customer's identity sentences of an instruction ("Your name is ... and your zip code is ..."), for the offline customer. */
function identityOf(instruction: string): string {
  return instruction
    .split(/(?<=\.)\s+/)
    .filter((s) => /\b(name|zip|e-?mail|user id)\b/i.test(s))
    .join(" ");
}

export function tauRules(deps: TauGymDeps): GymRules<TauGymTask, TauState> {
  const end = (
    task: TauGymTask,
    state: TauState,
    how: Verdict["how"],
    feedback: string,
    source: GymTurnOutcome["source"],
    llmCallIds?: string[],
  ) => {
    state.ended = verdict(task, state, deps, how);
    return { feedback, source, turnReward: state.ended.reward, done: true, endReason: "env_terminal" as const, llmCallIds };
  };
  return {
    kinds: ["action", "answer", "search"],
    // TauGym tests its tags as written: "[Action] hi" is an invalid action format there.
    lowerCaseTags: "all",
    // TauGym takes no step penalty and never normalises; a penalty set here is taken like the others' (× step count).
    stepPenalty: "per-step",
    normalizeRewards: false,
    instructions: () =>
      [
        "You are a customer-service agent. Fulfil the customer's request by talking with them and by calling the company's internal tools.",
        "Each message makes one move:",
        "- [search] tools: list the internal tools with their descriptions and arguments (once is enough); [search] help: how to play.",
        "- [action] <message>: say something to the customer, e.g. ask for what you need.",
        '- [answer] {"name": "<tool>", "arguments": {"<arg>": "<value>"}}: call an internal tool (JSON).',
        "- [finish]: stop.",
        "Think before each move; the number of moves is limited, so balance tool calls and questions.",
      ].join("\n"),
    opening: (data) => `My request: ${data.opening}\nPlease help me step by step, using your tools and asking me what you need.`,
    initState: (data) => ({ work: forkData(deps.dataFor(data)), user: null, said: [], toolsListed: false, ended: null }),

    async onAction(kind, content, state, data, io): Promise<GymTurnOutcome> {
      if (kind === "search") {
        const query = content.trim().toLowerCase();
        if (query === "help") return { feedback: HELP, source: "tool", turnReward: 0 };
        if (query !== "tools")
          return {
            feedback: `Search not supported for '${query}'. Search "tools" for the tool list or "help" for guidance.`,
            source: "tool",
            turnReward: 0,
          };
        if (state.toolsListed)
          return { feedback: "The tools were listed earlier in this conversation; refer to that list.", source: "tool", turnReward: 0 };
        state.toolsListed = true;
        return { feedback: toolsListing(data.domain), source: "tool", turnReward: 0 };
      }
      const call = kind === "answer" ? parseToolCall(content) : null;
      if (kind === "answer" && call === null)
        return {
          feedback: 'Invalid tool call format. Give the call as JSON in the content: {"name": ..., "arguments": {...}}.',
          source: "tool",
          turnReward: 0,
        };
      // A tool call named "respond" is tau-bench's message to the customer, as [action] is.
      const message = kind === "action" ? content : call?.name === "respond" ? String(call.args.content ?? "") : null;
      if (message === null) {
        const result = runDomainTool(data.domain, state.work, call!.name, call!.args);
        if (TERMINATE_TOOLS.includes(call!.name)) return end(data, state, "transfer", result, "tool");
        return { feedback: result, source: "tool", turnReward: 0 };
      }
      state.said.push(message);
      if (!state.user) {
        const scenario = {
          taskInstructions: data.instruction,
          reasonForCall: data.instruction,
          knownInfo: identityOf(data.instruction),
          unknownInfo: "",
          persona: null,
        };
        state.user = new Tau2UserSimulator(scenario, "llm", io.llm);
        state.user.openedWith(data.opening);
      }
      // The offline customer stops once tau-bench would reward the conversation.
      const goalMet = () => verdict(data, state, deps, "user_stop").reward === 1;
      const reply = await state.user.reply(
        message,
        {
          get goalMet() {
            return goalMet();
          },
        },
        io.turn,
      );
      if (reply.text.includes(STOP_TOKEN)) return end(data, state, "user_stop", reply.text, "user_simulator", reply.callIds);
      return { feedback: reply.text, source: "user_simulator", turnReward: 0, llmCallIds: reply.callIds };
    },

    solution: (data) => [
      ...data.actions.map((a) => `[answer] ${JSON.stringify({ name: a.name, arguments: a.kwargs })}`),
      `[action] All done.${data.outputs.length ? ` ${data.outputs.join("; ")}.` : ""} Is there anything else?`,
    ],

    evaluate(state, data) {
      const v = state.ended ?? verdict(data, state, deps, "user_stop");
      const said = v.outputs.filter((o) => o.said).length;
      const checks = `data ${v.dataMatches ? "matches" : "differs from"} the gold actions' result; outputs said ${said}/${v.outputs.length}`;
      if (!state.ended)
        return {
          reward: 0,
          components: { ended: 0, data_match: v.dataMatches ? 1 : 0, outputs_said: v.outputs.length ? said / v.outputs.length : 1 },
          reasoning: `The conversation never ended (no ###STOP### from the customer, no transfer): TauGym scores 0. Had it ended now: ${checks}.`,
        };
      return {
        reward: v.reward,
        components: { ended: 1, data_match: v.dataMatches ? 1 : 0, outputs_said: v.outputs.length ? said / v.outputs.length : 1 },
        reasoning: `Ended by ${v.how === "transfer" ? "a transfer to a human" : "the customer"}: ${checks}.`,
      };
    },
  };
}

/**
 * The episode runner shared by the UserRL gyms (Qian et al., 2025, SalesforceAIResearch/UserRL). Every gym speaks
 * the same bracketed protocol — `[action] ...` to ask/act, `[answer] ...` to commit an answer, `[search] ...` where
 * a gym offers it, `[finish]` to stop — and returns a reward for every turn (UserRL's per-step reward, e.g. the
 * improvement of the best answer score), which the trainer's multi-turn credit assignment consumes. Gyms only
 * supply their rules; parsing, format feedback, turn limits and message attribution live here.
 */
import type { ConversationMessage, EpisodeEndReason, MessageSource } from "../../../lib/conversation";
import type { Episode, EpisodeContext, Evaluation, LlmChat, StepResult, Task } from "../types";
import { formatErrorObservation, parsePolicyAction, textWithToolCalls, type StructuredToolCall } from "../parse";
import { pythonFloatRepr } from "../../../lib/python-json";

export type GymActionKind = "action" | "answer" | "search";

/**
 * UserRL's tool-call form: one call of `interact_with_env` with `choice` ("action" | "answer" | "search" | "finish")
 * and `content`, in any of the tool-call formats the parser reads, means the same as the bracketed text.
 * Returns null for anything else (the bracketed protocol then applies).
 */
export function interactWithEnv(policyText: string, rawOtherChoices = false): ReturnType<typeof parsePolicyAction> | null {
  const parsed = parsePolicyAction(policyText);
  if (!parsed.ok || parsed.action.kind !== "tool_calls" || parsed.action.calls.length !== 1) return null;
  const call = parsed.action.calls[0];
  if (call.name !== "interact_with_env") return null;
  const choice = String(call.arguments.choice ?? "")
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "");
  const content = String(call.arguments.content ?? "");
  if (choice === "finish") return parsePolicyAction("[finish]");
  if (choice === "action" || choice === "answer" || choice === "search") return parsePolicyAction(`[${choice}] ${content}`);
  // UserRL's tool passes the content of any other choice to the gym as it is (interact_tool.py's last branch).
  if (rawOtherChoices) return parsePolicyAction(content);
  return {
    ok: false,
    error: {
      code: "bad_arguments",
      message: `interact_with_env's choice must be action, answer, search or finish (got ${JSON.stringify(call.arguments.choice)})`,
      snippet: policyText.slice(0, 200),
    },
  };
}

export interface GymTurnOutcome {
  feedback: string;
  /** "user_simulator" when a (possibly offline) LLM played the user, "tool" for deterministic gym code. */
  source: MessageSource;
  turnReward: number;
  done?: boolean;
  endReason?: EpisodeEndReason;
  llmCallIds?: string[];
}

export interface GymIo {
  llm: LlmChat;
  turn: number;
}

export interface GymRules<TData, TState> {
  /** Instructions for the policy (the system prompt), including the formats this gym accepts. */
  instructions(data: TData): string;
  /** The first user-side message: the game's opening line. */
  opening(data: TData): string;
  kinds: readonly GymActionKind[];
  /**
   * How this gym's UserRL code takes the step penalty off a turn reward: "per-step" penalty × the step count
   * (TelepathyGym, TurtleGym, FunctionGym, SearchGym), "once" the penalty itself on every turn (IntentionGym,
   * PersuadeGym, TravelGym).
   */
  stepPenalty: "per-step" | "once";
  /**
   * Every message but [finish] is a move of kind "action" (PersuadeGym: an argument): a bare message whole, a bracket
   * the gym lacks with its bracket (`[search] x` is argued as written), and interact_with_env's content under any
   * other choice. The other gyms answer those with a format error.
   */
  bareMessagesAct?: boolean;
  /** [finish] ends with reward 0, penalty-free (IntentionGym, TravelGym); the other gyms score it like any step. */
  finishUnpenalized?: boolean;
  /**
   * Tags read only in lower case, as the gym's UserRL code tests them (`startswith("[action]")`): "all" (TauGym), or
   * all but [finish], which it lower-cases first (TravelGym). A tag in other case is then a move of no known form.
   * Unset: any case (the gyms whose UserRL code would play such a message on as a question or an argument anyway).
   */
  lowerCaseTags?: "all" | "except-finish";
  /** The gym's normalize_rewards default in UserRL: true clips turn rewards to [0, 1]; Function, Search, Travel and Tau do not. */
  normalizeRewards: boolean;
  /** What [finish] is answered with (default "Episode finished."). */
  finishFeedback?(state: TState, data: TData): string;
  /** The episode's starting state; `seed` (the episode's) drives any randomness of the user side. */
  initState(data: TData, seed?: number): TState;
  onAction(kind: GymActionKind, content: string, state: TState, data: TData, io: GymIo): Promise<GymTurnOutcome>;
  /**
   * A scripted solver's policy messages, written from the task's answer key: the gold play the SFT warm-start
   * imitates (UserRL starts RL from an SFT model; its gyms ship no gold conversations).
   */
  solution(data: TData): string[];
  evaluate(
    state: TState,
    data: TData,
    endReason: EpisodeEndReason,
  ): Omit<Evaluation, "finalState" | "expectedState"> & {
    finalState?: unknown;
    expectedState?: unknown;
  };
}

export interface GymOptions {
  /**
   * UserRL's step_penalty (0 by default, as in its configs), taken off every turn reward as the gym's own code takes
   * it (GymRules.stepPenalty), before `normalizeRewards` clips.
   */
  stepPenalty?: number;
  /** UserRL's normalize_rewards: clip each turn reward to [0, 1] after the penalty (default: the gym's, GymRules). */
  normalizeRewards?: boolean;
  /**
   * Append the step's reward to what the gym answers, as UserRL's interact tool returns it to the model
   * (`{feedback}\nReward: {reward}`, the reward printed as a Python float). Default true (UserRL's behaviour).
   */
  rewardInObservation?: boolean;
}

/** UserRL's tool response: the gym's feedback, then the step's reward as Python prints a float. */
export function withReward(feedback: string, reward: number): string {
  return `${feedback}\nReward: ${pythonFloatRepr(reward)}`;
}

/** The leading tag of a message when written in a case `lowerCaseTags` refuses (`[Action] x`, `[FINISH]`), else null. */
function tagInOtherCase(text: string, lowerCaseTags: GymRules<unknown, unknown>["lowerCaseTags"]): string | null {
  const m = /^\s*\[(action|search|answer|finish)\]/i.exec(text.replace(/<think>[\s\S]*?<\/think>/gi, ""));
  if (!lowerCaseTags || !m || m[1] === m[1].toLowerCase()) return null;
  return lowerCaseTags === "except-finish" && m[1].toLowerCase() === "finish" ? null : m[1];
}

const FORMAT_NAMES: Record<GymActionKind, string> = {
  action: "[action] <your question or action>",
  answer: "[answer] <your answer>",
  search: "[search] <query>",
};

export function formatHint(kinds: readonly GymActionKind[]): string {
  return `Start your message with one of: ${[...kinds.map((k) => FORMAT_NAMES[k]), "[finish]"].join(", ")}.`;
}

export function createGymEpisode<TData, TState>(
  task: Task<TData>,
  ctx: EpisodeContext,
  rules: GymRules<TData, TState>,
  options: GymOptions = {},
): Episode {
  const state = rules.initState(task.data, ctx.seed);
  const penalty = options.stepPenalty ?? 0;
  const normalize = options.normalizeRewards ?? rules.normalizeRewards;
  /** The turn reward as the gym's UserRL code computes it: raw − its step penalty, then clipped to [0, 1] if normalising. */
  const shaped = (raw: number, turn: number) => {
    const r = raw - (rules.stepPenalty === "once" ? penalty : penalty * (turn + 1));
    return normalize ? Math.max(0, Math.min(1, r)) : r;
  };
  const showReward = options.rewardInObservation ?? true;
  const shown = (feedback: string, reward: number) => (showReward ? withReward(feedback, reward) : feedback);

  function formatFeedback(turn: number, code: string, message: string): StepResult {
    const obs: ConversationMessage = {
      role: "user",
      source: "environment",
      content: `Format error: ${message} ${formatHint(rules.kinds)}`,
      turn,
      formatError: `${code}: ${message}`,
    };
    return finish({ observations: [obs], turnReward: shaped(0, turn), done: false }, turn);
  }

  function finish(r: StepResult, turn: number): StepResult {
    if (!r.done && turn + 1 >= ctx.maxTurns) return { ...r, done: true, endReason: "max_turns" };
    return r;
  }

  return {
    async reset(): Promise<ConversationMessage[]> {
      return [
        { role: "system", source: "system", content: rules.instructions(task.data), turn: 0 },
        { role: "user", source: "environment", content: rules.opening(task.data), turn: 0 },
      ];
    },

    async step(rawText: string, turn: number, toolCalls?: readonly StructuredToolCall[]): Promise<StepResult> {
      // UserRL's protocol is text; an interact_with_env call sent as data means what it means written out.
      const policyText = textWithToolCalls(rawText, toolCalls);
      const viaTool = interactWithEnv(policyText, rules.bareMessagesAct);
      const otherCase = viaTool ? null : tagInOtherCase(policyText, rules.lowerCaseTags);
      if (otherCase)
        return formatFeedback(turn, "unsupported_action", `Tags are lower case: write [${otherCase.toLowerCase()}], not [${otherCase}].`);
      const parsed = viaTool ?? parsePolicyAction(policyText);
      if (!parsed.ok) {
        const obs = formatErrorObservation(parsed.error, turn, formatHint(rules.kinds));
        return finish({ observations: [obs], turnReward: shaped(0, turn), done: false }, turn);
      }
      const a = parsed.action;
      if (a.kind === "finish") {
        const turnReward = rules.finishUnpenalized ? 0 : shaped(0, turn);
        const content = shown(rules.finishFeedback?.(state, task.data) ?? "Episode finished.", turnReward);
        const obs: ConversationMessage = { role: "user", source: "environment", content, turn };
        return { observations: [obs], turnReward, done: true, endReason: "agent_finished" };
      }
      let kind = a.kind === "action" || a.kind === "answer" || a.kind === "search" ? a.kind : null;
      let content = a.kind === "action" ? a.content : a.kind === "answer" ? a.answer : a.kind === "search" ? a.query : "";
      if (rules.bareMessagesAct && (kind === null || !rules.kinds.includes(kind)) && (a.kind === "message" || a.kind === "search")) {
        content = a.kind === "message" ? a.text : `[search] ${a.query}`;
        kind = "action";
      }
      if (kind === null || !rules.kinds.includes(kind)) {
        const what = kind === null ? "Your message has no bracketed action" : `This game has no [${kind}]`;
        return formatFeedback(turn, "unsupported_action", `${what}.`);
      }
      let out: GymTurnOutcome;
      try {
        out = await rules.onAction(kind, content.trim(), state, task.data, { llm: ctx.llm, turn });
      } catch (e) {
        const obs: ConversationMessage = {
          role: "user",
          source: "environment",
          content: `Environment error: ${(e as Error).message}`,
          turn,
        };
        return { observations: [obs], done: true, endReason: "error" };
      }
      const turnReward = shaped(out.turnReward, turn);
      // An episode left unscored (the user side failed) shows no reward: there is none to show.
      const unscored = out.endReason === "error";
      const obs: ConversationMessage = {
        role: "user",
        source: out.source,
        content: unscored ? out.feedback : shown(out.feedback, turnReward),
        turn,
      };
      if (out.llmCallIds?.length) obs.llmCallIds = out.llmCallIds;
      const r: StepResult = { observations: [obs], turnReward, done: out.done === true };
      if (out.done) r.endReason = out.endReason ?? "env_terminal";
      return finish(r, turn);
    },

    async evaluate(endReason: EpisodeEndReason): Promise<Evaluation> {
      return rules.evaluate(state, task.data, endReason);
    },
  };
}

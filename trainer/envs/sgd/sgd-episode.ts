/**
 * One Agent Gym episode on an SGD goal: the policy talks to a simulated user (LLM or offline rule-based) and calls
 * services that the tool mocker answers from recorded results. Reward, by `rewardMode`:
 * - "turn_judge" (agent_gym's, the default): each assistant turn judged on its own (turn-judge.ts); the turn's
 *   score is its turn reward (for turn-level credit) and the episode's reward is their mean;
 * - "goal_blend": goal completion (programmatic: right services with the goal's slot values) blended with an
 *   episode-level judge's quality score.
 */
import type { ConversationMessage } from "../../../lib/conversation";
import type { Episode, EpisodeContext, Evaluation, StepResult } from "../types";
import { formatErrorObservation, readPolicyAction, toolCallIdPrefix, type ToolPromptStyle } from "../parse";
import type { EpisodeEndReason, ToolCall } from "../../../lib/conversation";
import type { SgdDialogue } from "./sgd-format";
import type { RecordedCall, SgdTaskData } from "./sgd-task";
import type { UserTemplates } from "./user-templates";
import { createToolMocker, type LlmMockStage, type MockResponse } from "./tool-mocker";
import { llmMock } from "./llm-mocker";
import { canonicalParameters, normalizeSlotValue } from "./normalize-slot-value";
import { createOfflineUserState, offlineUserReply, openingUtterance, STOP_TOKEN } from "./offline-user";
import { buildUserSystemPrompt, userSideMessages } from "./user-prompt";
import { selectFewShotDialogues } from "./few-shot";
import { judgeEpisode, type JudgeFacts } from "./sgd-judge";
import { formatToolResults, sgdSystemPrompt, sgdToolSchemas } from "./sgd-tools";
import { isGroundedCall, judgeTurn, QUALITY_SCORES, recordedSlotValues, totalScore, type TurnVerdict } from "./turn-judge";
import { mulberry32 } from "../../../lib/seeded-random";

export interface SgdEpisodeOptions {
  /** Real dialogues for few-shot user prompts (none for builtin tasks without a loaded corpus). */
  corpus: SgdDialogue[];
  /** Extra recordings the mocker may replay besides the task's own (e.g. the whole loaded corpus). */
  extraRecordings: RecordedCall[];
  templates: UserTemplates;
  /** Share of the judge in the reward; the rest is goal completion. */
  judgeWeight: number;
  fewShot: number;
  /** The user LLM's style instruction (an optimised user prompt's); the default one when absent. */
  userInstruction?: string;
  toolStyle: ToolPromptStyle;
  /** How calls are matched to recordings, and agent_gym's fallbacks (tool-mocker.ts). */
  mocker: { matching: "agent_gym" | "tolerant"; fuzzy: boolean; llmFallback: boolean; anyRecording: boolean };
  rewardMode: "turn_judge" | "goal_blend";
}

interface MadeCall {
  call: ToolCall;
  response: MockResponse;
}

/** A seeded pick in [0, n) so the offline user's phrasing is reproducible per (seed, turn). */
function seededPick(seed: number): (n: number) => number {
  const uniform = mulberry32(seed);
  return (n) => Math.floor(uniform() * n);
}

/** Per goal intent: share of its slots (defaults filled) the best matching successful call got right. */
export function goalScores(task: SgdTaskData, calls: MadeCall[]): number[] {
  return task.goal.map((g) => {
    const defaults = task.services.find((s) => s.name === g.service)?.intents.find((i) => i.name === g.intent)?.optionalSlots ?? {};
    const want = canonicalParameters(g.parameters, defaults);
    let best = 0;
    for (const { call, response } of calls) {
      if (!response.ok || response.service !== g.service || response.method !== g.intent) continue;
      const got = canonicalParameters(call.arguments, defaults);
      const keys = new Set([...Object.keys(want), ...Object.keys(got)]);
      const same = [...keys].filter((k) => want[k] !== undefined && want[k] === got[k]).length;
      best = Math.max(best, keys.size === 0 ? 1 : same / keys.size);
    }
    return best;
  });
}

/** Values the services returned so far (normalized, longer than 3 characters): what "reporting a result" means. */
function resultValuesOf(calls: MadeCall[]): Set<string> {
  return new Set(
    calls
      .flatMap((c) => (c.response.ok ? c.response.results.flatMap((r) => Object.values(r)) : []))
      .map(normalizeSlotValue)
      .filter((v) => v.length > 3),
  );
}

/**
 * The result values of grounded calls only, in call order (a call's results ground the calls after it): the mocker
 * answers any call of a known method, so what a junk call "returned" grounds nothing for the offline rater.
 */
function groundedCalls(calls: MadeCall[], slotValues: Map<string, Set<string>>): { values: Set<string>; calls: Set<ToolCall> } {
  const values = new Set<string>();
  const grounded = new Set<ToolCall>();
  for (const c of calls)
    if (isGroundedCall(c.call.arguments, slotValues, values)) {
      grounded.add(c.call);
      for (const v of resultValuesOf([c])) values.add(v);
    }
  return { values, calls: grounded };
}

/** The policy's plain messages since its last grounded call, lower-cased: what a new message may not just repeat. */
function repliesSinceGroundedCall(before: ConversationMessage[], grounded: Set<ToolCall>): string[] {
  const policy = before.filter((m) => m.source === "policy");
  const last = policy.findLastIndex((m) => m.toolCalls?.some((c) => grounded.has(c)) === true);
  return policy
    .slice(last + 1)
    .filter((m) => !m.toolCalls && !m.formatError)
    .map((m) => m.content.toLowerCase());
}

/** The conversation as the judges read it: one line per message, service calls as JSON. */
function transcriptOf(messages: ConversationMessage[]): string {
  return messages
    .filter((m) => m.source !== "system")
    .map(
      (m) =>
        `${m.source.toUpperCase()}: ${m.toolCalls ? JSON.stringify(m.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments }))) : m.content}`,
    )
    .join("\n");
}

export function createSgdEpisode(task: SgdTaskData, ctx: EpisodeContext, opts: SgdEpisodeOptions): Episode {
  const toolsAsSchemas = ctx.toolPresentation === "schemas";
  const mocker = createToolMocker(task.services, task.recordedCalls, opts.extraRecordings, opts.mocker);
  const history: ConversationMessage[] = [];
  const calls: MadeCall[] = [];
  const userState = createOfflineUserState();
  const pick = seededPick(ctx.seed);
  let formatErrors = 0;
  let userDone = false;
  let policyTurns = 0;
  /** agent_gym's per-turn judgements (turn_judge mode); null for a turn whose judgement could not be read. */
  const turnVerdicts: (TurnVerdict | null)[] = [];
  const toolsText = sgdToolSchemas(task.services)
    .map((t) => `${t.name}: ${t.description}`)
    .join("\n");
  const examples = selectFewShotDialogues(task, opts.corpus, opts.fewShot);
  const userSystem = buildUserSystemPrompt(task, examples, opts.userInstruction);
  const slotValues = recordedSlotValues(task.goal, task.recordedCalls);

  async function askUser(turn: number, agentText: string | null): Promise<ConversationMessage> {
    const messages = [{ role: "system" as const, content: userSystem }, ...userSideMessages(history)];
    if (agentText === null) messages.push({ role: "user", content: "(The assistant is ready. Start the conversation.)" });
    const completed = new Set(goalScores(task, calls).flatMap((s, i) => (s === 1 ? [i] : [])));
    const res = await ctx.llm.chat({
      role: "user_simulator",
      turn,
      messages,
      offline: () =>
        agentText === null
          ? openingUtterance(task.goal, task.services, opts.templates, pick)
          : offlineUserReply(userState, {
              goal: task.goal,
              services: task.services,
              templates: opts.templates,
              completed,
              agentText,
              pick,
            }),
    });
    const stop = res.text.includes(STOP_TOKEN);
    if (stop) userDone = true;
    return { role: "user", source: "user_simulator", content: res.text.replace(STOP_TOKEN, "").trim(), turn, llmCallIds: [res.callId] };
  }

  async function runCall(call: ToolCall, turn: number): Promise<ConversationMessage> {
    const llmStage: LlmMockStage = async (c) => {
      const mock = await llmMock(ctx.llm, turn, c);
      return { rows: mock.ok ? mock.results : null, callId: mock.callId };
    };
    const response = await mocker.call(call.name, call.arguments, opts.mocker.llmFallback ? llmStage : undefined);
    calls.push({ call, response });
    const content = response.ok ? formatToolResults(response.results) : JSON.stringify({ error: response.error });
    // Recorded answers come from the tools' recordings; invented ones from the LLM mocker, attributed as such.
    const source = response.ok && response.match === "llm" ? "tool_simulator" : "tool";
    const llmCallIds = response.llmCallIds;
    return { role: "tool", source, content, turn, toolCallId: call.id, name: call.name, ...(llmCallIds && { llmCallIds }) };
  }

  /** How many calls agent_gym's fallbacks answered (fuzzy recording, LLM mocker, first recording); absent when none did. */
  function mockComponents(): Record<string, number> {
    const answered = calls.flatMap((c) => (c.response.ok ? [c.response.match] : []));
    if (!answered.some((m) => m === "fuzzy" || m === "llm" || m === "first")) return {};
    const count = (m: string) => answered.filter((x) => x === m).length;
    return { mocked_fuzzy: count("fuzzy"), mocked_llm: count("llm"), mocked_first: count("first") };
  }

  /** The episode under agent_gym's reward: the mean of its turn scores; unscored if any turn's judgement was unreadable. */
  function turnJudgeEvaluation(goalCompletion: number, perIntent: number[]): Evaluation {
    const finalState = calls.map((c) => ({
      name: c.call.name,
      arguments: c.call.arguments,
      ok: c.response.ok,
      ...(c.response.ok && { answeredBy: c.response.match }),
    }));
    const expectedState = task.goal.map((g) => ({ name: g.intent, arguments: g.parameters }));
    const components: Record<string, number> = {
      goal_completion: goalCompletion,
      tool_calls: calls.length,
      tool_errors: calls.filter((c) => !c.response.ok).length,
      format_errors: formatErrors,
      ...mockComponents(),
    };
    const perTurn = turnVerdicts.map((v, i) =>
      v
        ? `turn ${i}: ${v.quality}${v.toolCorrect === undefined ? "" : `, ${v.toolCorrect ? "right" : "wrong"} service, args ${Math.round((v.toolArgs ?? 0) * 100)}%`} → ${(totalScore(v) / 2).toFixed(3)} (${v.reasoning})`
        : `turn ${i}: judgement unreadable`,
    );
    const goalNote = `Goal completion per intent (reported, not rewarded): ${perIntent.map((s, i) => `${task.goal[i].intent}=${s.toFixed(2)}`).join(", ")}.`;
    if (turnVerdicts.length === 0 || turnVerdicts.some((v) => v === null)) {
      return {
        reward: null,
        components,
        reasoning: `Unscored: ${turnVerdicts.length === 0 ? "no assistant turn to judge" : "a turn's judgement could not be read"}. ${perTurn.join("; ")}. ${goalNote}`,
        finalState,
        expectedState,
      };
    }
    const verdicts = turnVerdicts as TurnVerdict[];
    const scores = verdicts.map((v) => totalScore(v) / 2);
    components.turn_judge_mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    components.judge_quality = verdicts.reduce((a, v) => a + QUALITY_SCORES[v.quality], 0) / verdicts.length;
    return {
      reward: Math.round(components.turn_judge_mean * 1000) / 1000,
      components,
      reasoning: `agent_gym's per-turn judge, mean of ${scores.length} turns. ${perTurn.join("; ")}. ${goalNote}`,
      finalState,
      expectedState,
    };
  }

  return {
    async reset() {
      history.push({
        role: "system",
        source: "system",
        turn: 0,
        content: sgdSystemPrompt(task.services, toolsAsSchemas ? null : opts.toolStyle),
      });
      history.push(await askUser(0, null));
      return [...history];
    },

    tools: () => (toolsAsSchemas ? sgdToolSchemas(task.services) : []),

    async step(policyText, turn, toolCalls): Promise<StepResult> {
      policyTurns++;
      const parsed = readPolicyAction(policyText, toolCalls, { idPrefix: toolCallIdPrefix(turn) });
      const own: ConversationMessage = { role: "assistant", source: "policy", content: policyText, turn };
      history.push(own); // before asking the user, who must see this message
      const observations: ConversationMessage[] = [];
      let endReason: EpisodeEndReason | undefined;
      try {
        if (!parsed.ok) {
          formatErrors++;
          own.formatError = `${parsed.error.code}: ${parsed.error.message}`;
          observations.push(
            formatErrorObservation(parsed.error, turn, "Call a service with a JSON function call, or write to the user in plain text."),
          );
        } else {
          const a = parsed.action;
          const toolCalls = a.kind === "tool_calls" ? a.calls : a.kind === "action" && a.call ? [a.call] : [];
          if (toolCalls.length > 0) {
            own.toolCalls = toolCalls;
            for (const c of toolCalls) observations.push(await runCall(c, turn));
          } else if (a.kind === "action" || a.kind === "search") {
            formatErrors++;
            own.formatError = `unsupported_action: ${a.kind}`;
            observations.push({
              role: "user",
              source: "environment",
              turn,
              formatError: `unsupported_action: ${a.kind}`,
              content:
                "This environment has no free-text actions or search: call a service as a JSON function call, or write to the user in plain text.",
            });
          } else if (a.kind === "finish") {
            endReason = "agent_finished";
          } else {
            const text = a.kind === "answer" ? a.answer : a.text;
            own.content = text;
            const reply = await askUser(turn, text);
            observations.push(reply);
            if (userDone) endReason = "user_done";
          }
        }
      } catch (e) {
        observations.push({ role: "user", source: "environment", turn, content: `Environment error: ${(e as Error).message}` });
        endReason = "error";
      }
      const before = history.filter((m) => m !== own);
      history.push(...observations);
      if (!endReason && turn + 1 >= ctx.maxTurns) endReason = "max_turns";
      let turnReward: number | undefined;
      if (opts.rewardMode === "turn_judge" && endReason !== "error") {
        const made = own.toolCalls?.[0] ? calls.find((c) => c.call === own.toolCalls![0]) : undefined;
        const grounded = groundedCalls(calls, slotValues);
        const judged = await judgeTurn(ctx.llm, turn, {
          history: transcriptOf(before),
          userMessage: [...before].reverse().find((m) => m.source === "user_simulator")?.content ?? "",
          response: policyText,
          tools: toolsText,
          call: made ? { name: made.call.name, arguments: made.call.arguments, ok: made.response.ok } : null,
          formatError: own.formatError !== undefined,
          goal: task.goal,
          resultValues: grounded.values,
          slotValues,
          earlierReplies: repliesSinceGroundedCall(before, grounded.calls),
        });
        turnVerdicts.push(judged?.verdict ?? null);
        if (judged) {
          turnReward = totalScore(judged.verdict) / 2;
          own.llmCallIds = [...(own.llmCallIds ?? []), ...judged.callIds];
        }
      }
      const result: StepResult = endReason ? { observations, done: true, endReason } : { observations, done: false };
      return turnReward === undefined ? result : { ...result, turnReward };
    },

    async evaluate(endReason): Promise<Evaluation> {
      const perIntent = goalScores(task, calls);
      const goalCompletion = perIntent.reduce((a, b) => a + b, 0) / Math.max(1, perIntent.length);
      const resultValues = resultValuesOf(calls);
      const saidToUser = history.filter((m) => m.source === "policy" && !m.toolCalls && !m.formatError).map((m) => m.content.toLowerCase());
      const facts: JudgeFacts = {
        goalCompletion,
        toolCalls: calls.length,
        toolErrors: calls.filter((c) => !c.response.ok).length,
        formatErrors,
        informedUser: [...resultValues].some((v) => saidToUser.some((t) => t.includes(v))),
        userDone: userDone || endReason === "user_done",
        policyTurns,
        maxTurns: ctx.maxTurns,
      };
      const transcript = transcriptOf(history);
      if (opts.rewardMode === "turn_judge") return turnJudgeEvaluation(goalCompletion, perIntent);
      const verdict = await judgeEpisode(ctx.llm, task.goal, transcript, facts, policyTurns);
      const components: Record<string, number> = {
        goal_completion: goalCompletion,
        tool_errors: facts.toolErrors,
        tool_calls: facts.toolCalls,
        format_errors: formatErrors,
      };
      // How each call was answered (exact / filtered / fuzzy recording, or the LLM mocker), for the inspector.
      const finalState = calls.map((c) => ({
        name: c.call.name,
        arguments: c.call.arguments,
        ok: c.response.ok,
        ...(c.response.ok && { answeredBy: c.response.match }),
      }));
      Object.assign(components, mockComponents());
      const expectedState = task.goal.map((g) => ({ name: g.intent, arguments: g.parameters }));
      if (!verdict) {
        return {
          reward: null,
          components,
          reasoning: "The judge's reply could not be read as {score, reasoning}; episode left unscored.",
          finalState,
          expectedState,
        };
      }
      components.judge_quality = verdict.score;
      const reward = (1 - opts.judgeWeight) * goalCompletion + opts.judgeWeight * verdict.score;
      return {
        reward: Math.round(reward * 1000) / 1000,
        components,
        reasoning: `Goal completion per intent: ${perIntent.map((s, i) => `${task.goal[i].intent}=${s.toFixed(2)}`).join(", ")}. Judge: ${verdict.reasoning}`,
        finalState,
        expectedState,
      };
    },
  };
}

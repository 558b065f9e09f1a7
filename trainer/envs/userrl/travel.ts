/**
 * Travel gym (UserRL TravelGym): the user asks for help planning a trip but says only part of what they want. The
 * agent looks up each travel aspect's options with `[search]`, uncovers the user's preferences with concrete
 * `[action]` questions, and recommends one option per aspect with `[answer] <id>`. Its rules, as TravelGym's
 * environment code applies them:
 * - a search is compared with the aspect's ground-truth arguments by a judge; aligned and new, it returns every
 *   option of that aspect (turn reward `searchCorrectReward`); every `searchFailureInterval`-th search fails with a
 *   backend error on purpose;
 * - a judge sorts each question: a concrete one about a preference the user holds (type 2, `preferenceCorrectReward`,
 *   the user lets the preference show indirectly), a concrete one about a preference they do not have (3), a vague
 *   one (4), or ordinary talk (1); after `elicitationInterval` off-target questions in a row the next one gets an
 *   apology and nothing more, as UserRL's training runs it (TravelGym's volunteering branch fails on a reply it never
 *   assigned); `volunteerPreferences` makes the user volunteer a random remaining preference there instead (its design);
 * - a recommendation earns `choiceBestReward` for the aspect's best option (the cheapest that meets every
 *   preference), `choiceCorrectReward` for another that meets them, nothing otherwise; several ids in one answer
 *   earn the sum; with one choice per aspect a second recommendation for an aspect is refused and the aspect's
 *   unrevealed preferences are dropped;
 * - the episode ends when every aspect's best option was recommended (not when every aspect merely has a
 *   recommendation: only TravelGym's synchronous step ends there, UserRL's training calls step_async), on [finish], or
 *   at the turn limit.
 * The episode's reward is UserRL's TravelGym evaluation score: the mean over the task's aspects of the best choice
 * reward recommended for it. Turn rewards (search, preference, choice) feed turn-level credit, as in UserRL's training.
 *
 * Deliberate differences: an unreadable judge or user reply is asked for again once, then the episode is unscored
 * (TravelGym counts an unreadable question judgement as ordinary talk, and a failed search judgement or user reply as
 * a backend error, losing the turn's reward); the prompts are TravelGym's instructions in our words; option order is
 * shuffled per task with the project's seeded PRNG, not numpy's.
 *
 * Offline (no LLM endpoint): a search is aligned when it names the aspect and every argument value; a question is
 * type 2 when it mentions a remaining preference's keywords, 3 when it mentions only revealed ones, 4 when it names an
 * aspect with "prefer"/"any"/"like"… but no preference; the user replies with the preference's implicit statement.
 */
import { mulberry32 } from "../../../lib/seeded-random";
import type { TravelOptions } from "../../../lib/userrl-options";
import type { GymIo, GymRules, GymTurnOutcome } from "./gym-episode";
import { askJson, firstJsonObject } from "./ask-json";
import { countKeywordHits } from "./keyword-match";
import type { GymData } from "./task-schemas";
import { aspectOfInitial, mentionsAspect, OPTION_FIELDS, OPTION_ID, readAspect, TRAVEL_ASPECTS, type TravelAspect } from "./travel-aspects";

export type TravelTask = GymData<"travel">;

interface Preference {
  /** P1, P2, … in task order, as TravelGym numbers them. */
  id: string;
  aspect: TravelAspect;
  subcategory: string;
  preference: string;
  implicitElicitation: string;
  keywords: string[];
}

type Verdict = "best" | "correct" | "wrong";

interface HistoryEntry {
  speaker: "Agent" | "User" | "Database";
  content: string;
  /** What the user side made of the agent's message (shown to the LLM user and judge, as TravelGym's notes are). */
  note?: string;
}

interface TravelState {
  remaining: Preference[];
  revealed: (Preference & { how: "asked" | "volunteered" })[];
  unsearched: TravelAspect[];
  searches: number;
  alignedSearches: number;
  remainingBest: string[];
  remainingCorrect: string[];
  /** Initials recommended so far (TravelGym's choice_initials, which counts any initial, even of an aspect not in the task). */
  chosenInitials: string[];
  choices: { id: string; aspect: TravelAspect | null; verdict: Verdict; reward: number }[];
  /** Off-target questions in a row (TravelGym's nonpreference_times). */
  offTarget: number;
  history: HistoryEntry[];
  random: () => number;
  failure: string | null;
}

const VAGUE = /\b(prefer|preference|preferences|any|like|want|need|wish)\b/i;

const NOT_HELD =
  "Good question, but I have no particular preference there (or I have told you already). Ask me about some other specific detail.";
const TOO_VAGUE = "That is too general for me to answer. Ask about one specific detail of what I want, and I can tell you more precisely.";
const APOLOGY = "Sorry, I can't really answer that right now. Could you try again?";
const BACKEND_DOWN = "The search backend is having trouble right now. Please try again later.";

function preferencesOf(task: TravelTask): Preference[] {
  let n = 0;
  return task.aspects.flatMap((a) => a.preferences.map((p) => ({ id: `P${++n}`, aspect: a.name, ...p })));
}

// ---- offline judges and user -------------------------------------------------------------------------------------

function argumentValues(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap(argumentValues);
  if (typeof value === "object") return Object.values(value).flatMap(argumentValues);
  return [String(value)];
}

/** Aligned when exactly one aspect is named and every one of its argument values appears in the request. */
export function offlineSearchVerdict(
  task: TravelTask,
  request: string,
): { alignment_judgement: "True" | "False"; alignment_aspect?: TravelAspect } {
  const lower = request.toLowerCase();
  const named = task.aspects.filter((a) => mentionsAspect(request, a.name));
  const aligned = named.filter((a) => argumentValues(a.arguments).every((v) => lower.includes(v.toLowerCase())));
  return named.length === 1 && aligned.length === 1
    ? { alignment_judgement: "True", alignment_aspect: aligned[0].name }
    : { alignment_judgement: "False" };
}

export type UtteranceType = { type: 1 | 3 | 4 } | { type: 2; preferenceId: string };

export function offlineUtteranceType(state: Pick<TravelState, "remaining" | "revealed">, utterance: string): UtteranceType {
  let best: { id: string; score: number } | null = null;
  for (const p of state.remaining) {
    const hits = countKeywordHits(utterance, p.keywords);
    if (hits === 0) continue;
    const score = hits + (mentionsAspect(utterance, p.aspect) ? 0.5 : 0);
    if (!best || score > best.score) best = { id: p.id, score };
  }
  if (best) return { type: 2, preferenceId: best.id };
  if (state.revealed.some((p) => countKeywordHits(utterance, p.keywords) > 0)) return { type: 3 };
  if (TRAVEL_ASPECTS.some((a) => mentionsAspect(utterance, a)) && VAGUE.test(utterance)) return { type: 4 };
  return { type: 1 };
}

// ---- LLM prompts (TravelGym's instructions, in our words) ----------------------------------------------------------

const historyText = (h: HistoryEntry[]): string =>
  h.length ? h.map((e) => `${e.speaker}: ${e.content}${e.note ? `\n[Note: ${e.note}]` : ""}`).join("\n\n") : "No previous conversation.";

const preferenceLine = (p: Preference): string => `Preference ${p.id} (${p.aspect}): ${p.preference}`;

function searchJudgeMessages(task: TravelTask, request: string) {
  const truth = task.aspects.map((a) => `Aspect: ${a.name}\n${JSON.stringify(a.arguments, null, 2)}`).join("\n\n");
  return [
    {
      role: "system" as const,
      content:
        "You judge a travel agent's database search. It is aligned only if it is one single request that covers every " +
        "ground-truth argument of one aspect, each correctly; a missing, wrong or ambiguous argument, or several requests " +
        'at once, make it not aligned. Reply with only JSON {"alignment_judgement": "True" or "False", "alignment_aspect": ' +
        '"flight" | "hotel" | "restaurant" | "apartment" | "rental_car" (when True)}.',
    },
    { role: "user" as const, content: `The agent's search request:\n${request}\n\nGround-truth arguments:\n${truth}` },
  ];
}

function utteranceJudgeMessages(task: TravelTask, state: TravelState, utterance: string) {
  return [
    {
      role: "system" as const,
      content:
        "You classify a travel agent's latest message to a user whose preferences are listed. Types: 1 = ordinary " +
        "conversation, not a concrete question about a preference; 2 = a concrete, specific question about one of the " +
        "listed preferences; 3 = a concrete question about a preference that is not listed; 4 = a vague, general question " +
        '("any preferences for the car?" is vague; "which car model do you like?" is concrete). Reply with only JSON ' +
        '{"type": "1" | "2" | "3" | "4", "preference_id": "the listed id, for type 2 only (the most relevant if several fit)"}.',
    },
    {
      role: "user" as const,
      content:
        `Trip: ${task.scenario}\n\nConversation so far:\n${historyText(state.history)}\n\nThe agent's latest message:\n${utterance}\n\n` +
        `Preferences:\n${state.remaining.map(preferenceLine).join("\n") || "(none left)"}`,
    },
  ];
}

type ReplyMode = "reveal" | "volunteer" | "neutral";

const USER_BRIEF: Record<ReplyMode, string> = {
  reveal:
    "The agent just asked about a preference you hold. Answer naturally and let the preference show indirectly, guided " +
    'by its implicit statement; never say "my preference is".',
  volunteer:
    "The conversation has drifted from what you care about for a while. Steer it back naturally and let this preference " +
    "show indirectly, guided by its implicit statement; say which part of the trip (flight, hotel…) it concerns if the " +
    "statement leaves that unclear.",
  neutral:
    "The agent's message is not about any preference of yours. Reply briefly and neutrally, ask nothing, and reveal no " +
    'preference; if asked for one, say you have none ("anything is fine").',
};

function userMessages(mode: ReplyMode, state: TravelState, utterance: string, preference?: Preference) {
  const about = preference
    ? `Your preference (${preference.aspect}): ${preference.preference}\nImplicit statement: ${preference.implicitElicitation}\n\n`
    : "";
  return [
    {
      role: "system" as const,
      content: `You are a traveller planning a trip with an agent. ${USER_BRIEF[mode]} Keep it consistent with the conversation. Reply with only JSON {"thought": "how you will answer", "response": "what you say"}.`,
    },
    {
      role: "user" as const,
      content: `${about}Conversation so far:\n${historyText(state.history)}\n\nThe agent's latest message:\n${utterance}`,
    },
  ];
}

// ---- reading replies ----------------------------------------------------------------------------------------------

function readSearchVerdict(task: TravelTask) {
  return (text: string): { aligned: boolean; aspect: TravelAspect | null; unrelated?: boolean } | null => {
    const v = firstJsonObject(text);
    const judgement = String(v?.alignment_judgement ?? "")
      .trim()
      .toLowerCase();
    if (judgement === "false" || judgement === "n/a") return { aligned: false, aspect: null, unrelated: judgement === "n/a" };
    if (judgement !== "true") return null;
    const aspect = readAspect(String(v?.alignment_aspect ?? ""));
    return aspect && task.aspects.some((a) => a.name === aspect) ? { aligned: true, aspect } : null;
  };
}

function readUtteranceType(remaining: Preference[]) {
  return (text: string): UtteranceType | null => {
    const v = firstJsonObject(text);
    const type = Number(String(v?.type ?? "").trim());
    if (type === 1 || type === 3 || type === 4) return { type };
    if (type !== 2) return null;
    const id = String(v?.preference_id ?? "").trim();
    return remaining.some((p) => p.id === id) ? { type: 2, preferenceId: id } : null;
  };
}

const readUserReply = (text: string): string | null => {
  const response = firstJsonObject(text)?.response;
  return typeof response === "string" && response.trim() ? response.trim() : null;
};

// ---- the turns ----------------------------------------------------------------------------------------------------

function unscored(state: TravelState, why: string, llmCallIds: string[]): GymTurnOutcome {
  state.failure = why;
  return { feedback: "The other side could not answer.", source: "environment", turnReward: 0, done: true, endReason: "error", llmCallIds };
}

async function search(request: string, state: TravelState, task: TravelTask, io: GymIo, opts: TravelOptions): Promise<GymTurnOutcome> {
  state.searches++;
  const tell = (feedback: string, turnReward = 0, llmCallIds: string[] = [], logged = feedback): GymTurnOutcome => {
    state.history.push({ speaker: "Agent", content: request }, { speaker: "Database", content: logged });
    return { feedback, source: "tool", turnReward, llmCallIds };
  };
  if (state.searches % opts.searchFailureInterval === 0) return tell(BACKEND_DOWN);
  const judged = await askJson(io, {
    role: "judge",
    messages: searchJudgeMessages(task, request),
    read: readSearchVerdict(task),
    expected: 'expected JSON {"alignment_judgement": "True" | "False", "alignment_aspect": one of the task\'s aspects when True}',
    offline: () => JSON.stringify(offlineSearchVerdict(task, request)),
  });
  if (!judged.value) return unscored(state, "the search judge's reply could not be read twice", judged.callIds);
  const { aligned, aspect, unrelated } = judged.value;
  if (unrelated)
    return tell(
      "The search request is not about any of the searches this trip needs. Refine it: one request at a time, aligned " +
        "with the user's needs, with exactly the right arguments.",
      0,
      judged.callIds,
    );
  if (!aligned || !aspect) {
    return tell(
      "The search request does not match what the user needs, or its arguments are not accurate. Refine it: one request " +
        "at a time, aligned with the user's needs, with exactly the right arguments.",
      0,
      judged.callIds,
    );
  }
  if (!state.unsearched.includes(aspect)) {
    return tell(`The arguments are right, but you already have the results for <${aspect}>: refer to them.`, 0, judged.callIds);
  }
  state.unsearched = state.unsearched.filter((a) => a !== aspect);
  state.alignedSearches++;
  const options = task.aspects.find((a) => a.name === aspect)!.options;
  const head = `The search arguments are right. All options for <${aspect}>:`;
  const listing = [head, OPTION_FIELDS[aspect], ...options.map((o) => JSON.stringify(o))].join("\n");
  return tell(listing, opts.searchCorrectReward, judged.callIds, `${head} (listed to the agent)`);
}

async function userReply(mode: ReplyMode, state: TravelState, utterance: string, io: GymIo, preference?: Preference) {
  return askJson(io, {
    role: "user_simulator",
    messages: userMessages(mode, state, utterance, preference),
    read: readUserReply,
    expected: 'expected JSON {"thought": "...", "response": "..."} with a non-empty response',
    offline: () =>
      JSON.stringify({
        thought: preference ? `Hint at ${preference.id}.` : "Stay neutral.",
        response: preference ? preference.implicitElicitation : "Sounds fine to me; nothing to add on that.",
      }),
  });
}

function reveal(state: TravelState, id: string, how: "asked" | "volunteered"): Preference {
  const p = state.remaining.find((r) => r.id === id)!;
  state.remaining = state.remaining.filter((r) => r.id !== id);
  state.revealed.push({ ...p, how });
  return p;
}

const NOTES: Record<UtteranceType["type"] | "apology", string> = {
  apology: "Off target for several turns; I could not answer.",
  1: "Not a concrete question about a preference: answer naturally.",
  2: "A concrete question about a preference I hold: let it show indirectly.",
  3: "A concrete question about a preference I do not have: answer neutrally.",
  4: "Too vague a question about preferences: say so.",
};

async function converse(utterance: string, state: TravelState, task: TravelTask, io: GymIo, opts: TravelOptions): Promise<GymTurnOutcome> {
  const judged = await askJson(io, {
    role: "judge",
    messages: utteranceJudgeMessages(task, state, utterance),
    read: readUtteranceType(state.remaining),
    expected: 'expected JSON {"type": "1".."4", "preference_id": a listed id when type is 2}',
    offline: () => {
      const t = offlineUtteranceType(state, utterance);
      return JSON.stringify(t.type === 2 ? { type: "2", preference_id: t.preferenceId } : { type: String(t.type) });
    },
  });
  if (!judged.value) return unscored(state, "the question judge's reply could not be read twice", judged.callIds);
  const judgement = judged.value;
  const turnReward = judgement.type === 2 ? opts.preferenceCorrectReward : 0;
  const say = (feedback: string, source: GymTurnOutcome["source"], note: string, callIds: string[]): GymTurnOutcome => {
    state.history.push({ speaker: "Agent", content: utterance, note }, { speaker: "User", content: feedback });
    return { feedback, source, turnReward, llmCallIds: [...judged.callIds, ...callIds] };
  };

  let preference: Preference | undefined;
  let mode: ReplyMode = "neutral";
  let how: "asked" | "volunteered" = "asked";
  if (judgement.type === 2) {
    state.offTarget = 0;
    preference = state.remaining.find((p) => p.id === judgement.preferenceId);
    mode = "reveal";
  } else if (state.offTarget >= opts.elicitationInterval && state.remaining.length > 0) {
    // TravelGym checks this before the canned replies of types 3 and 4: a long detour makes the user speak up.
    state.offTarget = 0;
    // As UserRL's training runs TravelGym: its volunteering fails every time and its fallback apology answers.
    if (!opts.volunteerPreferences) return say(APOLOGY, "environment", NOTES.apology, []);
    preference = state.remaining[Math.floor(state.random() * state.remaining.length)];
    mode = "volunteer";
    how = "volunteered";
  } else {
    state.offTarget++;
    if (judgement.type === 3) return say(NOT_HELD, "environment", NOTES[3], []);
    if (judgement.type === 4) return say(TOO_VAGUE, "environment", NOTES[4], []);
  }
  const reply = await userReply(mode, state, utterance, io, preference);
  if (reply.value === null)
    return unscored(state, "the user simulator's reply could not be read twice", [...judged.callIds, ...reply.callIds]);
  if (preference) reveal(state, preference.id, how);
  const note = mode === "volunteer" ? "Off target for several turns: I bring up a preference myself." : NOTES[judgement.type];
  return say(reply.value, "user_simulator", note, reply.callIds);
}

/** What a recommendation turn found, as TravelGym sums it up (a best option outranks a correct one). */
type Finding = "best" | "best+wrong" | "correct" | "correct+wrong" | "none";
const FINDING_TEXT: Record<Finding, string> = {
  best: "That is the best option.",
  "best+wrong": "Your recommendations include the best option, and a wrong one.",
  correct: "That option meets the preferences, but it is not the best one.",
  "correct+wrong": "Your recommendations include an option that meets the preferences, and a wrong one.",
  none: "That option is neither the best nor one that meets the preferences.",
};

/**
 * `[answer] <id>[, <id>…]` as TravelGym's evaluation takes it: each id in turn earns its reward and is recorded; an id
 * of the wrong form, or (one choice per aspect) of an aspect already recommended for, stops the turn there with reward
 * 0, the ids before it staying recorded. The turn's reward is the sum, floored at 0 (two best options earn 2).
 */
function recommend(content: string, state: TravelState, task: TravelTask, opts: TravelOptions): GymTurnOutcome {
  const refuse = (feedback: string): GymTurnOutcome => ({ feedback, source: "environment", turnReward: 0 });
  let reward = 0;
  const found = { best: false, correct: false, wrong: false };
  for (const id of content.split(",").map((s) => s.trim())) {
    if (!OPTION_ID.test(id))
      return refuse(`'${id}' is not an option ID. An ID is a letter F, H, R, A or C and a number, e.g. H1, F12, C4.`);
    const initial = id[0];
    if (opts.oneChoicePerAspect && state.chosenInitials.includes(initial)) {
      return refuse(
        `You already recommended an option starting with '${initial}'. One recommendation per travel aspect: work on the other aspects now.`,
      );
    }
    let verdict: Verdict;
    let earned: number;
    if (state.remainingBest.includes(id)) {
      verdict = "best";
      earned = opts.choiceBestReward;
      state.remainingBest = state.remainingBest.filter((x) => x !== id);
      state.remainingCorrect = state.remainingCorrect.filter((x) => x !== id);
    } else if (state.remainingCorrect.includes(id)) {
      verdict = "correct";
      earned = opts.choiceCorrectReward;
      state.remainingCorrect = state.remainingCorrect.filter((x) => x !== id);
    } else {
      verdict = "wrong";
      earned = -opts.wrongChoicePenalty;
    }
    found[verdict] = true;
    reward += earned;
    if (!state.chosenInitials.includes(initial)) state.chosenInitials.push(initial);
    const aspect = aspectOfInitial(initial);
    state.choices.push({ id, aspect, verdict, reward: Math.max(0, earned) });
    // The aspect is settled: its unrevealed preferences can no longer be asked about.
    if (opts.oneChoicePerAspect && aspect) state.remaining = state.remaining.filter((p) => p.aspect !== aspect);
  }
  const finding: Finding = found.best
    ? found.wrong
      ? "best+wrong"
      : "best"
    : found.correct
      ? found.wrong
        ? "correct+wrong"
        : "correct"
      : "none";
  const next = opts.oneChoicePerAspect
    ? "Your choice is recorded; do not recommend for this aspect again. Continue with the other travel aspects."
    : "Your choice is recorded; do not recommend it again. Continue.";
  return { feedback: `${FINDING_TEXT[finding]} ${next}`, source: "environment", turnReward: Math.max(0, reward) };
}

/** Per aspect, the best choice reward recommended for it (UserRL's TravelGym evaluation score averages these). */
function aspectScores(state: TravelState, task: TravelTask): Record<string, number> {
  const scores: Record<string, number> = {};
  for (const a of task.aspects) scores[a.name] = Math.max(0, ...state.choices.filter((c) => c.aspect === a.name).map((c) => c.reward));
  return scores;
}

/** A scripted solver's question about a preference: concrete, naming what it is about. */
const askAbout = (p: { keywords: string[] }, aspect: TravelAspect) =>
  `What matters to you about the ${p.keywords[0]} for the ${aspect.replace("_", " ")}?`;

export function travelRules(opts: TravelOptions): GymRules<TravelTask, TravelState> {
  return {
    kinds: ["action", "search", "answer"],
    // TravelGym subtracts its step penalty once per turn (its other gyms: penalty × step count).
    stepPenalty: "once",
    finishUnpenalized: true,
    // TravelGym tests its tags as written, but lower-cases the message before testing [finish].
    lowerCaseTags: "except-finish",
    normalizeRewards: false,
    // Per aspect: search it with its arguments, ask about each preference, recommend the best option.
    solution: (t) =>
      t.aspects.flatMap((a) => [
        `[search] ${JSON.stringify({ aspect: a.name, arguments: a.arguments })}`,
        ...a.preferences.map((p) => `[action] ${askAbout(p, a.name)}`),
        `[answer] ${a.bestId}`,
      ]),
    instructions: (t) =>
      "Help the user plan a trip. Their first message is incomplete: they hold more preferences than they say, often " +
      "implicitly, so uncover them with concrete, specific questions (vague ones get you nothing). One action per message:\n" +
      '- "[search] <aspect and arguments>" looks up every option of one travel aspect, e.g. [search] {"aspect": "hotel", ' +
      '"arguments": {...}}; one aspect per search, with the arguments the user gave;\n' +
      '- "[action] <message>" talks to the user;\n' +
      `- "[answer] <option ID>" recommends one option, e.g. [answer] H3 — ${opts.oneChoicePerAspect ? "one recommendation per aspect, and it is final" : "one option per answer"};\n` +
      '- "[finish]" stops.\n' +
      `Aspects to plan: ${t.aspects.map((a) => a.name).join(", ")}. For each, the user wants the cheapest option that meets all ` +
      "their preferences. Search first, then ask, then recommend; your turns are limited.",
    opening: (t) => `${t.request}\nMy budget is limited too: of the options that meet my preferences, I'd like the cheapest for each.`,
    initState: (t, seed): TravelState => ({
      remaining: preferencesOf(t),
      revealed: [],
      unsearched: t.aspects.map((a) => a.name),
      searches: 0,
      alignedSearches: 0,
      remainingBest: t.aspects.map((a) => a.bestId),
      remainingCorrect: t.aspects.flatMap((a) => a.correctIds),
      chosenInitials: [],
      choices: [],
      offTarget: 0,
      history: [],
      random: mulberry32(seed ?? 0),
      failure: null,
    }),
    async onAction(kind, content, state, task, io) {
      const out =
        kind === "search"
          ? await search(content, state, task, io, opts)
          : kind === "action"
            ? await converse(content, state, task, io, opts)
            : recommend(content, state, task, opts);
      // TravelGym's step_async (what UserRL's training calls) ends the episode only when every best option was
      // recommended; its synchronous step also ends it once every aspect has a recommendation, step_async does not.
      if (out.done) return out;
      return state.remainingBest.length === 0 ? { ...out, done: true, endReason: "env_terminal" } : out;
    },
    evaluate: (s, t) => {
      const perAspect = aspectScores(s, t);
      const score = Object.values(perAspect).reduce((a, b) => a + b, 0) / t.aspects.length;
      const count = (v: Verdict) => s.choices.filter((c) => c.verdict === v).length;
      const components = {
        choice_score: Math.round(score * 1e6) / 1e6,
        best_choices: count("best"),
        correct_choices: count("correct"),
        wrong_choices: count("wrong"),
        preferences_asked: s.revealed.filter((p) => p.how === "asked").length,
        preferences_volunteered: s.revealed.filter((p) => p.how === "volunteered").length,
        preferences_total: preferencesOf(t).length,
        searches_aligned: s.alignedSearches,
      };
      const chosen = Object.fromEntries(s.choices.filter((c) => c.aspect).map((c) => [c.aspect!, c.id]));
      const expected = Object.fromEntries(t.aspects.map((a) => [a.name, a.bestId]));
      if (s.failure) return { reward: null, components, reasoning: `Not scored: ${s.failure}.`, finalState: { chosen } };
      const lines = t.aspects.map((a) => {
        const c = s.choices.find((x) => x.aspect === a.name);
        return c
          ? `${a.name}: ${c.id} (${c.verdict}${c.verdict === "best" ? "" : `; best ${a.bestId}`})`
          : `${a.name}: no recommendation (best ${a.bestId})`;
      });
      return {
        reward: components.choice_score,
        components,
        reasoning:
          `${lines.join("; ")}. ${s.revealed.length} of ${components.preferences_total} preferences came out ` +
          `(${components.preferences_asked} asked, ${components.preferences_volunteered} volunteered).`,
        finalState: { chosen },
        expectedState: { chosen: expected },
      };
    },
  };
}

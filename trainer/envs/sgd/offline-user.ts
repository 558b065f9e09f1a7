/**
 * The deterministic, goal-driven simulated user served by the offline provider. It pursues the task's goal one
 * intent at a time like SGD users do: states the intent, answers the slots the agent asks about from the goal
 * (never inventing values), volunteers a missing slot when the agent asks nothing answerable, affirms
 * confirmations, moves to the next intent once the agent's service call for the current one matched the goal, and
 * ends with STOP_TOKEN when every intent is done.
 */
import type { SgdService } from "./sgd-format";
import type { SgdGoalIntent } from "./sgd-task";
import type { UserTemplates } from "./user-templates";

/** Marks the user's last turn (the tau-bench convention, understood by LLM simulators too). */
export const STOP_TOKEN = "###STOP###";

const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const ordinal = (n: number): string =>
  `${n}${n % 10 === 1 && n !== 11 ? "st" : n % 10 === 2 && n !== 12 ? "nd" : n % 10 === 3 && n !== 13 ? "rd" : "th"}`;

/** How a person says a canonical value ("17:30" -> "5:30 pm", "2019-03-11" -> "March 11th"). */
export function speakValue(value: string): string {
  const t = /^(\d{2}):(\d{2})$/.exec(value);
  if (t) {
    const h = Number(t[1]);
    return `${h % 12 === 0 ? 12 : h % 12}${t[2] === "00" ? "" : `:${t[2]}`} ${h < 12 ? "am" : "pm"}`;
  }
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (d) return `${MONTH_NAMES[Number(d[2]) - 1]} ${ordinal(Number(d[3]))}`;
  if (value === "True") return "yes";
  if (value === "False") return "no";
  return value;
}

/** Extra words agents use when asking for common SGD slots; every slot also matches its own name's words. */
const SLOT_SYNONYMS: Record<string, string[]> = {
  city: ["city", "where", "location", "area", "town"],
  date: ["date", "day", "when"],
  time: ["time", "when", "what hour"],
  party_size: ["how many", "people", "party", "guests", "persons", "seats"],
  cuisine: ["cuisine", "type of food", "kind of food", "food"],
  price_range: ["price", "budget", "expensive", "cheap", "cost"],
  restaurant_name: ["restaurant", "which place", "name"],
};

const DESCRIPTION_STOPWORDS = new Set(
  "the and for with from that this which what whom whose into its are was were been being than also any all per".split(" "),
);

/**
 * The words of a slot's schema description that tell it apart from the service's other slots: Restaurants_2's
 * `location` ("City where the restaurant is located") gets "city" and "located", but not "restaurant", which
 * every slot of that service mentions.
 */
function descriptionKeywords(slot: string, service: SgdService | undefined): string[] {
  const own = service?.slots.find((s) => s.name === slot)?.description;
  if (!service || !own) return [];
  const wordsOf = (text: string) => new Set((text.toLowerCase().match(/[a-z]{3,}/g) ?? []).filter((w) => !DESCRIPTION_STOPWORDS.has(w)));
  const others = service.slots.filter((s) => s.name !== slot).map((s) => wordsOf(s.description));
  // A word shared with at most one other slot still points here (e.g. "date" in a date and a check-in slot).
  return [...wordsOf(own)].filter((w) => others.filter((o) => o.has(w)).length <= 1);
}

/** Words that count as the agent asking for `slot`: its name, common synonyms, and its schema description's words. */
export function slotKeywords(slot: string, service?: SgdService): string[] {
  const words = slot.split("_").filter((w) => w.length > 2);
  return [...new Set([slot.replace(/_/g, " "), ...words, ...(SLOT_SYNONYMS[slot] ?? []), ...descriptionKeywords(slot, service)])];
}

const mentions = (text: string, keyword: string): boolean =>
  new RegExp(`\\b${keyword.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "i").test(text);

const CONFIRM = /\b(confirm|shall i|should i|would you like|do you want|is that (right|correct)|proceed|go ahead|book it|reserve it)\b/i;

export interface OfflineUserState {
  intentIndex: number;
  /** `${goalIndex}:${slot}` for every goal value already given. */
  provided: Set<string>;
  announced: Set<number>;
  done: boolean;
}

export function createOfflineUserState(): OfflineUserState {
  return { intentIndex: 0, provided: new Set(), announced: new Set([0]), done: false };
}

export interface OfflineUserInput {
  goal: SgdGoalIntent[];
  services: SgdService[];
  templates: UserTemplates;
  /** Goal indices whose call the agent already made with the goal's slot values. */
  completed: ReadonlySet<number>;
  agentText: string;
  /** Deterministic choice among phrasings (seed + turn). */
  pick: (n: number) => number;
}

function phrase(templates: UserTemplates, slot: string, value: string, pick: (n: number) => number): string {
  const spoken = speakValue(value);
  const list = templates.inform[slot] ?? [];
  if (list.length > 0) return list[pick(list.length)].replace("{value}", spoken);
  return `The ${slot.replace(/_/g, " ")} should be ${spoken}.`;
}

function slotOrder(goal: SgdGoalIntent, services: SgdService[]): string[] {
  const intent = services.find((s) => s.name === goal.service)?.intents.find((i) => i.name === goal.intent);
  const order = intent ? [...intent.requiredSlots, ...Object.keys(intent.optionalSlots)] : [];
  return Object.keys(goal.parameters).sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
}

export function openingUtterance(
  goal: SgdGoalIntent[],
  services: SgdService[],
  templates: UserTemplates,
  pick: (n: number) => number,
): string {
  const first = goal[0];
  const list = templates.openers[first.intent] ?? [];
  if (list.length > 0) return list[pick(list.length)];
  const description = services.find((s) => s.name === first.service)?.intents.find((i) => i.name === first.intent)?.description;
  return `Hi! I need some help: ${(description ?? first.intent).toLowerCase()}.`;
}

/** The user's next utterance; mutates `state`. Ends with STOP_TOKEN once every goal intent is done. */
export function offlineUserReply(state: OfflineUserState, input: OfflineUserInput): string {
  const { goal, services, templates, completed, agentText, pick } = input;
  while (state.intentIndex < goal.length && completed.has(state.intentIndex)) state.intentIndex++;
  if (state.intentIndex >= goal.length) {
    state.done = true;
    return `${["Thank you, that's all I needed.", "Great, thanks a lot. That's all.", "Perfect, thank you for your help!"][pick(3)]} ${STOP_TOKEN}`;
  }
  const parts: string[] = [];
  if (!state.announced.has(state.intentIndex)) {
    state.announced.add(state.intentIndex);
    const next = goal[state.intentIndex];
    const list = templates.openers[next.intent] ?? [];
    const description = services.find((s) => s.name === next.service)?.intents.find((i) => i.name === next.intent)?.description;
    parts.push(
      list.length > 0 ? `Great. ${list[pick(list.length)]}` : `Great. Now I'd also like to ${(description ?? next.intent).toLowerCase()}.`,
    );
  }

  // Slots the agent asked about, answered from the current intent first, then from later ones.
  const asked: { gi: number; slot: string }[] = [];
  const seen = new Set<string>();
  for (let gi = state.intentIndex; gi < goal.length; gi++) {
    const service = services.find((s) => s.name === goal[gi].service);
    for (const slot of slotOrder(goal[gi], services)) {
      if (!seen.has(slot) && slotKeywords(slot, service).some((k) => mentions(agentText, k))) {
        seen.add(slot);
        asked.push({ gi, slot });
      }
    }
  }
  const isQuestion = /\?/.test(agentText) || /\b(please (provide|tell|let me know)|need (to know|your))\b/i.test(agentText);
  const answerable = isQuestion ? asked.filter((a) => !state.provided.has(`${a.gi}:${a.slot}`)) : [];
  const current = goal[state.intentIndex];
  const pending = slotOrder(current, services).filter((s) => !state.provided.has(`${state.intentIndex}:${s}`));

  if (answerable.length > 0) {
    for (const a of answerable.slice(0, 3)) {
      state.provided.add(`${a.gi}:${a.slot}`);
      parts.push(phrase(templates, a.slot, goal[a.gi].parameters[a.slot], pick));
    }
  } else if (CONFIRM.test(agentText) && pending.length === 0) {
    parts.push(["Yes, that's right.", "Yes, please go ahead.", "That works for me."][pick(3)]);
  } else if (pending.length > 0) {
    for (const slot of pending.slice(0, 2)) {
      state.provided.add(`${state.intentIndex}:${slot}`);
      parts.push(phrase(templates, slot, current.parameters[slot], pick));
    }
  } else if (isQuestion && asked.length > 0) {
    // The agent asked again for something already given: repeat it, as real users do.
    for (const a of asked.slice(0, 2)) parts.push(phrase(templates, a.slot, goal[a.gi].parameters[a.slot], pick));
  } else if (parts.length === 0) {
    parts.push(["Yes, please go ahead.", "Sounds good, please do that.", "Okay, go ahead."][pick(3)]);
  }
  return parts.join(" ");
}

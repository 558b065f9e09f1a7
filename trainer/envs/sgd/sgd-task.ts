/**
 * Turns a recorded SGD dialogue into an Agent Gym task: the user goal is what the real user ended up asking the
 * system to do — for each (service, intent) the parameters of its *last* service call (earlier calls are searches
 * the user refined or bookings that failed and were retried, as in dialogue 1_00002) — plus the dialogue's own
 * recorded calls, which the tool mocker replays.
 */
import path from "node:path";
import type { Task } from "../types";
import type { SgdCorpus, SgdDialogue, SgdService } from "./sgd-format";

export interface RecordedCall {
  service: string;
  method: string;
  parameters: Record<string, string>;
  results: Record<string, string>[];
}
export interface SgdGoalIntent {
  service: string;
  intent: string;
  /** The slot values the user wants this call made with (canonical, as the real system called it). */
  parameters: Record<string, string>;
}
export interface SgdTaskData {
  dialogueId: string;
  /** Schema of the services this dialogue uses (tool descriptions and required/optional slots). */
  services: SgdService[];
  goal: SgdGoalIntent[];
  recordedCalls: RecordedCall[];
}
export type SgdTask = Task<SgdTaskData>;

export function recordedCallsOf(dialogue: SgdDialogue): RecordedCall[] {
  const calls: RecordedCall[] = [];
  for (const turn of dialogue.turns) {
    for (const f of turn.frames) {
      if (f.serviceCall) {
        calls.push({
          service: f.service,
          method: f.serviceCall.method,
          parameters: f.serviceCall.parameters,
          results: f.serviceResults ?? [],
        });
      }
    }
  }
  return calls;
}

/** The goal of a dialogue, ordered by when each intent was first called; empty if the system never called. */
export function extractGoal(dialogue: SgdDialogue): SgdGoalIntent[] {
  const byIntent = new Map<string, SgdGoalIntent>();
  for (const c of recordedCallsOf(dialogue)) {
    const key = `${c.service}.${c.method}`;
    const goal = { service: c.service, intent: c.method, parameters: c.parameters };
    if (byIntent.has(key))
      byIntent.set(key, goal); // Map keeps first-insertion order, value becomes the last call
    else byIntent.set(key, goal);
  }
  return [...byIntent.values()];
}

export function taskFromDialogue(dialogue: SgdDialogue, services: SgdService[], split: string): SgdTask | null {
  const goal = extractGoal(dialogue);
  if (goal.length === 0) return null;
  const used = services.filter((s) => dialogue.services.includes(s.name));
  return {
    id: `sgd-${dialogue.dialogueId}`,
    split,
    tags: [...dialogue.services, ...goal.map((g) => g.intent), goal.length > 1 ? "multi_intent" : "single_intent"],
    data: { dialogueId: dialogue.dialogueId, services: used, goal, recordedCalls: recordedCallsOf(dialogue) },
  };
}

export function tasksFromCorpus(corpus: SgdCorpus, dir: string): SgdTask[] {
  const split = path.basename(path.resolve(dir));
  return corpus.dialogues.flatMap((d) => taskFromDialogue(d, corpus.services, split) ?? []);
}

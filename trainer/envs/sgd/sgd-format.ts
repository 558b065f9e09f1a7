/**
 * Importer for the Schema-Guided Dialogue corpus (Rastogi et al., 2020; google-research-datasets/
 * dstc8-schema-guided-dialogue): `schema.json` lists services with intents and slots, `dialogues_*.json` hold
 * annotated dialogues whose SYSTEM frames carry the real `service_call` and `service_results`. Agent Gym replays
 * these recordings as a mock backend, so the importer keeps exactly the fields that replay needs and rejects
 * anything else with a DatasetError naming the file and the record.
 */
import { readdir } from "node:fs/promises";
import { jsonErrorDetail, readDataFile, readErrorDetail } from "../../data-roots";
import path from "node:path";
import { DatasetError } from "../types";

export interface SgdSlot {
  name: string;
  description: string;
  isCategorical: boolean;
  possibleValues: string[];
}
export interface SgdIntent {
  name: string;
  description: string;
  isTransactional: boolean;
  requiredSlots: string[];
  /** Optional slot -> default value the backend assumes when the slot is omitted. */
  optionalSlots: Record<string, string>;
  resultSlots: string[];
}
export interface SgdService {
  name: string;
  description: string;
  slots: SgdSlot[];
  intents: SgdIntent[];
}
export interface SgdAction {
  act: string;
  slot: string;
  values: string[];
}
export interface SgdServiceCall {
  method: string;
  parameters: Record<string, string>;
}
export interface SgdFrame {
  service: string;
  actions: SgdAction[];
  /** Character spans of slot values in the utterance (non-categorical slots only). */
  spans: { slot: string; start: number; end: number }[];
  activeIntent?: string;
  serviceCall?: SgdServiceCall;
  serviceResults?: Record<string, string>[];
}
export interface SgdTurn {
  speaker: "USER" | "SYSTEM";
  utterance: string;
  frames: SgdFrame[];
}
export interface SgdDialogue {
  dialogueId: string;
  services: string[];
  turns: SgdTurn[];
}
export interface SgdCorpus {
  services: SgdService[];
  dialogues: SgdDialogue[];
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isStrArr = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
const isStrRecord = (v: unknown): v is Record<string, string> => isObj(v) && Object.values(v).every((x) => typeof x === "string");

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readDataFile(file);
  } catch (e) {
    throw new DatasetError(file, null, readErrorDetail(e));
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new DatasetError(file, null, jsonErrorDetail(e));
  }
}

export function parseSgdSchema(raw: unknown, file: string): SgdService[] {
  if (!Array.isArray(raw)) throw new DatasetError(file, null, "expected a JSON array of services");
  return raw.map((s, i) => {
    const rec = isObj(s) && typeof s.service_name === "string" ? s.service_name : i;
    const fail = (detail: string): never => {
      throw new DatasetError(file, rec, detail);
    };
    if (!isObj(s) || typeof s.service_name !== "string") return fail("service needs a string service_name");
    if (!Array.isArray(s.slots) || !Array.isArray(s.intents)) return fail("service needs slots[] and intents[]");
    const slots = s.slots.map((sl): SgdSlot => {
      if (!isObj(sl) || typeof sl.name !== "string") return fail("every slot needs a string name");
      return {
        name: sl.name,
        description: typeof sl.description === "string" ? sl.description : "",
        isCategorical: sl.is_categorical === true,
        possibleValues: isStrArr(sl.possible_values) ? sl.possible_values : [],
      };
    });
    const intents = s.intents.map((it): SgdIntent => {
      if (!isObj(it) || typeof it.name !== "string") return fail("every intent needs a string name");
      if (!isStrArr(it.required_slots)) return fail(`intent ${it.name}: required_slots must be a string array`);
      const optional = it.optional_slots ?? {};
      if (!isStrRecord(optional)) return fail(`intent ${it.name}: optional_slots must map slot -> default string`);
      return {
        name: it.name,
        description: typeof it.description === "string" ? it.description : "",
        isTransactional: it.is_transactional === true,
        requiredSlots: it.required_slots,
        optionalSlots: optional,
        resultSlots: isStrArr(it.result_slots) ? it.result_slots : [],
      };
    });
    return { name: s.service_name, description: typeof s.description === "string" ? s.description : "", slots, intents };
  });
}

function parseFrame(f: unknown, fail: (d: string) => never): SgdFrame {
  if (!isObj(f) || typeof f.service !== "string" || !Array.isArray(f.actions)) {
    return fail("every frame needs a string service and an actions[] array");
  }
  const actions = f.actions.map((a): SgdAction => {
    if (!isObj(a) || typeof a.act !== "string") return fail("every action needs a string act");
    return { act: a.act, slot: typeof a.slot === "string" ? a.slot : "", values: isStrArr(a.values) ? a.values : [] };
  });
  const spans = (Array.isArray(f.slots) ? f.slots : []).flatMap((sp) =>
    isObj(sp) && typeof sp.slot === "string" && typeof sp.start === "number" && typeof sp.exclusive_end === "number"
      ? [{ slot: sp.slot, start: sp.start, end: sp.exclusive_end }]
      : [],
  );
  const frame: SgdFrame = { service: f.service, actions, spans };
  if (isObj(f.state) && typeof f.state.active_intent === "string") frame.activeIntent = f.state.active_intent;
  if (f.service_call !== undefined) {
    const c = f.service_call;
    if (!isObj(c) || typeof c.method !== "string" || !isStrRecord(c.parameters)) {
      return fail("service_call needs a string method and string-valued parameters");
    }
    if (!Array.isArray(f.service_results) || !f.service_results.every(isStrRecord)) {
      return fail("a frame with service_call needs service_results: an array of string-valued objects");
    }
    frame.serviceCall = { method: c.method, parameters: c.parameters };
    frame.serviceResults = f.service_results;
  }
  return frame;
}

export function parseSgdDialogues(raw: unknown, file: string): SgdDialogue[] {
  if (!Array.isArray(raw)) throw new DatasetError(file, null, "expected a JSON array of dialogues");
  return raw.map((d, i) => {
    const rec = isObj(d) && typeof d.dialogue_id === "string" ? d.dialogue_id : i;
    const fail = (detail: string): never => {
      throw new DatasetError(file, rec, detail);
    };
    if (!isObj(d) || typeof d.dialogue_id !== "string") return fail("dialogue needs a string dialogue_id");
    if (!isStrArr(d.services) || !Array.isArray(d.turns)) return fail("dialogue needs services[] and turns[]");
    const turns = d.turns.map((t, ti): SgdTurn => {
      if (!isObj(t) || (t.speaker !== "USER" && t.speaker !== "SYSTEM") || typeof t.utterance !== "string") {
        return fail(`turn ${ti}: needs speaker USER|SYSTEM and a string utterance`);
      }
      if (!Array.isArray(t.frames)) return fail(`turn ${ti}: frames must be an array`);
      return { speaker: t.speaker, utterance: t.utterance, frames: t.frames.map((f) => parseFrame(f, fail)) };
    });
    return { dialogueId: d.dialogue_id, services: d.services, turns };
  });
}

/** Load `schema.json` and every `dialogues_*.json` of one SGD split folder (e.g. `.../sgd/train`). */
export async function loadSgdCorpus(dir: string): Promise<SgdCorpus> {
  const schemaFile = path.join(dir, "schema.json");
  const services = parseSgdSchema(await readJson(schemaFile), schemaFile);
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => /^dialogues_.*\.json$/.test(n)).sort();
  } catch (e) {
    throw new DatasetError(dir, null, `cannot list folder (${(e as NodeJS.ErrnoException).code ?? "error"})`);
  }
  if (names.length === 0) throw new DatasetError(dir, null, "no dialogues_*.json files next to schema.json");
  const dialogues: SgdDialogue[] = [];
  for (const n of names) {
    const file = path.join(dir, n);
    const parsed = parseSgdDialogues(await readJson(file), file);
    const known = new Set(services.map((s) => s.name));
    for (const d of parsed) {
      const missing = d.services.find((s) => !known.has(s));
      if (missing) throw new DatasetError(file, d.dialogueId, `service ${missing} is not defined in schema.json`);
    }
    dialogues.push(...parsed);
  }
  return { services, dialogues };
}

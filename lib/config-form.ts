/**
 * The launch form's model, derived from the RunConfig schema itself (via zod's JSON Schema export), so every config
 * field appears in the form with its help text and default, and a new field needs no UI change. Pure functions.
 */
import { z, ZodError } from "zod";
import { runConfigSchema, type RunConfig } from "./run-config";

export type FieldKind = "string" | "number" | "integer" | "boolean" | "enum" | "tags" | "json";

export interface FieldDescriptor {
  path: string[];
  /** What the form shows ("Learning rate"); the config key ("grpo.learningRate") is its tooltip. */
  label: string;
  kind: FieldKind;
  description?: string;
  defaultValue?: unknown;
  options?: string[];
  min?: number;
  max?: number;
  optional: boolean;
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchema;
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  anyOf?: JsonSchema[];
}

function kindOf(schema: JsonSchema): FieldKind {
  if (schema.enum) return "enum";
  if (schema.type === "boolean") return "boolean";
  if (schema.type === "integer") return "integer";
  if (schema.type === "number") return "number";
  if (schema.type === "string") return "string";
  if (schema.type === "array" && schema.items?.type === "string") return "tags";
  return "json";
}

function walk(schema: JsonSchema, path: string[], optional: boolean, out: FieldDescriptor[]) {
  // Plain nested objects become sections; objects without fixed properties (records, endpoint configs that are
  // optional as a whole) and arrays of objects are edited as JSON.
  const isSection = schema.type === "object" && schema.properties && path.length < 2 && !optional;
  if (isSection && schema.properties) {
    for (const [key, child] of Object.entries(schema.properties)) {
      walk(child, [...path, key], child.default === undefined && !(schema.required ?? []).includes(key), out);
    }
    return;
  }
  out.push({
    path,
    label: humanLabel(path[path.length - 1]),
    kind: kindOf(schema),
    description: schema.description,
    defaultValue: schema.default,
    options: schema.enum?.map(String),
    min: schema.minimum ?? schema.exclusiveMinimum,
    max: schema.maximum,
    optional,
  });
}

/** Words that read as initials or a brand, whatever their case in a key. */
const WORDS: Record<string, string> = {
  kl: "KL",
  sft: "SFT",
  llm: "LLM",
  lora: "LoRA",
  ppo: "PPO",
  mb: "MB",
  p: "p",
  id: "ID",
  json: "JSON",
  url: "URL",
};

/** A config key as a label: "sftWarmupSteps" → "SFT warm-up steps", "topP" → "Top p", "klCoef" → "KL coefficient". */
export function humanLabel(key: string): string {
  const special: Record<string, string> = {
    sftWarmupSteps: "SFT warm-up steps",
    klCoef: "KL coefficient",
    entropyCoef: "Entropy coefficient",
    topP: "Top-p",
    ppoEpochs: "PPO epochs",
    prefixCacheMb: "Prefix cache (MB)",
    testFreq: "Evaluate every (steps)",
    saveFreq: "Save every (steps)",
  };
  if (special[key]) return special[key];
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/\s+/)
    .map((w) => WORDS[w.toLowerCase()] ?? w.toLowerCase());
  const first = words[0] ?? key;
  return [first === first.toLowerCase() ? first[0].toUpperCase() + first.slice(1) : first, ...words.slice(1)].join(" ");
}

export function describeConfigFields(): FieldDescriptor[] {
  const json = z.toJSONSchema(runConfigSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const out: FieldDescriptor[] = [];
  walk(json, [], false, out);
  return out;
}

export function getAtPath(obj: unknown, path: string[]): unknown {
  return path.reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), obj);
}

/** Immutable set; `undefined` removes the key (so the schema default applies). */
export function setAtPath<T extends Record<string, unknown>>(obj: T, path: string[], value: unknown): T {
  const [head, ...rest] = path;
  const copy: Record<string, unknown> = { ...obj };
  if (rest.length === 0) {
    if (value === undefined) delete copy[head];
    else copy[head] = value;
  } else {
    const child = (copy[head] && typeof copy[head] === "object" ? copy[head] : {}) as Record<string, unknown>;
    copy[head] = setAtPath(child, rest, value);
  }
  return copy as T;
}

export type ValidationResult = { ok: true; config: RunConfig } | { ok: false; errors: Record<string, string> };

/** Validate with the shared schema; errors keyed by dot path ("" for the whole config). */
export function validateConfigInput(input: unknown): ValidationResult {
  try {
    return { ok: true, config: runConfigSchema.parse(input) };
  } catch (err) {
    if (!(err instanceof ZodError)) throw err;
    const errors: Record<string, string> = {};
    for (const issue of err.issues) {
      const key = issue.path.join(".");
      errors[key] ??= issue.message;
    }
    return { ok: false, errors };
  }
}

/** Where the form shows each refusal (keys are dot paths, as validateConfigInput returns them). */
export interface PlacedErrors {
  /** By the field's dot path: errors inside a JSON field's value are shown beside that field, path included. */
  fields: Record<string, string>;
  /** By section ("grpo"): an unknown key inside a section, shown under its title. */
  sections: Record<string, string>;
  /** Errors no field or section holds (an unknown top-level key): shown above the Launch button, path first. */
  rest: string[];
}

/**
 * Places every error next to what it refers to, so "Fix the highlighted fields" never names a field that nothing
 * highlights: the field whose path is the longest prefix of the error's, else the section, else the form's foot.
 * `fieldPaths` includes controls outside the generated fields (the environment select).
 */
export function placeErrors(errors: Record<string, string>, fieldPaths: string[], sectionNames: string[]): PlacedErrors {
  const placed: PlacedErrors = { fields: {}, sections: {}, rest: [] };
  const add = (bucket: Record<string, string>, key: string, message: string) => {
    bucket[key] = bucket[key] ? `${bucket[key]} ${message}` : message;
  };
  for (const [key, message] of Object.entries(errors)) {
    const owner = fieldPaths.filter((f) => key === f || key.startsWith(`${f}.`)).sort((a, b) => b.length - a.length)[0];
    if (owner !== undefined) add(placed.fields, owner, owner === key ? message : `${key.slice(owner.length + 1)}: ${message}`);
    else if (sectionNames.includes(key)) add(placed.sections, key, message);
    else placed.rest.push(key ? `${key}: ${message}` : message);
  }
  return placed;
}

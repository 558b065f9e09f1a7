/**
 * Task-file validation for the UserRL gyms. A task file is a JSON array of `{id, split?, tags?, ...gym fields}`;
 * the builtin files in tasks/ use the same format, so a user's own file is a copy with their content. UserRL's
 * own data files are accepted too (userrl-data.ts).
 */
import { jsonErrorDetail, readDataBytes, readErrorDetail } from "../../data-roots";
import { z } from "zod";
import { DatasetError, type Task } from "../types";
import path from "node:path";
import { compileRule, applyRule } from "./arithmetic-rule";
import { fromUserRlFile, isUserRlFile } from "./userrl-data";
import { isParquetFile, readUserRlParquet } from "./userrl-parquet";
import { OPTION_ID, OPTION_INITIAL, TRAVEL_ASPECTS } from "./travel-aspects";

const keywords = z.array(z.string().min(1)).min(1);
const fact = z.object({ keywords, answer: z.enum(["yes", "no"]) });

/** One travel aspect of a TravelGym scenario: what a right search names, the user's preferences, the options. */
const travelAspect = z
  .object({
    name: z.enum(TRAVEL_ASPECTS),
    /** The search arguments the judge compares a [search] with (TravelGym's `arguments`). */
    arguments: z.record(z.string(), z.unknown()),
    preferences: z
      .array(
        z.object({
          subcategory: z.string().min(1),
          preference: z.string().min(1),
          /** How the user lets it show when asked (TravelGym's implicit elicitation statement). */
          implicitElicitation: z.string().min(1),
          /** What a concrete question about it mentions (the offline judge's test). */
          keywords,
        }),
      )
      .min(1),
    bestId: z.string(),
    correctIds: z.array(z.string()).min(1),
    options: z
      .array(z.object({ id: z.string().regex(OPTION_ID, "an option id is a letter F, H, R, A or C and a number") }).passthrough())
      .min(1),
  })
  .superRefine((a, ctx) => {
    const ids = new Set(a.options.map((o) => o.id));
    const initial = OPTION_INITIAL[a.name];
    for (const id of ids)
      if (!id.startsWith(initial))
        ctx.addIssue({ code: "custom", path: ["options"], message: `${a.name} option ${id} must start with ${initial}` });
    if (!a.correctIds.includes(a.bestId))
      ctx.addIssue({ code: "custom", path: ["bestId"], message: `the best option ${a.bestId} must be one of correctIds` });
    for (const id of a.correctIds)
      if (!ids.has(id)) ctx.addIssue({ code: "custom", path: ["correctIds"], message: `correct option ${id} is not among the options` });
  });

export const GYM_SCHEMAS = {
  telepathy: z.object({
    entity: z.string().min(1),
    aliases: z.array(z.string()).default([]),
    category: z.string().min(1),
    /** What the user has in mind, in full (UserRL's target_entity): an LLM user answers from it. */
    description: z.string().optional(),
    facts: z.array(fact).min(1),
  }),
  turtle: z.object({
    surface: z.string().min(1),
    bottom: z.string().min(1),
    facts: z.array(fact).min(1),
    criteria: z
      .array(z.object({ statement: z.string().min(1), weight: z.number().positive(), keywords: z.array(keywords).min(1) }))
      .min(1)
      .refine((cs) => Math.abs(cs.reduce((s, c) => s + c.weight, 0) - 1) < 1e-6, "criteria weights must sum to 1"),
  }),
  function: z.object({ rule: z.string().min(1), testCase: z.array(z.number()).length(4) }).superRefine((t, ctx) => {
    try {
      compileRule(t.rule);
      applyRule(t.rule, t.testCase);
    } catch (e) {
      ctx.addIssue({ code: "custom", message: (e as Error).message, path: ["rule"] });
    }
  }),
  persuade: z.object({
    claim: z.string().min(1),
    argument: z.string().min(1),
    counterpoints: z.array(z.object({ keywords, rebuttal: z.string().min(1).optional() })).min(1),
  }),
  search: z.object({
    question: z.string().min(1),
    answer: z.string().min(1),
    documents: z.array(z.object({ title: z.string().min(1), snippet: z.string().min(1), keywords })).default([]),
  }),
  travel: z.object({
    scenario: z.string().min(1),
    /** The user's opening request (TravelGym's initial_description). */
    request: z.string().min(1),
    aspects: z
      .array(travelAspect)
      .min(1)
      .refine((as) => new Set(as.map((a) => a.name)).size === as.length, "each aspect may appear once"),
  }),
  intention: z.object({
    request: z.string().min(1),
    category: z.string().min(1),
    details: z
      .array(
        z.object({
          description: z.string().min(1),
          importance: z.union([z.literal(1), z.literal(2), z.literal(3)]),
          keywords,
          answer: z.string().min(1),
        }),
      )
      .min(1),
  }),
} as const;

export type GymName = keyof typeof GYM_SCHEMAS;
export type GymData<G extends GymName> = z.infer<(typeof GYM_SCHEMAS)[G]>;

const envelope = z.object({ id: z.string().min(1), split: z.string().optional(), tags: z.array(z.string()).optional() }).passthrough();

export function parseGymTasks<G extends GymName>(gym: G, raw: unknown, file: string, defaultSplit: string): Task<GymData<G>>[] {
  if (!Array.isArray(raw)) throw new DatasetError(file, null, "expected a JSON array of tasks");
  const ids = new Set<string>();
  return raw.map((item, i) => {
    const head = envelope.safeParse(item);
    if (!head.success) throw new DatasetError(file, i, `every task needs a string "id" (${head.error.issues[0]?.message})`);
    const { id, split, tags, ...rest } = head.data;
    if (ids.has(id)) throw new DatasetError(file, id, "duplicate task id");
    ids.add(id);
    const body = GYM_SCHEMAS[gym].safeParse(rest);
    if (!body.success) {
      const issue = body.error.issues[0];
      throw new DatasetError(file, id, `${issue.path.join(".") || "task"}: ${issue.message}`);
    }
    return { id, split: split ?? defaultSplit, tags: tags ?? [gym], data: body.data as GymData<G> };
  });
}

export async function loadGymTasks<G extends GymName>(gym: G, file: string): Promise<Task<GymData<G>>[]> {
  let raw: unknown;
  try {
    const bytes = await readDataBytes(file);
    raw = isParquetFile(file) ? await readUserRlParquet(gym, file, bytes) : JSON.parse(bytes.toString("utf8"));
  } catch (e) {
    if (e instanceof DatasetError) throw e;
    throw new DatasetError(file, null, e instanceof SyntaxError ? jsonErrorDetail(e) : readErrorDetail(e));
  }
  // UserRL's own files (see userrl-data.ts) are read as its gyms read them; *_test files hold the test split.
  const defaultSplit = /test/i.test(path.basename(file)) ? "test" : "train";
  return parseGymTasks(gym, isUserRlFile(gym, raw) ? fromUserRlFile(gym, raw, file) : raw, file, defaultSplit);
}

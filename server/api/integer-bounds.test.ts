/**
 * Every integer an API accepts (tRPC and the REST routes over it, the ingest and batch routes included) is bounded
 * to what the database stores: PostgreSQL's int4 columns take at most 2^31 − 1, and a larger number that passed
 * validation came back from the database as a 500 (a whole /batch rolled back, and the Python logger retried it).
 * Every free-text string a procedure takes has a length limit too (run notes at 10,000 characters, #46), so a 1 MiB
 * body cannot park a megabyte of text on a row that the runs list then sends to every visitor.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { appRouter } from "./root";
import { INT4_MAX, INT4_MIN } from "../../lib/db-int";
import { RUN_NOTES_MAX_CHARS } from "../../lib/run-notes";
import { trajectoriesInput } from "../../lib/ingest";
import * as runConfig from "../../lib/run-config";
import * as evalConfig from "../../lib/eval-config";
import * as rescoringConfig from "../../lib/rescoring-config";
import * as environmentOptions from "../../lib/environment-options";
import * as userRlOptions from "../../lib/userrl-options";

type Schema = { [key: string]: unknown };

/** Paths (in the JSON Schema) of every integer whose bounds reach past int4. */
function unbounded(schema: unknown, at: string, out: string[]): void {
  if (!schema || typeof schema !== "object") return;
  const s = schema as Schema;
  if (s.type === "integer" || (Array.isArray(s.type) && s.type.includes("integer"))) {
    const max = typeof s.maximum === "number" ? s.maximum : typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum - 1 : Infinity;
    const min = typeof s.minimum === "number" ? s.minimum : typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum + 1 : -Infinity;
    if (max > INT4_MAX || min < INT4_MIN) out.push(at || "(input)");
  }
  for (const [key, value] of Object.entries(s)) {
    if (Array.isArray(value)) value.forEach((v, i) => unbounded(v, `${at}.${key}[${i}]`, out));
    else if (value && typeof value === "object") unbounded(value, `${at}.${key}`, out);
  }
}

test("no API input accepts an integer larger than an int4 column holds", () => {
  const procedures = (appRouter._def as unknown as { procedures: Record<string, { _def: { inputs: unknown[] } }> }).procedures;
  const found: string[] = [];
  for (const [path, def] of Object.entries(procedures)) {
    for (const input of def._def.inputs) {
      if (!(input instanceof z.ZodType)) continue;
      unbounded(z.toJSONSchema(input, { io: "input", unrepresentable: "any" }), path, found);
    }
  }
  // Configs arrive as free JSON (a RunConfig, environment options) and are parsed inside the procedure: audited too.
  const configModules = { runConfig, evalConfig, rescoringConfig, environmentOptions, userRlOptions };
  for (const [name, mod] of Object.entries(configModules)) {
    for (const [exported, value] of Object.entries(mod)) {
      if (value instanceof z.ZodType)
        unbounded(z.toJSONSchema(value, { io: "input", unrepresentable: "any" }), `${name}.${exported}`, found);
    }
  }
  assert.deepEqual(found, [], "integers without an int4 bound");
});

/**
 * Paths of every string without a maxLength. Exempt: an object's keys (propertyNames; free JSON such as a config's
 * sections, bounded by the body limit and the 32-level nesting limit) and strings whose format fixes their length
 * (date-time).
 */
function unboundedStrings(schema: unknown, at: string, out: string[]): void {
  if (!schema || typeof schema !== "object") return;
  const s = schema as Schema;
  const isString = s.type === "string" || (Array.isArray(s.type) && s.type.includes("string"));
  if (isString && typeof s.maxLength !== "number" && !s.enum && s.const === undefined && s.format !== "date-time")
    out.push(at || "(input)");
  for (const [key, value] of Object.entries(s)) {
    if (key === "propertyNames") continue;
    if (Array.isArray(value)) value.forEach((v, i) => unboundedStrings(v, `${at}.${key}[${i}]`, out));
    else if (value && typeof value === "object") unboundedStrings(value, `${at}.${key}`, out);
  }
}

test("no procedure input accepts a string without a length limit (run notes included)", () => {
  const procedures = (appRouter._def as unknown as { procedures: Record<string, { _def: { inputs: unknown[] } }> }).procedures;
  const found: string[] = [];
  const limits: Record<string, unknown> = {};
  for (const [path, def] of Object.entries(procedures)) {
    for (const input of def._def.inputs) {
      if (!(input instanceof z.ZodType)) continue;
      const json = z.toJSONSchema(input, { io: "input", unrepresentable: "any" });
      unboundedStrings(json, path, found);
      const notes = (json as { properties?: { notes?: { maxLength?: number } } }).properties?.notes;
      if (notes) limits[path] = notes.maxLength;
    }
  }
  assert.deepEqual(found, [], "strings without a maxLength");
  // The audit reaches the notes: both ways of writing them are held to the same limit.
  assert.deepEqual(limits, { "runActions.create": RUN_NOTES_MAX_CHARS, "runActions.setNotes": RUN_NOTES_MAX_CHARS });
});

test("an over-large token count or turn is refused naming the field, not passed on to the database", () => {
  const sample = (extra: Record<string, unknown>, call: Record<string, unknown> = {}) => ({
    runId: "r",
    trajectories: [
      {
        id: "s1",
        step: 0,
        conversation: [{ role: "user", content: "hi" }],
        reward: 1,
        llmCalls: [{ role: "judge", model: "m", messages: [], response: "ok", ...call }],
        ...extra,
      },
    ],
  });
  const cases: [unknown, string][] = [
    [sample({ promptTokens: 2 ** 31 }), "trajectories.0.promptTokens"],
    [sample({ responseTokens: 2 ** 31 }), "trajectories.0.responseTokens"],
    [sample({}, { turn: 2 ** 31 }), "trajectories.0.llmCalls.0.turn"],
    [sample({}, { promptTokens: 2 ** 40 }), "trajectories.0.llmCalls.0.promptTokens"],
    [sample({}, { completionTokens: 2 ** 31 }), "trajectories.0.llmCalls.0.completionTokens"],
  ];
  for (const [input, field] of cases) {
    const parsed = trajectoriesInput.safeParse(input);
    assert.ok(!parsed.success, `${field} accepted`);
    assert.deepEqual(
      parsed.error.issues.map((i) => i.path.join(".")),
      [field],
    );
  }
  assert.ok(trajectoriesInput.safeParse(sample({ promptTokens: INT4_MAX })).success, "the largest stored value is accepted");
});

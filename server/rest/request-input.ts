/**
 * Turning an HTTP request into a procedure input: the JSON body (size-limited, must be an object) or the query
 * string (typed by the procedure's own zod schema: numbers, booleans and comma-separated / repeated arrays), plus
 * the path parameters. Values that do not convert are passed through unchanged so the zod schema reports them
 * with their field path ("limit: expected number, received string") instead of this layer guessing.
 */
import { z } from "zod";
import { AppError } from "../errors";
import { MAX_REQUEST_BODY_BYTES, readBodyText } from "../http/input-safety";

/** 1 MiB: a RunConfig is a few KiB; anything near this is a mistake or an attack. */
export const MAX_BODY_BYTES = MAX_REQUEST_BODY_BYTES;

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema; anyOf?: JsonSchema[] };

const schemaCache = new WeakMap<z.ZodType, JsonSchema>();

export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  let cached = schemaCache.get(schema);
  if (!cached) {
    cached = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
    schemaCache.set(schema, cached);
  }
  return cached;
}

function typesOf(s: JsonSchema | undefined): string[] {
  if (!s) return [];
  const own = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  return [...own, ...(s.anyOf ?? []).flatMap(typesOf)];
}

function convertScalar(raw: string, schema: JsonSchema | undefined): unknown {
  const types = typesOf(schema);
  if ((types.includes("number") || types.includes("integer")) && /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw.trim()))
    return Number(raw);
  if (types.includes("boolean") && (raw === "true" || raw === "false")) return raw === "true";
  return raw;
}

export function queryToInput(params: URLSearchParams, schema: z.ZodType): Record<string, unknown> {
  const props = inputJsonSchema(schema).properties ?? {};
  const out: Record<string, unknown> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    const prop = props[key];
    if (typesOf(prop).includes("array")) {
      out[key] = values
        .flatMap((v) => v.split(","))
        .filter((v) => v !== "")
        .map((v) => convertScalar(v, prop?.items));
    } else {
      out[key] = values.length === 1 ? convertScalar(values[0], prop) : values;
    }
  }
  return out;
}

/** Reads at most MAX_BODY_BYTES (413 beyond, whatever Content-Length claims) and parses a JSON object. */
export async function readJsonObjectBody(req: Request, maxBytes = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const text = await readBodyText(req, maxBytes);
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof SyntaxError ? error.message : "unparseable";
    throw new AppError(
      "BAD_REQUEST",
      `The request body is not valid JSON (${detail}). Send a JSON object with Content-Type: application/json.`,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new AppError(
      "BAD_REQUEST",
      `The request body must be a JSON object, got ${Array.isArray(parsed) ? "an array" : parsed === null ? "null" : typeof parsed}.`,
    );
  }
  return parsed as Record<string, unknown>;
}

/**
 * The OpenAPI 3.1 document for /api/v1, generated from the route table and each procedure's zod input with zod 4's
 * built-in `z.toJSONSchema` (OpenAPI 3.1 schemas are JSON Schema 2020-12), so documentation cannot drift from
 * validation. Served at /api/v1/openapi.json without authentication.
 */
import { z } from "zod";
import { procedureInput } from "./procedures";
import { responseSchema } from "./responses";
import { REST_ROUTES, type RestRoute } from "./routes";

type Schema = Record<string, unknown> & { properties?: Record<string, Record<string, unknown>>; required?: string[] };

function jsonSchema(schema: z.ZodType, io: "input" | "output" = "input"): Schema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Schema;
  void _ignored;
  return rest;
}

const errorSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: {
          type: "string",
          examples: ["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT", "PAYLOAD_TOO_LARGE", "TOO_MANY_REQUESTS"],
        },
        message: { type: "string", description: "What was wrong and how to fix it." },
        field: { type: "string", description: "Dot path of the offending field, e.g. config.grpo.groupSize." },
        issues: { type: "array", items: { type: "object", properties: { path: { type: "string" }, message: { type: "string" } } } },
      },
    },
  },
};

const errorResponses = {
  "400": {
    description: "Invalid input (field path and expectation in the body)",
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  },
  "401": {
    description: "Missing, malformed, unknown or revoked API token",
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  },
  "403": {
    description: "The token lacks the scope this endpoint needs",
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  },
  "404": { description: "Unknown run or trajectory", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
  "409": {
    description: "The run's state does not allow it (e.g. data for a finished external run, a runKey already used)",
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  },
  "429": {
    description: "Rate limit exceeded for this token",
    headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds until a request is allowed again." } },
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  },
};

function operation(route: RestRoute) {
  const schema = jsonSchema(route.kind === "procedure" ? (route.documentedBody ?? procedureInput(route.procedure)) : route.input);
  const fromPath = new Set(Object.values(route.params ?? {}));
  const hidden = new Set([...fromPath, ...(route.kind === "procedure" && route.launchInfo ? ["source", "launchedByName"] : [])]);
  const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([k]) => !hidden.has(k)));
  const required = (schema.required ?? []).filter((k) => !hidden.has(k));
  const parameters: Record<string, unknown>[] = Object.keys(route.params ?? {}).map((name) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  if (route.kind === "procedure" && route.idempotent) {
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      schema: { type: "string", maxLength: 200 },
      description:
        "Any unique string (a UUID) per logical create. A retry with the same key and body returns the original response (header Idempotent-Replayed: true) instead of creating a duplicate; the same key with another body is 422. Keys are kept 7 days per token.",
    });
  }
  let requestBody: Record<string, unknown> | undefined;
  if (route.method === "GET") {
    for (const [name, prop] of Object.entries(properties)) {
      const isArray = prop.type === "array";
      parameters.push({
        name,
        in: "query",
        required: required.includes(name),
        schema: prop,
        ...(typeof prop.description === "string" ? { description: prop.description } : {}),
        ...(isArray ? { style: "form", explode: false } : {}),
      });
    }
  } else {
    requestBody = {
      required: required.length > 0,
      content: { "application/json": { schema: { ...schema, properties, ...(required.length ? { required } : { required: undefined }) } } },
    };
  }
  const success =
    route.kind === "jsonl"
      ? { description: "One Simia-RL record per line", content: { "application/x-ndjson": { schema: { type: "string" } } } }
      : { description: "Success", content: { "application/json": { schema: jsonSchema(responseSchema(route.procedure), "output") } } };
  return {
    operationId: route.kind === "procedure" ? route.procedure.replace(".", "_") : "runs_exportJsonl",
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: [{ bearerAuth: [] }],
    "x-required-scope": route.scope,
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: { [String(route.kind === "procedure" ? (route.successStatus ?? 200) : 200)]: success, ...errorResponses },
  };
}

export function buildOpenApiDocument(serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of REST_ROUTES) {
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Rollout Lab API",
      version: "1",
      description:
        "Launch, watch, cancel and resume GRPO runs, read metrics and trajectories, export Simia-RL records. Authenticate with `Authorization: Bearer <token>`; " +
        "tokens with the `read` scope can use GET endpoints, `write` also POST; `ingest` tokens only the ingest endpoints (external runs). " +
        "Request bodies are limited to 1 MiB (32 MiB on POST /external-runs/{id}/batch).",
    },
    servers: [{ url: serverUrl }],
    tags: [
      { name: "runs" },
      { name: "trajectories" },
      { name: "export" },
      { name: "rewards", description: "Re-judging stored trajectories, judge reliability, reward-hacking signals" },
      { name: "ingest", description: "Runs trained by other systems, streamed or imported (docs/import.md)" },
      {
        name: "evaluations",
        description:
          "Evaluation runs (an eval section in the RunConfig): scores per task, leaderboards, checkpoints evaluated (docs/evaluation.md)",
      },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "An API token (rl_…) from Settings or `rollout-lab tokens create`." },
      },
      schemas: { Error: errorSchema },
    },
  };
}

/**
 * The wire format of the environment server, as OpenEnv's server defines it (meta-pytorch/OpenEnv,
 * src/openenv/core/env_server/types.py and http_server.py): HTTP `ResetRequest{seed, episode_id}` /
 * `StepRequest{action, timeout_s, request_id}` answered with `{observation, reward, done}`, and the WebSocket session's
 * `{"type": "reset"|"step"|"state"|"close", "data": {...}}` answered with `{"type": "observation"|"state"|"error",
 * "data": {...}}` and its error codes. What Rollout Lab adds lives inside those envelopes: the reset data's task,
 * options, endpoints and recording fields, the action's message and tool calls, and the observation's messages.
 */
import { z } from "zod";
import { llmEndpointSchema } from "../../lib/run-config";
import { MAX_STEP } from "../../lib/ingest";

/** OpenEnv's WSErrorCode values. */
export const WS_ERROR = {
  invalidJson: "INVALID_JSON",
  unknownType: "UNKNOWN_TYPE",
  validation: "VALIDATION_ERROR",
  execution: "EXECUTION_ERROR",
  capacity: "CAPACITY_REACHED",
  factory: "FACTORY_ERROR",
  session: "SESSION_ERROR",
} as const;
export type WsErrorCode = (typeof WS_ERROR)[keyof typeof WS_ERROR];

/**
 * A request the server refuses: an HTTP status for the REST endpoints and an OpenEnv error code for the WebSocket
 * session, with one sentence naming the field and the fix. Never a 5xx: bad input is the client's to fix.
 */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: WsErrorCode,
    message: string,
    readonly field?: string,
    /** Extra fields of the WebSocket error's data (e.g. pydantic-style `errors`). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "RequestError";
  }
}

const dataPath = z
  .string()
  .min(1)
  .max(1024)
  .refine((p) => !p.includes("\0") && !p.split(/[\\/]/).includes(".."), "must name a path inside the server's data folders, without ..");

/** A session's simulator and judge endpoints: the run config's `llm` section, same schema and allowlists. */
export const sessionLlmSchema = z
  .object({
    userSimulator: llmEndpointSchema.optional(),
    toolSimulator: llmEndpointSchema.optional(),
    judge: llmEndpointSchema.optional(),
    concurrency: z.number().int().min(1).max(512).default(16),
    maxRetries: z.number().int().min(0).max(10).default(3),
  })
  .strict();

/** Reset data: OpenEnv's ResetRequest (seed, episode_id) plus the task, options, endpoints and recording fields. */
export const resetDataSchema = z
  .object({
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .optional()
      .describe("Seeds the episode (simulators, task choice); a random one is drawn and returned when omitted."),
    episode_id: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe(
        "Your id for the episode: a retry with the same id replaces an earlier attempt that did not finish; one played to the end is refused (409).",
      ),
    task_id: z.string().min(1).max(300).optional().describe("The task to play; omitted, one is chosen by the seed."),
    split: z.string().min(1).max(40).optional().describe('Choose among the tasks of this dataset split (e.g. "train", "test").'),
    options: z.record(z.string(), z.unknown()).optional().describe("Environment options, exactly as a run config's environmentOptions."),
    dataset: dataPath
      .optional()
      .describe("A task file or folder inside the server's data folders; omitted, the environment's built-in tasks."),
    max_turns: z.number().int().min(1).max(100).default(10).describe("Policy turns before the episode ends as max_turns."),
    tool_presentation: z
      .enum(["schemas", "prompt"])
      .default("schemas")
      .describe('"schemas": tools come as OpenAI function schemas in the observation; "prompt": written into the system prompt.'),
    llm: sessionLlmSchema
      .optional()
      .describe("Simulator and judge endpoints for this session (the run config's llm section); omitted, the offline ones."),
    experiment: z.string().min(1).max(200).optional().describe("The run episodes are recorded in; omitted, one run per API token and day."),
    group: z.string().min(1).max(300).optional().describe("GRPO group key (episodes of one prompt at one step); omitted, the task id."),
    step: z.number().int().min(0).max(MAX_STEP).default(0).describe("The trainer's step, for the run's curves and groups."),
    eval: z.boolean().default(false).describe("Record the episode as an evaluation sample."),
    policy_model: z.string().min(1).max(200).optional().describe("The policy's name, shown on the run (set by the run's first episode)."),
  })
  .strict();
export type ResetData = z.output<typeof resetDataSchema>;

/** One call as the policy made it: `{name, arguments}`, or an OpenAI `tool_calls` entry `{id, type, function}`. */
const toolCallSchema = z.union([
  z
    .object({
      id: z.string().min(1).max(200).optional(),
      name: z.string().min(1).max(200),
      arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
    })
    .strict(),
  z
    .object({
      id: z.string().min(1).max(200).optional(),
      type: z.literal("function").optional(),
      function: z
        .object({ name: z.string().min(1).max(200), arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}) })
        .strict(),
    })
    .strict(),
]);

export const actionSchema = z
  .object({
    message: z.string().max(1_000_000).describe("The policy's reply text, exactly as generated."),
    tool_calls: z.array(toolCallSchema).max(100).optional().describe("The calls the policy made, as data (an OpenAI tool_calls list)."),
    metadata: z.record(z.string(), z.unknown()).optional().describe("OpenEnv's Action.metadata: accepted and ignored."),
  })
  .strict();
export type Action = z.output<typeof actionSchema>;

/** The calls of an action in the environments' StructuredToolCall shape. */
export function callsOf(action: Action): { id?: string; name: string; arguments: Record<string, unknown> | string }[] | undefined {
  return action.tool_calls?.map((c) => ("function" in c ? { id: c.id, name: c.function.name, arguments: c.function.arguments } : c));
}

/** HTTP /step: OpenEnv's StepRequest; extra fields are reset data for the one-turn episode the request plays. */
export const stepRequestSchema = z
  .object({
    action: z.unknown(),
    timeout_s: z.number().positive().optional(),
    request_id: z.string().max(255).optional(),
  })
  .catchall(z.unknown());

const messageOut = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
  source: z.enum(["system", "policy", "user_simulator", "tool", "tool_simulator", "environment"]),
  name: z.string().optional(),
  tool_call_id: z.string().optional(),
});

const toolOut = z.object({
  type: z.literal("function"),
  function: z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
});

export const observationSchema = z.object({
  messages: z.array(messageOut).describe("New messages since your last action (the opening ones after reset), your own excluded."),
  tools: z.array(toolOut).optional().describe("The tools' schemas: after reset, and whenever they change."),
  task_id: z.string(),
  session_id: z.string(),
  episode_id: z.string(),
  seed: z.number().int(),
  turn: z.number().int().describe("Policy turns taken so far."),
  turn_reward: z.number().optional().describe("The environment's reward for your last turn, where it gives one."),
  format_error: z
    .string()
    .optional()
    .describe("Why your last action could not be read (the environment answered with its format-error observation)."),
  end_reason: z.string().optional(),
  status: z.enum(["ok", "truncated", "unscored", "error"]).optional(),
  reward_components: z.record(z.string(), z.number()).optional(),
  reasoning: z.string().optional(),
  error: z.string().optional(),
  run_id: z
    .string()
    .optional()
    .describe("The run the episode is recorded in (written within a second of its end); absent from POST /reset, which records nothing."),
  trajectory_id: z
    .string()
    .optional()
    .describe(
      "The episode's trajectory in that run (when the policy acted at least once; a retry with the same episode_id replaces an unfinished attempt); absent from POST /reset.",
    ),
});
export type ObservationOut = z.infer<typeof observationSchema>;

export const stateSchema = z
  .object({
    episode_id: z.string().nullable(),
    step_count: z.number().int(),
    session_id: z.string().nullable(),
    environment: z.string(),
    task_id: z.string().nullable(),
    done: z.boolean(),
    messages: z.array(z.record(z.string(), z.unknown())).describe("The whole conversation so far, as the inspector shows it."),
    reward: z.number().nullable().optional(),
    reward_components: z.record(z.string(), z.number()).optional(),
    final_state: z.unknown().optional(),
    expected_state: z.unknown().optional(),
  })
  .catchall(z.unknown());

/** GET /schema: OpenEnv's SchemaResponse. */
export function schemaResponse(): { action: unknown; observation: unknown; state: unknown; reset: unknown } {
  return {
    action: z.toJSONSchema(actionSchema),
    observation: z.toJSONSchema(observationSchema),
    state: z.toJSONSchema(stateSchema),
    reset: z.toJSONSchema(resetDataSchema, { io: "input" }),
  };
}

/** A zod failure as OpenEnv's VALIDATION_ERROR (pydantic's error list shape) with one sentence naming the field. */
export function validationError(error: z.ZodError, prefix: string): RequestError {
  const first = error.issues[0];
  const field = [prefix, ...first.path.map(String)].filter(Boolean).join(".");
  const unknownKeys = first.code === "unrecognized_keys" ? ` (${first.keys.join(", ")})` : "";
  const errors = error.issues.map((i) => ({ type: i.code, loc: [prefix, ...i.path].filter((p) => p !== ""), msg: i.message }));
  return new RequestError(422, WS_ERROR.validation, `${field || "data"}: ${first.message}${unknownKeys}.`, field, { errors });
}

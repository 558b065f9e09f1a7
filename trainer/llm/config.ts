/**
 * Configuration of the LLM roles (user simulator, tool simulator, judge). Embedded in the run config, so it is a
 * zod schema. The API key is never part of it: `apiKeyEnv` names the environment variable that holds the key.
 */
import { z } from "zod";
import type { RunConfig } from "../../lib/run-config";

export const LlmParamsSchema = z
  .object({
    temperature: z.number().min(0).max(2).optional(),
    max_tokens: z.number().int().positive().optional(),
    top_p: z.number().min(0).max(1).optional(),
    seed: z.number().int().optional(),
    stop: z.array(z.string()).max(4).optional(),
    presence_penalty: z.number().optional(),
    frequency_penalty: z.number().optional(),
  })
  .strict();
export type LlmParams = z.infer<typeof LlmParamsSchema>;

export const LlmEndpointSchema = z
  .object({
    /** OpenAI-compatible base URL, e.g. "https://api.openai.com/v1" or "http://127.0.0.1:8787/v1". */
    baseUrl: z.string().url(),
    model: z.string().min(1),
    /** Name of the environment variable holding the key (e.g. "OPENAI_API_KEY"); omit for keyless local servers. */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, "apiKeyEnv is the NAME of an environment variable (e.g. OPENAI_API_KEY), not the key")
      .optional(),
    params: LlmParamsSchema.default({}),
    /** Send `response_format: json_object` when a caller asks for JSON (not every server supports it). */
    jsonMode: z.boolean().default(false),
    /** Per-endpoint cap on in-flight requests, on top of the shared cap. */
    maxConcurrency: z.number().int().positive().optional(),
    /** Per-attempt timeout for this endpoint (the run config's llm.<role>.timeoutMs); default the client's timeoutMs. */
    timeoutMs: z.number().int().positive().optional(),
  })
  .strict();
export type LlmEndpointConfig = z.infer<typeof LlmEndpointSchema>;

export const LlmPriceSchema = z.object({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
});
export type LlmPrice = z.infer<typeof LlmPriceSchema>;

export const LlmConfigSchema = z
  .object({
    /** A role without an endpoint is served by the offline provider (deterministic, environment-supplied). */
    endpoints: z
      .object({
        user_simulator: LlmEndpointSchema.optional(),
        tool_simulator: LlmEndpointSchema.optional(),
        judge: LlmEndpointSchema.optional(),
      })
      .strict()
      .default({}),
    /** In-flight requests across all roles of one trainer process. */
    concurrency: z.number().int().positive().default(32),
    timeoutMs: z.number().int().positive().default(60_000),
    retry: z
      .object({
        /** Total attempts per call including the first. */
        maxAttempts: z.number().int().min(1).max(20).default(5),
        baseDelayMs: z.number().int().nonnegative().default(500),
        maxDelayMs: z.number().int().nonnegative().default(30_000),
        /** A server asking to wait longer than this is treated as this (a misbehaving proxy must not stall a run). */
        maxRetryAfterMs: z.number().int().nonnegative().default(60_000),
      })
      .default({ maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 60_000 }),
    /** USD per 1M tokens by model name; a model missing from the table is recorded with cost 0. */
    prices: z.record(z.string(), LlmPriceSchema).default({}),
    cache: z
      .object({
        mode: z.enum(["off", "memory", "dir"]).default("off"),
        /** Directory of JSON files when mode is "dir". */
        dir: z.string().optional(),
      })
      .default({ mode: "off" }),
  })
  .strict();
export type LlmConfig = z.infer<typeof LlmConfigSchema>;
export type LlmConfigInput = z.input<typeof LlmConfigSchema>;

/** The client config for a run config's `llm` section (also a served session's endpoints, trainer/env-server). */
export function llmConfigFromRunConfig(llm: RunConfig["llm"]): LlmConfigInput {
  const ep = (e: RunConfig["llm"]["judge"]): LlmEndpointConfig | undefined =>
    e && {
      baseUrl: e.baseUrl,
      model: e.model,
      apiKeyEnv: e.apiKeyEnv,
      params: { temperature: e.temperature, max_tokens: e.maxTokens },
      jsonMode: false,
      timeoutMs: e.timeoutMs,
    };
  return {
    endpoints: { user_simulator: ep(llm.userSimulator), tool_simulator: ep(llm.toolSimulator), judge: ep(llm.judge) },
    concurrency: llm.concurrency,
    retry: { maxAttempts: llm.maxRetries + 1, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 60_000 },
  };
}

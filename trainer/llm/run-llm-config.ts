/**
 * A run config's LLM endpoints as the LlmClient's configuration: one endpoint per simulator / judge role, the
 * evaluated policy's endpoint (evaluation runs), the prices they declare, the shared concurrency cap and retries.
 */
import type { RunConfig } from "../../lib/run-config";
import type { LlmConfigInput, LlmEndpointConfig } from "./config";
import type { LlmPrice } from "./config";

type RoleEndpoint = NonNullable<RunConfig["llm"]["judge"]>;

function roleEndpoint(e: RoleEndpoint | undefined): LlmEndpointConfig | undefined {
  return (
    e && {
      baseUrl: e.baseUrl,
      model: e.model,
      apiKeyEnv: e.apiKeyEnv,
      params: { temperature: e.temperature, max_tokens: e.maxTokens },
      jsonMode: false,
      timeoutMs: e.timeoutMs,
    }
  );
}

function policyEndpoint(config: RunConfig): LlmEndpointConfig | undefined {
  const e = config.policy.endpoint;
  if (!e) return undefined;
  const s = config.policy.sampling;
  return {
    baseUrl: e.baseUrl,
    model: e.model,
    apiKeyEnv: e.apiKeyEnv,
    params: {
      temperature: s.temperature,
      max_tokens: s.maxTokens,
      ...(s.topP !== undefined ? { top_p: s.topP } : {}),
      ...(s.seed !== undefined ? { seed: s.seed } : {}),
    },
    jsonMode: false,
    timeoutMs: e.timeoutMs,
  };
}

/** The client config for a run config's `llm` section: the simulator and judge roles (also a served session's, trainer/env-server). */
export function llmConfigFromRunConfig(llm: RunConfig["llm"]): LlmConfigInput {
  const prices: Record<string, LlmPrice> = {};
  for (const e of [llm.userSimulator, llm.toolSimulator, llm.judge]) if (e?.price) prices[e.model] = e.price;
  return {
    endpoints: {
      user_simulator: roleEndpoint(llm.userSimulator),
      tool_simulator: roleEndpoint(llm.toolSimulator),
      judge: roleEndpoint(llm.judge),
    },
    concurrency: llm.concurrency,
    retry: { maxAttempts: llm.maxRetries + 1, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 60_000 },
    prices,
  };
}

/** A whole run's: its `llm` roles and, for an evaluation run, the evaluated policy's endpoint. */
export function runLlmConfig(config: RunConfig): LlmConfigInput {
  const roles = llmConfigFromRunConfig(config.llm);
  const price = config.policy.endpoint?.price;
  return {
    ...roles,
    endpoints: { ...roles.endpoints, policy: policyEndpoint(config) },
    prices: { ...roles.prices, ...(price && config.policy.endpoint ? { [config.policy.endpoint.model]: price } : {}) },
  };
}

/**
 * Which environment variables a run config may name as an LLM API key (`apiKeyEnv`), and which endpoints it may
 * send them to. A run config is user input, and the trainer sends the named variable's value as a Bearer token to
 * the configured `baseUrl`: without this policy a config naming DATABASE_URL and an attacker's URL exfiltrates the
 * database password. Checked when a run is created (the web host) and again by the trainer right before it reads a
 * key (the worker host, whose environment is the one that matters).
 *
 *   ROLLOUT_LAB_API_KEY_ENVS   comma-separated variable names allowed besides the default rule (names ending
 *                              in _API_KEY)
 *   ROLLOUT_LAB_LLM_BASE_URLS  optional comma-separated URL prefixes; when set, every baseUrl must start with one
 *
 * The product's own variables are refused whatever the operator lists.
 */

export interface LlmEndpointPolicy {
  extraKeyEnvs: string[];
  baseUrlPrefixes: string[] | null;
}

/** Variables Rollout Lab itself reads; never sent anywhere. */
const PRODUCT_VARIABLES = new Set(["DATABASE_URL", "SESSION_SECRET", "DASHBOARD_PASSWORD", "TEST_PG_ADMIN_URL", "E2E_DATABASE_URL"]);
const PRODUCT_PREFIXES = ["ROLLOUT_LAB_", "EMBEDDED_DB_", "WORKER_", "PG"];

const list = (raw: string | undefined) =>
  (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export function llmEndpointPolicyFromEnv(env: Record<string, string | undefined> = process.env): LlmEndpointPolicy {
  const prefixes = list(env.ROLLOUT_LAB_LLM_BASE_URLS);
  return { extraKeyEnvs: list(env.ROLLOUT_LAB_API_KEY_ENVS), baseUrlPrefixes: prefixes.length ? prefixes : null };
}

function isProductVariable(name: string): boolean {
  return PRODUCT_VARIABLES.has(name) || PRODUCT_PREFIXES.some((p) => name.startsWith(p));
}

/** Why `name` may not be used as apiKeyEnv, or null when it may. */
export function apiKeyEnvProblem(name: string, policy: LlmEndpointPolicy): string | null {
  if (isProductVariable(name)) {
    return `${name} is one of Rollout Lab's own settings, never an LLM key; put the key in a variable such as OPENAI_API_KEY and name that.`;
  }
  if (name.endsWith("_API_KEY") || policy.extraKeyEnvs.includes(name)) return null;
  return `${name} is not an allowed key variable: use a name ending in _API_KEY (e.g. OPENAI_API_KEY), or have the operator list it in ROLLOUT_LAB_API_KEY_ENVS.`;
}

/** Why `baseUrl` may not be used, or null when it may. */
export function baseUrlProblem(baseUrl: string, policy: LlmEndpointPolicy): string | null {
  if (!policy.baseUrlPrefixes) return null;
  if (policy.baseUrlPrefixes.some((p) => baseUrl.startsWith(p))) return null;
  return `${baseUrl} is not an allowed LLM endpoint; allowed prefixes (ROLLOUT_LAB_LLM_BASE_URLS): ${policy.baseUrlPrefixes.join(", ")}.`;
}

export interface EndpointProblem {
  /** Field path within the run config, e.g. ["llm", "judge", "apiKeyEnv"]. */
  path: string[];
  message: string;
}

/** Problems of every LLM endpoint in a run config's `llm` section. */
export function checkLlmEndpoints(llm: Record<string, unknown>, policy: LlmEndpointPolicy): EndpointProblem[] {
  const problems: EndpointProblem[] = [];
  for (const [role, value] of Object.entries(llm)) {
    if (!value || typeof value !== "object") continue;
    const ep = value as { baseUrl?: unknown; apiKeyEnv?: unknown };
    if (typeof ep.apiKeyEnv === "string") {
      const p = apiKeyEnvProblem(ep.apiKeyEnv, policy);
      if (p) problems.push({ path: ["llm", role, "apiKeyEnv"], message: p });
    }
    if (typeof ep.baseUrl === "string") {
      const p = baseUrlProblem(ep.baseUrl, policy);
      if (p) problems.push({ path: ["llm", role, "baseUrl"], message: p });
    }
  }
  return problems;
}

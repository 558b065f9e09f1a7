/**
 * Where a run config may send requests, and which environment variable it may name as the key it sends. A run
 * config is user input, and the trainer sends the named variable's value as a Bearer token to the configured
 * `baseUrl` and stores what comes back: without this policy a config could exfiltrate the database password, send
 * the host's OpenAI key to any listener, or read the dashboard's own pages and cloud metadata through the trainer.
 * Checked when a run is created (the web host, so the launch form and the API say why) and again by the trainer
 * right before it reads a key (the worker host, whose environment is the one that matters), and a third time
 * after DNS resolution, on the address the request actually connects to (trainer/llm/endpoint-fetch.ts).
 *
 * The default follows cloud SDKs and OWASP's SSRF guidance: only http(s), only public addresses. Operators open it:
 *
 *   ROLLOUT_LAB_LLM_BASE_URLS      comma-separated URL prefixes; when set, every endpoint must start with one, and a
 *                                  listed prefix may be loopback or private (e.g. http://127.0.0.1:8000/), never
 *                                  link-local or metadata. Paths match by whole segment ("/v1" admits "/v1/chat",
 *                                  not "/v1evil"). A prefix ending in ":" allows any port of that host.
 *   ROLLOUT_LAB_ALLOW_PRIVATE_LLM  true: loopback and private-network addresses are allowed (a vLLM or Ollama server
 *                                  on this machine or the LAN). Link-local / metadata addresses stay refused.
 *   ROLLOUT_LAB_API_KEY_ENVS       variable names allowed as apiKeyEnv besides the default rule (names ending in
 *                                  _API_KEY); the product's own variables are refused whatever is listed.
 *
 * Whatever is allowed, an endpoint is never one of Rollout Lab's own listeners (the web port, the database, the
 * environment server): those answer with the product's own data, not a model's.
 */
import { classifyHost, isMetadataAddress, scopeOfAddress, type AddressScope } from "./network-address";

export interface LlmEndpointPolicy {
  extraKeyEnvs: string[];
  /** ROLLOUT_LAB_LLM_BASE_URLS, or null when unset. */
  baseUrlPrefixes: string[] | null;
  /** ROLLOUT_LAB_ALLOW_PRIVATE_LLM. */
  allowPrivate: boolean;
  /** Ports Rollout Lab itself listens on, on this machine (web, embedded database, environment server). */
  ownPorts: number[];
  /** host:port pairs that are Rollout Lab's own wherever they are (the database of DATABASE_URL). */
  ownEndpoints: string[];
}

export interface EndpointProblem {
  /** Field path of the endpoint's field, e.g. ["llm", "judge", "baseUrl"]. */
  path: string[];
  message: string;
}

/** Variables Rollout Lab itself reads; never sent anywhere. */
const PRODUCT_VARIABLES = new Set(["DATABASE_URL", "SESSION_SECRET", "DASHBOARD_PASSWORD", "TEST_PG_ADMIN_URL", "E2E_DATABASE_URL"]);
const PRODUCT_PREFIXES = ["ROLLOUT_LAB_", "EMBEDDED_DB_", "WORKER_", "PG"];
const ALLOW_PRIVATE = "ROLLOUT_LAB_ALLOW_PRIVATE_LLM";
const BASE_URLS = "ROLLOUT_LAB_LLM_BASE_URLS";

const list = (raw: string | undefined) =>
  (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

const portOf = (raw: string | undefined, fallback: number | null): number | null => {
  const n = Number(raw);
  return raw && Number.isInteger(n) && n > 0 && n < 65536 ? n : fallback;
};

function databaseEndpoint(databaseUrl: string | undefined): { hostPort: string; local: boolean } | null {
  if (!databaseUrl) return null;
  try {
    const u = new URL(databaseUrl);
    const host = classifyHost(u.hostname);
    return { hostPort: `${host.host}:${u.port || "5432"}`, local: host.scope === "loopback" || host.scope === "unspecified" };
  } catch {
    return null;
  }
}

/**
 * The policy of this process's environment. `ownPorts` adds listeners the caller knows of (e.g. an environment
 * server started on a port of its own choosing).
 */
export function llmEndpointPolicyFromEnv(
  env: Record<string, string | undefined> = process.env,
  extra: { ownPorts?: number[] } = {},
): LlmEndpointPolicy {
  const prefixes = list(env[BASE_URLS]);
  const db = databaseEndpoint(env.DATABASE_URL);
  const webPort = portOf(env.PORT, 3000)!;
  const ports = [
    webPort,
    portOf(env.EMBEDDED_DB_PORT, 54329),
    // The environment server: the variable `npm start` and `envs serve` read (and start.ts sets for its children,
    // since it may pick another port when PORT + 1 is taken), else its default.
    portOf(env.ROLLOUT_LAB_ENVS_PORT, webPort + 1),
    db?.local ? Number(db.hostPort.split(":").pop()) : null,
    ...(extra.ownPorts ?? []),
  ];
  return {
    extraKeyEnvs: list(env.ROLLOUT_LAB_API_KEY_ENVS),
    baseUrlPrefixes: prefixes.length ? prefixes : null,
    // The same spellings lib/env.ts accepts (and checks at start-up, so a typo is an error there, not a silent "no").
    allowPrivate: /^(1|true|yes|on)$/i.test(env[ALLOW_PRIVATE] ?? ""),
    ownPorts: [...new Set(ports.filter((p): p is number => p !== null))],
    ownEndpoints: db ? [db.hostPort] : [],
  };
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

const effectivePort = (u: URL) => Number(u.port || (u.protocol === "https:" ? 443 : 80));

/** Does `u` fall under an operator's prefix? Compared as parsed URLs, so "http://127.0.0.1:8000@evil" never does. */
export function matchesPrefix(u: URL, prefix: string): boolean {
  const m = /^(https?):\/\/([^/?#@]+)(\/[^?#]*)?$/i.exec(prefix.trim());
  if (!m) return false;
  const anyPort = m[2].endsWith(":");
  let p: URL;
  try {
    p = new URL(`${m[1]}://${anyPort ? m[2].slice(0, -1) : m[2]}${m[3] ?? "/"}`);
  } catch {
    return false;
  }
  return (
    p.protocol === u.protocol &&
    p.hostname === u.hostname &&
    (anyPort || effectivePort(p) === effectivePort(u)) &&
    underPath(u.pathname, p.pathname)
  );
}

/**
 * Is `path` the prefix's path or below it, segment by segment? A string prefix would let "https://host/v1" admit
 * "https://host/v1evil", a different endpoint the operator never listed.
 */
function underPath(path: string, prefix: string): boolean {
  if (prefix.endsWith("/")) return path.startsWith(prefix);
  return path === prefix || path.startsWith(`${prefix}/`);
}

const ALLOW_HINT = `for a model server on this machine or your network (vLLM, Ollama, …), have the operator set ${ALLOW_PRIVATE}=true on the web server and every worker, or list the URL's prefix in ${BASE_URLS}`;

function scopeProblem(what: string, scope: AddressScope, address: string, policy: LlmEndpointPolicy): string | null {
  if (scope === "public") return isMetadataAddress(address) ? `${what} is a cloud metadata address, never an LLM endpoint.` : null;
  if (scope === "link-local" || isMetadataAddress(address)) {
    return `${what} is a link-local address (169.254.0.0/16, fe80::/10), where cloud metadata services answer: never an LLM endpoint.`;
  }
  if (scope === "reserved") return `${what} is a multicast or reserved address, not a web server.`;
  if (policy.allowPrivate) return null;
  const kind = scope === "private" ? "a private-network address" : "this machine (loopback)";
  return `${what} is ${kind}, which run configs may not reach by default: ${ALLOW_HINT}.`;
}

function ownListenerProblem(what: string, host: string, port: number, local: boolean, policy: LlmEndpointPolicy): string | null {
  if ((local && policy.ownPorts.includes(port)) || policy.ownEndpoints.includes(`${host}:${port}`)) {
    return `${what} is one of Rollout Lab's own listeners (port ${port}: the dashboard, its database or its environment server), not an LLM endpoint.`;
  }
  return null;
}

/**
 * Why `url` may not be used as an endpoint a run config names (LLM simulator, judge, policy server, …), or null
 * when it may. Checks the text of the URL; names are checked again once resolved (resolvedAddressProblem).
 */
export function endpointUrlProblem(url: string, policy: LlmEndpointPolicy): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${JSON.stringify(url.slice(0, 200))} is not a URL; use e.g. https://api.openai.com/v1.`;
  }
  const shown = `${u.protocol}//${u.host}`;
  if (u.protocol !== "http:" && u.protocol !== "https:") return `${u.protocol} URLs are not LLM endpoints: use an http:// or https:// URL.`;
  if (u.username || u.password) {
    return `${shown} carries credentials in the URL, which would be stored and shown with the run: put the key in an environment variable and name it with apiKeyEnv.`;
  }
  const host = classifyHost(u.hostname);
  const local = host.scope === "loopback" || host.scope === "unspecified";
  const own = ownListenerProblem(shown, host.host, effectivePort(u), local, policy);
  if (own) return own;
  if (policy.baseUrlPrefixes) {
    // Listing a prefix opens loopback and private ranges, never link-local or metadata addresses (the README's
    // "always refused"): no LLM server lives there, and a mistyped list must not reach the cloud's credentials.
    if (host.scope !== "name" && (host.scope === "link-local" || isMetadataAddress(host.ip ?? host.host))) {
      return scopeProblem(shown, host.scope, host.ip ?? host.host, policy);
    }
    if (policy.baseUrlPrefixes.some((p) => matchesPrefix(u, p))) return null;
    return `${shown}${u.pathname} is not an allowed LLM endpoint; allowed prefixes (${BASE_URLS}): ${policy.baseUrlPrefixes.join(", ")}.`;
  }
  return host.scope === "name" ? null : scopeProblem(shown, host.scope, host.ip ?? host.host, policy);
}

/** The same check as endpointUrlProblem, under its historical name. */
export const baseUrlProblem = endpointUrlProblem;

/**
 * At connection time: why `url`'s host, resolved to `address`, may not be reached (null when it may). `localAddresses`
 * are this machine's own interface addresses (a listener bound to 0.0.0.0 answers on each of them).
 */
export function resolvedAddressProblem(
  url: URL,
  address: string,
  policy: LlmEndpointPolicy,
  localAddresses: readonly string[] = [],
): string | null {
  const scope = scopeOfAddress(address);
  const what = `${url.hostname} (resolved to ${address})`;
  if (!scope) return `${what} is not an IP address.`;
  const local = scope === "loopback" || scope === "unspecified" || localAddresses.includes(address);
  const own = ownListenerProblem(what, classifyHost(url.hostname).host, effectivePort(url), local, policy);
  if (own) return own;
  // A literal address was judged from the URL already; a name must not resolve where its text would not be allowed.
  if (classifyHost(url.hostname).scope !== "name") return null;
  const listed = policy.baseUrlPrefixes?.some((p) => matchesPrefix(url, p)) ?? false;
  if (listed && (scope === "loopback" || scope === "unspecified" || scope === "private")) return null;
  return scopeProblem(what, scope, address, policy);
}

/** Every problem of one endpoint (its key variable and its URL), with field paths under `path`. */
export function endpointProblems(
  endpoint: { baseUrl?: unknown; apiKeyEnv?: unknown },
  path: string[],
  policy: LlmEndpointPolicy = llmEndpointPolicyFromEnv(),
): EndpointProblem[] {
  const problems: EndpointProblem[] = [];
  if (typeof endpoint.apiKeyEnv === "string") {
    const p = apiKeyEnvProblem(endpoint.apiKeyEnv, policy);
    if (p) problems.push({ path: [...path, "apiKeyEnv"], message: p });
  }
  if (typeof endpoint.baseUrl === "string") {
    const p = endpointUrlProblem(endpoint.baseUrl, policy);
    if (p) problems.push({ path: [...path, "baseUrl"], message: p });
  }
  return problems;
}

/** Problems of every LLM endpoint in a run config's `llm` section. */
export function checkLlmEndpoints(llm: Record<string, unknown>, policy: LlmEndpointPolicy): EndpointProblem[] {
  return Object.entries(llm).flatMap(([role, value]) =>
    value && typeof value === "object" ? endpointProblems(value as Record<string, unknown>, ["llm", role], policy) : [],
  );
}

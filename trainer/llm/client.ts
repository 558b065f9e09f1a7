/**
 * The LLM client every environment uses for its simulator and judge roles. One OpenAI-compatible endpoint per
 * role, a shared concurrency cap, a timeout, and retries done here (the SDK runs with `maxRetries: 0`) so that
 * every attempt — failed, retried, cached or offline — becomes its own LlmCallRecord the moment it finishes.
 */
import { randomUUID } from "node:crypto";
import OpenAI, { APIError, APIUserAbortError } from "openai";
import type { LlmCallRecord, LlmRequestMessage, LlmRole, ToolCall } from "../../lib/conversation";
import type dns from "node:dns";
import { apiKeyEnvProblem, endpointUrlProblem, llmEndpointPolicyFromEnv } from "../../lib/llm-endpoint-policy";
import { untrustedExcerpt } from "../../lib/error-text";
import type { LlmChat, LlmChatRequest, LlmChatResponse, ToolSchema } from "../envs/types";
import { runOfflineCall } from "./offline-provider";
import { LlmConfigSchema, type LlmConfig, type LlmConfigInput, type LlmEndpointConfig } from "./config";
import { Semaphore } from "./semaphore";
import { backoffDelayMs, isRetryableStatus, parseRetryAfterMs } from "./retry-policy";
import { redactSecrets, redactUrl } from "./redact";
import { createEndpointFetch, EndpointRefusedError } from "./endpoint-fetch";
import { costUsd, estimateMessagesTokens, estimateTokens } from "./pricing";
import { DirResponseCache, MemoryResponseCache, cacheKey, type CachedResponse, type ResponseCache } from "./response-cache";

export type LlmCallSink = (record: LlmCallRecord) => void;

export interface ChatOptions {
  /** Receives this call's records (e.g. the episode that made it), in addition to the client-wide sink. */
  onCall?: LlmCallSink;
  signal?: AbortSignal;
}

export interface LlmClientDeps {
  /** Where `apiKeyEnv` names are looked up; defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Client-wide sink for every record (e.g. a metrics aggregator). */
  onCall?: LlmCallSink;
  /** Overrides the cache built from config (tests, shared caches). */
  cache?: ResponseCache;
  random?: () => number;
  /** Retry/backoff log lines, already redacted. Silent by default. */
  log?: (line: string) => void;
  /** DNS lookup for endpoint names (tests substitute one to play a rebinding resolver). */
  lookup?: typeof dns.lookup;
}

/** A chat message as the OpenAI API takes it (the policy role sends tool calls and tool results). */
export interface WireMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ToolChatRequest {
  role: LlmRole;
  messages: WireMessage[];
  tools?: ToolSchema[];
  /** Policy turn the call belongs to. */
  turn?: number;
  /** Sampling parameters of this call over the endpoint's (e.g. a trial's own seed). */
  params?: Record<string, unknown>;
}

export interface ToolChatResponse {
  text: string;
  /** As the server sent them: `arguments` is JSON text (possibly malformed, for the environment to refuse). */
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason?: string;
  callId: string;
}

interface RemoteRequest {
  role: LlmRole;
  /** What is sent. */
  wire: WireMessage[];
  /** What is recorded (readable: tool-call arguments parsed). */
  recorded: LlmRequestMessage[];
  tools?: readonly ToolSchema[];
  turn?: number;
  responseFormat?: "text" | "json";
  validate?: (text: string) => string | null;
  params?: Record<string, unknown>;
}

/** The recorded form of a sent message: readable in the inspector, arguments parsed when they are JSON. */
function toRecordedMessage(m: WireMessage): LlmRequestMessage {
  return {
    role: m.role,
    content: m.content ?? "",
    ...(m.tool_calls?.length
      ? { toolCalls: toToolCalls(m.tool_calls.map((c) => ({ ...c, type: "function" as const })) as OpenAI.ChatCompletionMessageToolCall[]) }
      : {}),
    ...(m.tool_call_id ? { toolCallId: m.tool_call_id } : {}),
  };
}

export class LlmCallError extends Error {
  constructor(
    message: string,
    readonly role: LlmRole,
    readonly attempts: number,
    readonly status: number | null,
    readonly callIds: string[],
  ) {
    super(message);
    this.name = "LlmCallError";
  }
}

interface Endpoint {
  config: LlmEndpointConfig;
  sdk: OpenAI;
  url: string;
  secrets: string[];
  limiter: Semaphore | null;
}

interface AttemptOutcome {
  response: CachedResponse | null;
  error: string | null;
  status: number | null;
  retryAfterMs: number | null;
  retryable: boolean;
}

export class LlmClient implements LlmChat {
  readonly config: LlmConfig;
  private readonly endpoints = new Map<LlmRole, Endpoint>();
  private readonly shared: Semaphore;
  private readonly cache: ResponseCache | null;
  private readonly random: () => number;
  private readonly log: (line: string) => void;
  private readonly allSecrets: string[] = [];

  constructor(
    config: LlmConfigInput,
    private readonly deps: LlmClientDeps = {},
  ) {
    this.config = LlmConfigSchema.parse(config);
    this.shared = new Semaphore(this.config.concurrency);
    this.random = deps.random ?? Math.random;
    this.log = deps.log ?? (() => {});
    const env = deps.env ?? process.env;
    const policy = llmEndpointPolicyFromEnv(env);
    // Every request goes through the policy again on the address it connects to (DNS rebinding, redirects).
    const fetch = createEndpointFetch({ policy, lookup: deps.lookup });
    for (const [role, ep] of Object.entries(this.config.endpoints) as [LlmRole, LlmEndpointConfig | undefined][]) {
      if (!ep) continue;
      let apiKey = "not-needed"; // keyless local servers (vLLM, the loopback fake) still need a non-empty value
      // The worker's own policy, checked before any key is read: a config stored by another host (or written to
      // the database directly) must not turn a secret of this host into a Bearer token for an arbitrary URL.
      const refused = (ep.apiKeyEnv && apiKeyEnvProblem(ep.apiKeyEnv, policy)) || endpointUrlProblem(ep.baseUrl, policy);
      if (refused) throw new Error(`LLM role "${role}": ${refused}`);
      if (ep.apiKeyEnv) {
        const v = env[ep.apiKeyEnv];
        if (!v) throw new Error(`LLM role "${role}": environment variable ${ep.apiKeyEnv} (named by apiKeyEnv) is not set.`);
        apiKey = v;
        this.allSecrets.push(v);
      }
      const sdk = new OpenAI({ apiKey, baseURL: ep.baseUrl, maxRetries: 0, timeout: ep.timeoutMs ?? this.config.timeoutMs, fetch });
      this.endpoints.set(role, {
        config: ep,
        sdk,
        url: redactUrl(ep.baseUrl),
        secrets: apiKey === "not-needed" ? [] : [apiKey],
        limiter: ep.maxConcurrency ? new Semaphore(ep.maxConcurrency) : null,
      });
    }
    this.cache =
      deps.cache ??
      (this.config.cache.mode === "memory"
        ? new MemoryResponseCache()
        : this.config.cache.mode === "dir"
          ? new DirResponseCache(this.config.cache.dir ?? ".data/llm-cache")
          : null);
  }

  /** True when the role is served by a real endpoint rather than the offline provider. */
  hasEndpoint(role: LlmRole): boolean {
    return this.endpoints.has(role);
  }

  /** An LlmChat view whose records also go to `onCall` — how an episode collects the calls it made. */
  bind(onCall: LlmCallSink, signal?: AbortSignal): LlmChat {
    return { chat: (req) => this.chat(req, { onCall, signal }) };
  }

  async chat(req: LlmChatRequest, opts: ChatOptions = {}): Promise<LlmChatResponse> {
    const emit = (r: LlmCallRecord): void => {
      this.deps.onCall?.(r);
      opts.onCall?.(r);
    };
    const endpoint = this.endpoints.get(req.role);
    if (!endpoint) {
      const { record, text, error } = await runOfflineCall(req);
      emit(record);
      if (error || text === null) throw new LlmCallError(record.error ?? "offline simulator failed", req.role, 1, null, [record.id]);
      return { text, callId: record.id };
    }
    const messages = req.messages.map((m) => ({ role: m.role, content: m.content }));
    const { response, callId } = await this.chatRemote(
      {
        role: req.role,
        wire: messages,
        recorded: messages,
        turn: req.turn,
        params: req.params,
        responseFormat: req.responseFormat,
        validate: req.validate,
      },
      endpoint,
      emit,
      opts.signal,
    );
    return { text: response.text, callId };
  }

  /**
   * One call of a role served with the chat API's tools (the evaluated policy): the conversation in OpenAI's message
   * form (assistant tool_calls, tool results by id), the tools as function schemas. The calls come back as the
   * server sent them — arguments as JSON text, malformed or not — for the environment to validate. Recorded,
   * retried and limited exactly as simulator and judge calls are. Throws LlmCallError when every attempt failed.
   */
  async chatWithTools(req: ToolChatRequest, opts: ChatOptions = {}): Promise<ToolChatResponse> {
    const endpoint = this.endpoints.get(req.role);
    if (!endpoint) throw new LlmCallError(`No endpoint is configured for role "${req.role}".`, req.role, 0, null, []);
    const emit = (r: LlmCallRecord): void => {
      this.deps.onCall?.(r);
      opts.onCall?.(r);
    };
    const recorded = req.messages.map(toRecordedMessage);
    const { response, callId } = await this.chatRemote(
      { role: req.role, wire: req.messages, recorded, tools: req.tools, turn: req.turn, params: req.params },
      endpoint,
      emit,
      opts.signal,
    );
    return {
      text: response.text,
      toolCalls: response.rawToolCalls ?? [],
      finishReason: response.finishReason,
      callId,
    };
  }

  private async chatRemote(
    req: RemoteRequest,
    ep: Endpoint,
    emit: LlmCallSink,
    signal?: AbortSignal,
  ): Promise<{ response: CachedResponse; callId: string }> {
    const params = withRequestedParams(ep.config.params, req.params);
    if (req.responseFormat === "json" && ep.config.jsonMode) params.response_format = { type: "json_object" };
    const tools = req.tools?.length ? req.tools : undefined;
    const key = this.cache ? cacheKey({ model: ep.config.model, messages: req.wire, params: { ...params, tools }, endpoint: ep.url }) : "";
    const callIds: string[] = [];
    const base = (
      attempt: number,
      startedAt: Date,
    ): Omit<LlmCallRecord, "response" | "latencyMs" | "promptTokens" | "completionTokens" | "costUsd" | "error" | "cached"> => ({
      id: randomUUID(),
      role: req.role,
      model: ep.config.model,
      endpoint: ep.url,
      request: { messages: req.recorded, params, ...(tools ? { tools: tools.map((t) => ({ ...t })) } : {}) },
      attempt,
      turn: req.turn ?? null,
      startedAt: startedAt.toISOString(),
    });

    if (this.cache) {
      const hit = await this.cache.get(key);
      if (hit) {
        const record: LlmCallRecord = {
          ...base(1, new Date()),
          response: { text: hit.text, toolCalls: hit.toolCalls, finishReason: hit.finishReason },
          latencyMs: 0,
          promptTokens: hit.promptTokens,
          completionTokens: hit.completionTokens,
          costUsd: 0, // nothing was spent on a replay
          error: null,
          cached: true,
        };
        emit(record);
        return { response: hit, callId: record.id };
      }
    }

    const { maxAttempts } = this.config.retry;
    let last: AttemptOutcome | null = null;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const startedAt = new Date();
      const t0 = performance.now();
      const outcome = await this.withSlots(ep, () => this.attempt(ep, req.wire, params, tools, signal));
      const latencyMs = performance.now() - t0;
      const promptTokens = outcome.response?.promptTokens ?? 0;
      const completionTokens = outcome.response?.completionTokens ?? 0;
      // An HTTP 200 can still be unusable: cut at max_tokens, or not what the caller asked for. The call is recorded
      // as failed with the reason (the inspector shows it); the text still goes to the caller, which decides.
      const unusable = outcome.response
        ? outcome.response.finishReason === "length"
          ? 'reply truncated at max_tokens (finish_reason "length")'
          : (req.validate?.(outcome.response.text) ?? null)
        : null;
      const record: LlmCallRecord = {
        ...base(attempt, startedAt),
        response: outcome.response
          ? { text: outcome.response.text, toolCalls: outcome.response.toolCalls, finishReason: outcome.response.finishReason }
          : null,
        latencyMs,
        promptTokens,
        completionTokens,
        costUsd: costUsd(this.config.prices, ep.config.model, promptTokens, completionTokens),
        error: outcome.error ?? unusable,
        cached: false,
      };
      callIds.push(record.id);
      emit(record);
      if (outcome.response) {
        if (this.cache && !unusable) await this.cache.set(key, outcome.response);
        return { response: outcome.response, callId: record.id };
      }
      last = outcome;
      if (!outcome.retryable || attempt === maxAttempts || signal?.aborted) break;
      const delay = backoffDelayMs(attempt, this.config.retry, outcome.retryAfterMs, this.random);
      this.log(`llm ${req.role} attempt ${attempt}/${maxAttempts} failed (${outcome.error}); retrying in ${Math.round(delay)} ms`);
      await sleep(delay, signal);
    }
    const msg = `LLM call for role "${req.role}" failed after ${callIds.length} attempt(s): ${last?.error ?? "aborted"}`;
    throw new LlmCallError(msg, req.role, callIds.length, last?.status ?? null, callIds);
  }

  private async withSlots<T>(ep: Endpoint, fn: () => Promise<T>): Promise<T> {
    // Endpoint slot first, then the shared one: never hold a shared slot while queueing for a busy endpoint.
    const releaseEp = ep.limiter ? await ep.limiter.acquire() : null;
    try {
      return await this.shared.run(fn);
    } finally {
      releaseEp?.();
    }
  }

  private async attempt(
    ep: Endpoint,
    messages: readonly WireMessage[],
    params: Record<string, unknown>,
    tools: readonly ToolSchema[] | undefined,
    signal?: AbortSignal,
  ): Promise<AttemptOutcome> {
    try {
      const completion = await ep.sdk.chat.completions.create(
        {
          model: ep.config.model,
          messages: messages as OpenAI.ChatCompletionMessageParam[],
          ...params,
          ...(tools ? { tools: tools.map((t) => ({ type: "function", function: t })) } : {}),
          stream: false,
        } as OpenAI.ChatCompletionCreateParamsNonStreaming,
        { signal, timeout: ep.config.timeoutMs ?? this.config.timeoutMs },
      );
      const choice = completion.choices?.[0];
      if (!choice) return { response: null, error: "malformed response: no choices", status: null, retryAfterMs: null, retryable: true };
      const text = choice.message?.content ?? "";
      const toolCalls = toToolCalls(choice.message?.tool_calls);
      const rawToolCalls = choice.message?.tool_calls
        ?.filter((c) => c.type === "function")
        .map((c) => ({ id: c.id, name: c.function?.name ?? "", arguments: c.function?.arguments ?? "" }));
      return {
        response: {
          text,
          toolCalls,
          ...(rawToolCalls?.length ? { rawToolCalls } : {}),
          finishReason: choice.finish_reason ?? undefined,
          promptTokens:
            completion.usage?.prompt_tokens ??
            estimateMessagesTokens(messages.map((m) => ({ content: m.content ?? JSON.stringify(m.tool_calls ?? "") }))),
          completionTokens: completion.usage?.completion_tokens ?? estimateTokens(text),
        },
        error: null,
        status: null,
        retryAfterMs: null,
        retryable: false,
      };
    } catch (e) {
      return this.describeFailure(e, ep);
    }
  }

  private describeFailure(e: unknown, ep: Endpoint): AttemptOutcome {
    const refused = e instanceof EndpointRefusedError ? e : e instanceof Error && e.cause instanceof EndpointRefusedError ? e.cause : null;
    if (refused) return { response: null, error: `refused: ${refused.message}`, status: null, retryAfterMs: null, retryable: false };
    const secrets = [...ep.secrets, ...this.allSecrets];
    const cause = e instanceof Error && e.cause instanceof Error ? ` (cause: ${e.cause.message})` : "";
    // Whatever the endpoint said (an error body, an HTML page the SDK quotes) is kept only as a short plain excerpt:
    // it is stored with the call and shown by the API, and the endpoint is not ours.
    // Secrets are removed before cutting, so that no cut leaves part of a key behind.
    const text = untrustedExcerpt(redactSecrets(e instanceof Error ? `${e.message}${cause}` : String(e), secrets));
    const error = e instanceof Error ? `${e.name}: ${text}` : text;
    if (e instanceof APIUserAbortError) return { response: null, error, status: null, retryAfterMs: null, retryable: false };
    if (e instanceof APIError) {
      const status = typeof e.status === "number" ? e.status : null;
      return {
        response: null,
        error,
        status,
        retryAfterMs: parseRetryAfterMs(e.headers ?? undefined),
        retryable: isRetryableStatus(status ?? undefined),
      };
    }
    // A body cut mid-way surfaces as a JSON SyntaxError from the SDK: transient, so retry it like a network error.
    return { response: null, error, status: null, retryAfterMs: null, retryable: true };
  }
}

/** The endpoint's params with the request's over them; a requested token cap replaces the endpoint's under either name. */
function withRequestedParams(own: Record<string, unknown>, asked: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!asked) return { ...own };
  const { max_tokens, max_completion_tokens, ...rest } = own;
  const cap = asked.max_completion_tokens === undefined ? { max_tokens, max_completion_tokens } : {};
  return Object.fromEntries(Object.entries({ ...rest, ...cap, ...asked }).filter(([, v]) => v !== undefined));
}

function toToolCalls(raw: OpenAI.ChatCompletionMessageToolCall[] | undefined): ToolCall[] | undefined {
  if (!raw || raw.length === 0) return undefined;
  return raw.flatMap((c) => {
    if (c.type !== "function") return [];
    let args: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(c.function.arguments || "{}");
      args =
        typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { value: parsed };
    } catch {
      args = { _raw: c.function.arguments };
    }
    return [{ id: c.id, name: c.function.name, arguments: args }];
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

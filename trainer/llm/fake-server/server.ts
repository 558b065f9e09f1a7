/**
 * A loopback OpenAI-compatible server (node:http, no framework) for tests, the rollout benchmark and offline demos:
 * `/v1/chat/completions` and `/v1/models`, replies from a function of the request, fixed latency, and the faults a
 * real provider produces (429 with retry-after, 500, a hang past the client timeout, malformed judge JSON, a reply
 * cut by max_tokens, a body cut mid-stream, a 401 whose body echoes the Authorization header).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mulberry32 } from "../../../lib/seeded-random";

export const FAULT_KINDS = [
  "rate_limit",
  "server_error",
  "hang",
  "malformed_json",
  "truncated_length",
  "cut_body",
  "unauthorized_echo",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FakeChatRequest {
  model: string;
  /** Each message's role and text (an assistant message that only calls tools has content ""). */
  messages: { role: string; content: string; tool_calls?: unknown[]; tool_call_id?: string }[];
  /** Everything else of the body: sampling parameters, `tools`, `seed`. */
  params: Record<string, unknown>;
  authorization: string | null;
}

export interface FakeReply {
  content: string;
  finishReason?: "stop" | "length" | "tool_calls";
  toolCalls?: { id: string; name: string; arguments: string }[];
}

export interface FakeFaults {
  /** Probability that a request gets a fault drawn uniformly from `kinds`. */
  rate?: number;
  kinds?: readonly FaultKind[];
  /** Faults for the first requests in order (null = serve normally); then `rate` applies. */
  script?: readonly (FaultKind | null)[];
  seed?: number;
  /** Value of the 429 `retry-after` header (seconds or HTTP date); default "0". */
  retryAfter?: string;
  /** If set, 429 responses also carry `retry-after-ms`. */
  retryAfterMs?: number;
}

export interface FakeLlmServerOptions {
  port?: number;
  host?: string;
  latencyMs?: number;
  reply?: (req: FakeChatRequest) => FakeReply | string | Promise<FakeReply | string>;
  faults?: FakeFaults;
  models?: readonly string[];
}

export interface FakeLlmServerStats {
  requests: number;
  completed: number;
  faults: Record<FaultKind, number>;
  /** Requests currently being held open (latency or hang). */
  inFlight: number;
  maxInFlight: number;
  /** The usage of every completion answered, as an endpoint bills it (tests compare the recorded cost with it). */
  billed: { promptTokens: number; completionTokens: number };
}

export interface FakeLlmServer {
  /** Base URL including `/v1`, ready for the SDK's `baseURL`. */
  url: string;
  port: number;
  stats: FakeLlmServerStats;
  close(): Promise<void>;
}

/** Judge prompts ask for JSON with a reward; everything else gets a neutral simulated-user line. */
export function defaultFakeReply(req: FakeChatRequest): FakeReply {
  const all = req.messages.map((m) => m.content).join("\n");
  if (/"reward"/.test(all) || /\bjudge\b/i.test(req.messages[0]?.content ?? "")) {
    return { content: JSON.stringify({ reward: 1, reasoning: "The assistant addressed the user's request." }) };
  }
  return { content: "Thanks. Could you tell me more?" };
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export async function startFakeLlmServer(options: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
  const latencyMs = options.latencyMs ?? 0;
  const faults = options.faults ?? {};
  const kinds = faults.kinds && faults.kinds.length > 0 ? faults.kinds : FAULT_KINDS.filter((k) => k !== "unauthorized_echo");
  const random = mulberry32(faults.seed ?? 1);
  const models = options.models ?? ["fake-model"];
  const stats: FakeLlmServerStats = {
    requests: 0,
    completed: 0,
    faults: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>,
    inFlight: 0,
    maxInFlight: 0,
    billed: { promptTokens: 0, completionTokens: 0 },
  };
  let chatIndex = 0;

  const pickFault = (): FaultKind | null => {
    const i = chatIndex++;
    if (faults.script && i < faults.script.length) return faults.script[i];
    if (faults.rate && random() < faults.rate) return kinds[Math.floor(random() * kinds.length)];
    return null;
  };

  const sendJson = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
    res.end(text);
  };

  const completion = (model: string, req: FakeChatRequest, reply: FakeReply): Record<string, unknown> => {
    const usage = {
      prompt_tokens: req.messages.reduce((n, m) => n + estimateTokens(m.content), 0),
      completion_tokens: estimateTokens(reply.content),
      total_tokens: 0,
    };
    stats.billed.promptTokens += usage.prompt_tokens;
    stats.billed.completionTokens += usage.completion_tokens;
    return completionBody(model, reply, usage);
  };
  const completionBody = (model: string, reply: FakeReply, usage: Record<string, number>): Record<string, unknown> => ({
    id: `chatcmpl-fake-${stats.requests}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.content,
          ...(reply.toolCalls
            ? {
                tool_calls: reply.toolCalls.map((c) => ({
                  id: c.id,
                  type: "function",
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        },
        finish_reason: reply.finishReason ?? (reply.toolCalls ? "tool_calls" : "stop"),
      },
    ],
    usage,
  });

  const handleChat = async (body: string, authorization: string | null, res: http.ServerResponse, closed: () => boolean): Promise<void> => {
    let parsed: {
      model?: string;
      messages?: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
      [k: string]: unknown;
    };
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      return sendJson(res, 400, { error: { message: "request body is not JSON", type: "invalid_request_error" } });
    }
    if (!Array.isArray(parsed.messages)) {
      return sendJson(res, 400, { error: { message: "messages is required", type: "invalid_request_error" } });
    }
    const { model = models[0], messages, ...params } = parsed;
    const req: FakeChatRequest = {
      model,
      messages: messages.map((m) => ({
        role: m.role,
        content: typeof m.content === "string" ? m.content : m.content == null ? "" : JSON.stringify(m.content),
        ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}),
        ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
      })),
      params,
      authorization,
    };
    const fault = pickFault();
    if (fault) stats.faults[fault]++;
    if (fault === "hang") return; // never answer; the client's timeout must fire
    if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));
    if (closed()) return;
    switch (fault) {
      case "rate_limit":
        return sendJson(
          res,
          429,
          { error: { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" } },
          {
            "retry-after": faults.retryAfter ?? "0",
            ...(faults.retryAfterMs !== undefined ? { "retry-after-ms": String(faults.retryAfterMs) } : {}),
          },
        );
      case "server_error":
        return sendJson(res, 500, { error: { message: "The server had an error while processing your request.", type: "server_error" } });
      case "unauthorized_echo":
        // Some proxies echo the credential they rejected; the client must scrub it.
        return sendJson(res, 401, {
          error: { message: `Incorrect API key provided. Authorization: ${authorization ?? "(none)"}`, type: "invalid_request_error" },
        });
      case "malformed_json":
        return sendJson(res, 200, completion(model, req, { content: '{"reward": 1, "reasoning": "The agent did' }));
      case "truncated_length": {
        const full = await resolveReply(req);
        return sendJson(
          res,
          200,
          completion(model, req, {
            content: full.content.slice(0, Math.max(1, Math.floor(full.content.length / 2))),
            finishReason: "length",
          }),
        );
      }
      case "cut_body": {
        const text = JSON.stringify(completion(model, req, await resolveReply(req)));
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.write(text.slice(0, Math.floor(text.length / 2)));
        res.socket?.destroy();
        return;
      }
      default:
        return sendJson(res, 200, completion(model, req, await resolveReply(req)));
    }
  };

  const resolveReply = async (req: FakeChatRequest): Promise<FakeReply> => {
    const r = await (options.reply ?? defaultFakeReply)(req);
    return typeof r === "string" ? { content: r } : r;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let isClosed = false;
    res.on("close", () => {
      isClosed = true;
    });
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = (req.url ?? "").replace(/\/+$/, "");
      if (req.method === "GET" && url === "/v1/models") {
        return sendJson(res, 200, {
          object: "list",
          data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "rollout-lab" })),
        });
      }
      if (req.method === "POST" && url === "/v1/chat/completions") {
        stats.requests++;
        stats.inFlight++;
        stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
        res.on("close", () => {
          stats.inFlight--;
        });
        const auth = typeof req.headers.authorization === "string" ? req.headers.authorization : null;
        handleChat(Buffer.concat(chunks).toString("utf8"), auth, res, () => isClosed)
          .then(() => {
            if (res.writableEnded) stats.completed++;
          })
          .catch((e: unknown) => {
            if (!res.headersSent)
              sendJson(res, 500, { error: { message: `fake server reply failed: ${String(e)}`, type: "server_error" } });
          });
        return;
      }
      sendJson(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: "invalid_request_error" } });
    });
  });
  server.keepAliveTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? "127.0.0.1";
  return {
    url: `http://${host}:${port}/v1`,
    port,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections(); // hung requests would otherwise keep close() waiting forever
        server.close(() => resolve());
      }),
  };
}

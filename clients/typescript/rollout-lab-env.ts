/**
 * Play Rollout Lab's environments from TypeScript over OpenEnv's WebSocket protocol (docs/environment-server.md).
 * No dependencies, copy the file: it uses the standard WebSocket of Node ≥ 22 (Node 20: `--experimental-websocket`),
 * Deno, Bun or a browser page on the server's machine. Every episode lands in the dashboard's inspector.
 *
 *   const env = await RolloutLabEnv.connect("http://127.0.0.1:3001/envs/tau2-retail", { token: process.env.ROLLOUT_LAB_TOKEN });
 *   let result = await env.reset({ seed: 3, experiment: "my-grpo-run", step: 0 });
 *   while (!result.done) result = await env.step({ message: reply, tool_calls: calls });   // your policy's reply
 *   console.log(result.reward, result.observation.reward_components);
 *   await env.close();
 *
 * The token rides in the WebSocket subprotocol list (`rollout-lab.bearer.<token>`), the one field a browser's
 * WebSocket lets a page set; it is never put in the URL.
 */

export interface ToolCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

export interface Action {
  message: string;
  tool_calls?: ToolCall[];
}

export interface ResetData {
  seed?: number;
  episode_id?: string;
  task_id?: string;
  split?: string;
  options?: Record<string, unknown>;
  dataset?: string;
  max_turns?: number;
  tool_presentation?: "schemas" | "prompt";
  llm?: Record<string, unknown>;
  experiment?: string;
  group?: string;
  step?: number;
  eval?: boolean;
  policy_model?: string;
}

export interface ObservationMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  source: string;
  name?: string;
  tool_call_id?: string;
}

export interface Observation {
  messages: ObservationMessage[];
  tools?: { type: "function"; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
  task_id: string;
  session_id: string;
  episode_id: string;
  seed: number;
  turn: number;
  turn_reward?: number;
  format_error?: string;
  end_reason?: string;
  status?: "ok" | "truncated" | "unscored" | "error";
  reward_components?: Record<string, number>;
  reasoning?: string;
  error?: string;
  /** Where the episode is recorded: open /runs/<run_id>/trajectories/<trajectory_id> in the dashboard. */
  run_id: string;
  trajectory_id: string;
}

export interface StepResult {
  observation: Observation;
  /** The turn's reward while the episode runs (where the environment has one), the episode's reward when done. */
  reward: number | null;
  done: boolean;
}

/** The server refused a message: OpenEnv's error code (VALIDATION_ERROR, CAPACITY_REACHED, …) and its sentence. */
export class RolloutLabEnvError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly data: Record<string, unknown>,
  ) {
    super(`${message} (${code})`);
    this.name = "RolloutLabEnvError";
  }
}

export interface ConnectOptions {
  token?: string;
  /** Resume a session whose connection dropped (its id is in every observation). */
  sessionId?: string;
  /** Milliseconds to wait for each answer (default 120 s: simulators behind real LLMs can be slow). */
  timeoutMs?: number;
  /** A WebSocket implementation when the runtime has none. */
  WebSocket?: typeof WebSocket;
}

type Pending = { resolve(value: { type: string; data: Record<string, unknown> }): void; reject(err: Error): void };

export class RolloutLabEnv {
  private readonly queue: Pending[] = [];
  private closedError: Error | null = null;

  private constructor(
    private readonly ws: WebSocket,
    private readonly timeoutMs: number,
  ) {
    ws.onmessage = (event) => {
      const next = this.queue.shift();
      if (!next) return;
      try {
        next.resolve(JSON.parse(String(event.data)));
      } catch (e) {
        next.reject(e as Error);
      }
    };
    ws.onclose = (event) => {
      this.closedError = new Error(`connection closed (${event.code}${event.reason ? `: ${event.reason}` : ""})`);
      for (const p of this.queue.splice(0)) p.reject(this.closedError);
    };
  }

  /** Opens a session at an environment's base URL (http(s):// or ws(s)://, e.g. http://host:3001/envs/bfcl). */
  static async connect(baseUrl: string, opts: ConnectOptions = {}): Promise<RolloutLabEnv> {
    const Ws = opts.WebSocket ?? globalThis.WebSocket;
    if (!Ws)
      throw new Error("No WebSocket in this runtime: use Node ≥ 22 (or Node 20 with --experimental-websocket), or pass opts.WebSocket.");
    const url = new URL(`${baseUrl.replace(/\/+$/, "")}/ws`.replace(/^http/, "ws"));
    if (opts.sessionId) url.searchParams.set("session_id", opts.sessionId);
    const protocols = ["rollout-lab.v1", ...(opts.token ? [`rollout-lab.bearer.${opts.token}`] : [])];
    const ws = new Ws(url.toString(), protocols);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () =>
        reject(
          new Error(
            `cannot open a session at ${url.origin}${url.pathname} (refused, wrong URL, no capacity, or the token is missing or invalid: GET ${baseUrl}/health says whether the server is up)`,
          ),
        );
    });
    return new RolloutLabEnv(ws, opts.timeoutMs ?? 120_000);
  }

  private request(message: { type: string; data?: unknown }): Promise<{ type: string; data: Record<string, unknown> }> {
    if (this.closedError) return Promise.reject(this.closedError);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${message.type} within ${this.timeoutMs} ms`)), this.timeoutMs);
      this.queue.push({
        resolve: (v) => {
          clearTimeout(timer);
          if (v.type === "error") reject(new RolloutLabEnvError(String(v.data.message), String(v.data.code), v.data));
          else resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.ws.send(JSON.stringify(message));
    });
  }

  async reset(data: ResetData = {}): Promise<StepResult> {
    return (await this.request({ type: "reset", data })).data as unknown as StepResult;
  }

  /** One policy reply: its text, or `{message, tool_calls}` with the calls it made as data. */
  async step(action: Action | string): Promise<StepResult> {
    return (await this.request({ type: "step", data: typeof action === "string" ? { message: action } : action }))
      .data as unknown as StepResult;
  }

  async state(): Promise<Record<string, unknown>> {
    return (await this.request({ type: "state" })).data;
  }

  /** Ends the session (an unfinished episode is recorded as truncated, end reason client_ended). */
  async close(): Promise<void> {
    if (this.closedError) return;
    const closed = new Promise<void>((resolve) => {
      const previous = this.ws.onclose;
      this.ws.onclose = (event) => {
        previous?.call(this.ws, event);
        resolve();
      };
    });
    this.ws.send(JSON.stringify({ type: "close" }));
    await closed;
  }
}

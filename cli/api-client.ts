/**
 * The CLI's HTTP client for /api/v1: bearer token, JSON in and out, error bodies turned into CliErrors with the
 * matching exit code, 429s waited out (Retry-After), and transient network errors retried so a `--wait` survives a
 * server restart.
 */
import { randomUUID } from "node:crypto";
import { CliError, EXIT, exitCodeForStatus } from "./exit-codes";

export interface ClientOptions {
  url: string;
  token?: string;
  /** Retries for network errors and 429/502/503/504 before giving up. */
  retries?: number;
  sleep?: (ms: number) => Promise<void>;
}

interface ErrorBody {
  error?: { code?: string; message?: string; issues?: { path: string; message: string }[] };
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class ApiClient {
  private readonly base: string;

  constructor(private readonly opts: ClientOptions) {
    this.base = opts.url.replace(/\/+$/, "");
  }

  /**
   * `idempotencyKey`: sent with creates so that a retry after a lost reply (this client retries network errors and
   * 502/503/504) returns the run already created instead of queueing a second one.
   */
  async raw(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<Response> {
    if (!this.opts.token) {
      throw new CliError(
        EXIT.AUTH,
        "No API token: pass --token or set ROLLOUT_LAB_TOKEN (create one in Settings or with `rollout-lab tokens create`).",
      );
    }
    const sleep = this.opts.sleep ?? defaultSleep;
    const retries = this.opts.retries ?? 5;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(`${this.base}/api/v1${path}`, {
          method,
          headers: {
            authorization: `Bearer ${this.opts.token}`,
            "x-rollout-lab-client": "cli",
            ...(body !== undefined ? { "content-type": "application/json" } : {}),
            ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        if (attempt >= retries)
          throw new CliError(EXIT.ERROR, `Cannot reach ${this.base}: ${(error as Error).message}. Check --url / ROLLOUT_LAB_URL.`);
        await sleep(Math.min(1000 * 2 ** attempt, 10_000));
        continue;
      }
      if ((res.status === 429 || res.status === 502 || res.status === 503 || res.status === 504) && attempt < retries) {
        const retryAfter = Number(res.headers.get("retry-after"));
        await res.body?.cancel();
        await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 1000 * 2 ** attempt);
        continue;
      }
      if (!res.ok) throw await this.toError(res);
      return res;
    }
  }

  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.raw(method, path, body);
    return (await res.json()) as T;
  }

  /** Like json(), but a 404 is null (a lookup that may find nothing). */
  async jsonOrNull<T>(method: string, path: string): Promise<T | null> {
    try {
      return await this.json<T>(method, path);
    } catch (error) {
      if (error instanceof CliError && error.notFound) return null;
      throw error;
    }
  }

  /** A POST that creates something, with one Idempotency-Key for all of its retries. */
  async create<T>(path: string, body: unknown): Promise<T> {
    const res = await this.raw("POST", path, body, randomUUID());
    return (await res.json()) as T;
  }

  private async toError(res: Response): Promise<CliError> {
    const text = await res.text();
    let parsed: ErrorBody = {};
    try {
      parsed = JSON.parse(text) as ErrorBody;
    } catch {
      // not JSON (e.g. a proxy's HTML error page)
    }
    const message = parsed.error?.message ?? `HTTP ${res.status} ${res.statusText}`;
    const issues = parsed.error?.issues?.length ? `\n${parsed.error.issues.map((i) => `  - ${i.path}: ${i.message}`).join("\n")}` : "";
    return new CliError(exitCodeForStatus(res.status), `${message}${issues}`, res.status === 404);
  }
}

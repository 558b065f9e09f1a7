/**
 * Environment variables, validated once at start-up. Every bad value produces one sentence naming the variable,
 * what was wrong and what to do, so a user never has to read a stack trace to fix their configuration.
 * The README's configuration table documents the same variables; keep them in sync.
 */
import { z } from "zod";
import { parseTrustedProxies } from "./trusted-proxies";

const port = <F extends number | undefined>(name: string, fallback: F) =>
  z
    .string()
    .optional()
    .transform((v, ctx): number | F => {
      if (v === undefined || v === "") return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 65535) {
        ctx.addIssue({ code: "custom", message: `${name} must be a port number between 1 and 65535, got "${v}".` });
        return z.NEVER;
      }
      return n;
    });

const bool = (name: string, fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return fallback;
      if (/^(1|true|yes|on)$/i.test(v)) return true;
      if (/^(0|false|no|off)$/i.test(v)) return false;
      ctx.addIssue({ code: "custom", message: `${name} must be true or false, got "${v}".` });
      return z.NEVER;
    });

const databaseUrl = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === "") return undefined;
    let url: URL;
    try {
      url = new URL(v);
    } catch {
      ctx.addIssue({
        code: "custom",
        message:
          "DATABASE_URL is not a valid URL; use the form postgresql://USER[:PASSWORD]@HOST:PORT/DATABASE, or unset it to use the embedded database.",
      });
      return z.NEVER;
    }
    if (url.protocol !== "postgresql:" && url.protocol !== "postgres:") {
      ctx.addIssue({
        code: "custom",
        message: `DATABASE_URL must start with postgresql:// (got "${url.protocol}//"); Rollout Lab only supports PostgreSQL. Unset it to use the embedded database.`,
      });
      return z.NEVER;
    }
    if (url.pathname.length <= 1) {
      ctx.addIssue({
        code: "custom",
        message: "DATABASE_URL names no database; add one, e.g. postgresql://postgres@127.0.0.1:5432/rollout_lab.",
      });
      return z.NEVER;
    }
    return v;
  });

const positive = (name: string, what: string, fallback?: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return fallback;
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0) {
        ctx.addIssue({ code: "custom", message: `${name} must be a positive number (${what}), got "${v}".` });
        return z.NEVER;
      }
      return n;
    });

export const envSchema = z.object({
  DATABASE_URL: databaseUrl,
  PORT: port("PORT", 3000),
  HOST: z
    .string()
    .optional()
    .transform((v) => v || "127.0.0.1"),
  ROLLOUT_LAB_DATA_DIR: z
    .string()
    .optional()
    .transform((v) => v || ".data"),
  EMBEDDED_DB_PORT: port("EMBEDDED_DB_PORT", 54329),
  SEED_DEMO: bool("SEED_DEMO", true),
  START_WORKER: bool("START_WORKER", true),
  DASHBOARD_PASSWORD: z.string().optional(),
  ROLLOUT_LAB_ALLOW_OPEN_DASHBOARD: bool("ROLLOUT_LAB_ALLOW_OPEN_DASHBOARD", false),
  ROLLOUT_LAB_ALLOWED_HOSTS: z.string().optional(),
  ROLLOUT_LAB_COOKIE_SECURE: bool("ROLLOUT_LAB_COOKIE_SECURE", false),
  ROLLOUT_LAB_TRUSTED_PROXIES: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      try {
        parseTrustedProxies(v);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
      }
    }),
  ROLLOUT_LAB_ALLOW_PRIVATE_LLM: bool("ROLLOUT_LAB_ALLOW_PRIVATE_LLM", false),
  ROLLOUT_LAB_PUBLIC_URL: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || v === "" || /^https?:\/\/[^/]+/.test(v),
      "ROLLOUT_LAB_PUBLIC_URL must be an http(s) URL such as https://rollout.example.com.",
    ),
  START_ENV_SERVER: bool("START_ENV_SERVER", true),
  ROLLOUT_LAB_ENVS_PORT: port("ROLLOUT_LAB_ENVS_PORT", undefined),
  ROLLOUT_LAB_ENVS_MAX_SESSIONS: positive("ROLLOUT_LAB_ENVS_MAX_SESSIONS", "concurrent sessions", 256),
  ROLLOUT_LAB_ENVS_IDLE_SECONDS: positive("ROLLOUT_LAB_ENVS_IDLE_SECONDS", "seconds", 600),
  ROLLOUT_LAB_ENVS_MAX_SESSIONS_PER_CLIENT: positive("ROLLOUT_LAB_ENVS_MAX_SESSIONS_PER_CLIENT", "sessions per client"),
  WORKER_LEASE_MS: positive("WORKER_LEASE_MS", "milliseconds"),
  WORKER_HEARTBEAT_MS: positive("WORKER_HEARTBEAT_MS", "milliseconds"),
  WORKER_POLL_MS: positive("WORKER_POLL_MS", "milliseconds"),
  API_RATE_LIMIT_PER_MINUTE: positive("API_RATE_LIMIT_PER_MINUTE", "requests per minute and token", 600),
  API_RATE_LIMIT_BURST: positive("API_RATE_LIMIT_BURST", "requests", 120),
  ROLLOUT_LAB_MAX_STEP_MEMORY_GB: positive("ROLLOUT_LAB_MAX_STEP_MEMORY_GB", "GiB"),
  ROLLOUT_LAB_BACKEND: z
    .string()
    .optional()
    .refine(
      (v) => !v || ["tensorflow", "wasm", "cpu"].includes(v.trim()),
      "ROLLOUT_LAB_BACKEND must be tensorflow, wasm or cpu (or unset to choose automatically).",
    ),
  ROLLOUT_LAB_NATIVE: bool("ROLLOUT_LAB_NATIVE", true),
  ROLLOUT_LAB_ISA: z
    .string()
    .optional()
    .refine(
      (v) => !v || ["baseline", "avx2", "avx512"].includes(v.trim()),
      "ROLLOUT_LAB_ISA must be baseline, avx2 or avx512 (or unset to use the widest instruction set the CPU has).",
    ),
  LOG_LEVEL: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const level = v || "info";
      if (!["debug", "info", "warn", "error"].includes(level)) {
        ctx.addIssue({ code: "custom", message: `LOG_LEVEL must be one of debug, info, warn, error; got "${level}".` });
        return z.NEVER;
      }
      return level as "debug" | "info" | "warn" | "error";
    }),
});

export type AppEnv = z.infer<typeof envSchema>;

export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "EnvError";
  }
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** Parse and validate; throws EnvError listing one sentence per bad variable. */
export function loadEnv(source: Record<string, string | undefined> = process.env): AppEnv {
  const result = envSchema.safeParse(source);
  if (!result.success) throw new EnvError(result.error.issues.map((i) => i.message));
  const env = result.data;
  // Without a password the dashboard (and its API, which creates tokens and runs) is open to whoever reaches it.
  if (!LOOPBACK.has(env.HOST) && !env.DASHBOARD_PASSWORD && !env.ROLLOUT_LAB_ALLOW_OPEN_DASHBOARD) {
    throw new EnvError([
      `HOST=${env.HOST} would open the dashboard to the network with no password: set DASHBOARD_PASSWORD, bind to 127.0.0.1, or (behind your own authentication) set ROLLOUT_LAB_ALLOW_OPEN_DASHBOARD=true.`,
    ]);
  }
  return env;
}

/**
 * One variable, validated exactly as at start-up (for code that reads it later, e.g. in the web server or the
 * worker). A bad value throws EnvError: never a silent fallback to the default.
 */
export function readEnvVar<K extends keyof AppEnv>(name: K, source: Record<string, string | undefined> = process.env): AppEnv[K] {
  const schema = envSchema.shape[name] as unknown as z.ZodType<AppEnv[K]>;
  const result = schema.safeParse(source[name as string]);
  if (!result.success) throw new EnvError(result.error.issues.map((i) => i.message));
  return result.data;
}

/** The variables a trainer worker reads, validated together when it starts (one sentence per bad one). */
export function checkWorkerEnv(source: Record<string, string | undefined> = process.env): void {
  const keys = [
    "WORKER_LEASE_MS",
    "WORKER_HEARTBEAT_MS",
    "WORKER_POLL_MS",
    "ROLLOUT_LAB_MAX_STEP_MEMORY_GB",
    "ROLLOUT_LAB_BACKEND",
    "ROLLOUT_LAB_NATIVE",
    "ROLLOUT_LAB_ISA",
    "ROLLOUT_LAB_ALLOW_PRIVATE_LLM",
  ] as const;
  const problems = keys.flatMap((k) => {
    try {
      readEnvVar(k, source);
      return [];
    } catch (err) {
      return (err as EnvError).problems;
    }
  });
  if (problems.length) throw new EnvError(problems);
}

/** True when the dashboard listens beyond loopback without a password (only with the explicit opt-out). */
export function dashboardOpenToNetwork(env: AppEnv): boolean {
  return !LOOPBACK.has(env.HOST) && !env.DASHBOARD_PASSWORD;
}

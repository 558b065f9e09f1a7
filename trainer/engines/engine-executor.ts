/**
 * The worker as launcher of an outside engine (execution.engine trl / verl / skyrl): for a claimed run it renders
 * the engine's config and entry script into the run's folder (lib/engine-render.ts), makes a token scoped to the
 * run (its episodes and logged metrics land in this run, nothing else), starts the engine as its own process
 * group, and supervises it:
 *
 *   each output line      → the run's log (run events: stdout info, stderr warn), batched
 *   cancel / worker stop  → SIGTERM to the process group, SIGKILL after the grace period
 *   exit code 0           → completed;  any other code or a signal → failed with the last stderr line
 *
 * and revokes the token when the process is gone. The engine's step is its own: steps come from what it records
 * (episodes grouped by the step the adapters send, metrics by the logger's step). An engine run is not resumed from a
 * Rollout Lab checkpoint: requeued after a worker stop, it starts the engine again (its own checkpoints, if set).
 */
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { renderEngineLaunch, type EngineLaunch, type EngineLaunchSite } from "../../lib/engine-render";
import { createRunToken, revokeRunTokens } from "../../db/api-tokens";
import type { TrainOutcome } from "../loop/types";
import type { RunContext } from "../worker/worker";

export interface EngineExecutorOptions {
  /** Run folders are <dataDir>/engine-runs/<run id>. */
  dataDir: string;
  site: EngineLaunchSite;
  /** The process to start instead of the rendered one (tests: a stand-in for the GPU job); gets the launch. */
  command?: (launch: EngineLaunch) => string[];
  killGraceMs?: number;
  /** Log lines kept per run; past it one line says how many were left out (the engine's own log has them all). */
  maxLogLines?: number;
}

/** The web server's own secrets stay out of the engine's environment; the engine gets its run's token instead. */
const WITHHELD_ENV = /^(DATABASE_URL|DASHBOARD_PASSWORD|SESSION_SECRET|ROLLOUT_LAB_.*|TEST_PG_ADMIN_URL)$/;

function engineEnv(launch: EngineLaunch, token: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (WITHHELD_ENV.test(k)) delete env[k];
  return { ...env, ...launch.env, ROLLOUT_LAB_TOKEN: token };
}

/** Engine settings from the worker's environment (docs/engines.md): where the engine runs and what it reaches. */
export function engineSiteFromEnv(env: NodeJS.ProcessEnv = process.env): EngineLaunchSite {
  const envsPort = env.ROLLOUT_LAB_ENVS_PORT ?? "3001";
  return {
    checkout: env.ROLLOUT_LAB_ENGINE_CHECKOUT ?? path.resolve(import.meta.dirname, "..", ".."),
    python: env.ROLLOUT_LAB_ENGINE_PYTHON ?? "python3",
    envServerUrl: env.ROLLOUT_LAB_ENGINE_ENV_SERVER_URL ?? `http://127.0.0.1:${envsPort}`,
    webUrl: env.ROLLOUT_LAB_ENGINE_WEB_URL ?? `http://127.0.0.1:${env.PORT ?? "3000"}`,
  };
}

export async function executeEngineRun(ctx: RunContext, opts: EngineExecutorOptions): Promise<TrainOutcome> {
  const { db, run, config, control } = ctx;
  const engine = config.execution.engine;
  const named = await db.run.findUniqueOrThrow({ where: { id: run.id }, select: { name: true } });
  const launch = renderEngineLaunch({ id: run.id, name: named.name }, config, opts.site);
  const dir = path.resolve(opts.dataDir, "engine-runs", run.id);
  await mkdir(dir, { recursive: true });
  for (const [file, text] of Object.entries(launch.files)) await writeFile(path.join(dir, file), text, { mode: 0o644 });
  const argv = opts.command ? opts.command(launch) : launch.argv;

  const log = new RunLog(ctx, opts.maxLogLines ?? 20_000);
  await log.now("info", `Starting ${engine} in ${dir}: ${argv.join(" ")}`, {
    engine,
    files: Object.keys(launch.files),
    approx: launch.mapping.approx,
    envUrl: launch.env.ROLLOUT_LAB_ENV_URL,
  });
  const token = await createRunToken(db, run.id, `${engine} · run ${run.id}`);
  try {
    const child = spawn(argv[0], argv.slice(1), {
      cwd: dir,
      env: engineEnv(launch, token.token),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let lastError = "";
    createInterface({ input: child.stdout! }).on("line", (l) => log.line("info", l));
    createInterface({ input: child.stderr! }).on("line", (l) => {
      if (l.trim()) lastError = l.trim();
      log.line("warn", l);
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; spawnError?: Error }>((resolve) => {
      child.once("error", (err) => resolve({ code: null, signal: null, spawnError: err }));
      child.once("close", (code, signal) => resolve({ code, signal }));
    });
    const stop = () => {
      if (child.pid === undefined || child.exitCode !== null) return;
      const group = -child.pid;
      log.line("info", `Stopping ${engine} (${control.reason() ?? "stop"}): SIGTERM to its process group`);
      try {
        process.kill(group, "SIGTERM");
      } catch {
        return; // already gone
      }
      setTimeout(() => {
        try {
          process.kill(group, "SIGKILL");
        } catch {
          /* exited within the grace period */
        }
      }, opts.killGraceMs ?? 30_000).unref();
    };
    if (control.signal.aborted) stop();
    else control.signal.addEventListener("abort", stop, { once: true });
    const result = await exited;
    control.signal.removeEventListener("abort", stop);
    await log.flush();
    const steps = await stepsRecorded(ctx);
    const reason = control.reason();
    if (reason) return { kind: "stopped", reason, steps };
    if (result.spawnError) throw new Error(`${engine} could not be started (${argv[0]}): ${result.spawnError.message}`);
    if (result.code === 0) {
      await log.now("info", `${engine} exited with code 0 after step ${steps}.`);
      return { kind: "completed", steps };
    }
    throw new Error(
      `${engine} exited with ${result.signal ? `signal ${result.signal}` : `code ${result.code}`}${lastError ? `: ${lastError}` : ""}`,
    );
  } finally {
    await log.flush();
    await revokeRunTokens(db, run.id).catch(() => {});
  }
}

/** The last step the engine recorded: its episodes' or its logged metrics', whichever is later. */
async function stepsRecorded(ctx: RunContext): Promise<number> {
  const [t, m] = await Promise.all([
    ctx.db.trajectory.aggregate({ where: { runId: ctx.run.id }, _max: { step: true } }),
    ctx.db.metricPoint.aggregate({ where: { runId: ctx.run.id }, _max: { step: true } }),
  ]);
  return Math.max(t._max.step ?? 0, m._max.step ?? 0);
}

/** The engine's output as run events, written in batches (a chatty engine must not hold a transaction per line). */
class RunLog {
  private pending: { level: "info" | "warn"; message: string }[] = [];
  private kept = 0;
  private dropped = 0;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: RunContext,
    private readonly maxLines: number,
  ) {}

  line(level: "info" | "warn", message: string): void {
    if (this.kept >= this.maxLines) {
      this.dropped++;
      return;
    }
    this.kept++;
    this.pending.push({ level, message: message.slice(0, 4000) });
    this.timer ??= setTimeout(() => void this.flush(), 250);
  }

  async now(level: "info" | "warn", message: string, data?: Record<string, unknown>): Promise<void> {
    await this.flush();
    await this.ctx.db.runEvent.create({
      data: { runId: this.ctx.run.id, level, message, ...(data ? { data: JSON.parse(JSON.stringify(data)) } : {}) },
    });
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending.splice(0);
    if (this.dropped > 0 && this.pending.length === 0 && batch.length === 0) {
      batch.push({ level: "warn", message: `${this.dropped} more output lines were left out of the run's log.` });
      this.dropped = 0;
    }
    if (batch.length === 0) return this.writing;
    const data = batch.map((b) => ({ runId: this.ctx.run.id, level: b.level, message: b.message, data: { origin: "engine" } }));
    this.writing = this.writing.then(() => this.ctx.db.runEvent.createMany({ data }).then(() => undefined));
    return this.writing;
  }
}

/**
 * The children of `npm start` and what happens when one dies:
 *   - a `restart` child (the trainer worker) is started again with exponential backoff (1 s … 30 s); after
 *     MAX_FAST_CRASHES crashes that each came within FAST_CRASH_MS of starting, it is given up with a clear line
 *     (the dashboard keeps serving; runs wait in the queue);
 *   - any other child (the web server) dying stops everything.
 * Every child is a Node process preloaded with exit-with-parent.mjs, so none outlives the start process. Each runs
 * in a process group of its own: a Ctrl-C in the terminal reaches only the start process, which then asks each
 * child once (SIGTERM) to stop. (Before, the worker got the terminal's SIGINT and then the supervisor's SIGTERM,
 * took the second as "exit now", and left its run to be reclaimed as a crash.)
 */
import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";

const EXIT_WITH_PARENT = fileURLToPath(new URL("./exit-with-parent.mjs", import.meta.url));
const FAST_CRASH_MS = 30_000;
const MAX_FAST_CRASHES = 5;
const MAX_BACKOFF_MS = 30_000;
const DEFAULT_STOP_GRACE_MS = 15_000;

export interface ChildSpec {
  name: string;
  /** Node arguments after the preload (script and its arguments). */
  args: string[];
  env: NodeJS.ProcessEnv;
  restart: boolean;
  /** Scheduling priority (nice, 0–19): higher yields the CPU to the others when they need it. */
  nice?: number;
  /** How long a stop waits for the child before SIGKILL (default 15 s); a worker needs time to checkpoint. */
  stopGraceMs?: number;
}

interface Supervised {
  spec: ChildSpec;
  child: ChildProcess | null;
  startedAt: number;
  fastCrashes: number;
  retry: NodeJS.Timeout | null;
}

export class Supervisor {
  private readonly children: Supervised[] = [];
  private stopping = false;

  constructor(
    private readonly log: (message: string) => void,
    /** Called when a child that is not restarted dies unexpectedly. */
    private readonly onFatal: (name: string) => void,
  ) {}

  start(spec: ChildSpec): void {
    const entry: Supervised = { spec, child: null, startedAt: 0, fastCrashes: 0, retry: null };
    this.children.push(entry);
    this.launch(entry);
  }

  private launch(entry: Supervised): void {
    entry.retry = null;
    entry.startedAt = Date.now();
    const child = spawn(process.execPath, ["--import", EXIT_WITH_PARENT, ...entry.spec.args], {
      stdio: "inherit",
      env: entry.spec.env,
      detached: true,
    });
    entry.child = child;
    if (entry.spec.nice && child.pid) {
      try {
        os.setPriority(child.pid, entry.spec.nice);
      } catch {
        // not permitted here: run at normal priority
      }
    }
    child.on("exit", (code, signal) => {
      entry.child = null;
      if (this.stopping) return;
      const how = signal ?? `code ${code}`;
      if (!entry.spec.restart) {
        this.log(`${entry.spec.name} exited unexpectedly (${how}); stopping.`);
        this.onFatal(entry.spec.name);
        return;
      }
      entry.fastCrashes = Date.now() - entry.startedAt < FAST_CRASH_MS ? entry.fastCrashes + 1 : 1;
      if (entry.fastCrashes >= MAX_FAST_CRASHES) {
        this.log(
          `${entry.spec.name} crashed ${entry.fastCrashes} times in a row shortly after starting (last: ${how}); not restarting it. The dashboard keeps running; fix the error above and restart Rollout Lab (or start a worker with \`npm run worker\`).`,
        );
        return;
      }
      const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (entry.fastCrashes - 1));
      this.log(
        `${entry.spec.name} exited unexpectedly (${how}); restarting in ${Math.round(delay / 1000)} s (a run it held resumes from its last checkpoint).`,
      );
      entry.retry = setTimeout(() => this.launch(entry), delay);
    });
  }

  /** SIGTERM every child (graceful: the worker checkpoints), SIGKILL after its grace period. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      this.children.map((entry) => {
        if (entry.retry) clearTimeout(entry.retry);
        const child = entry.child;
        if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
        return new Promise<void>((resolve) => {
          const timer = setTimeout(() => killGroup(child), entry.spec.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
          child.once("exit", () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill("SIGTERM");
        });
      }),
    );
  }

  /** SIGKILL every child's process group at once (a second Ctrl-C: the user does not want to wait). */
  killAll(): void {
    this.stopping = true;
    for (const entry of this.children) if (entry.child) killGroup(entry.child);
  }
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    child.kill("SIGKILL"); // the group is gone, or was never made
  }
}

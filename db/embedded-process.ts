/**
 * Process bookkeeping around the embedded database folder: one Rollout Lab per folder (two would fight over the
 * same cluster), and clearing a postmaster that outlived the process that started it (the host was killed in a
 * way even the watchdog did not survive, e.g. the whole process group got SIGKILL).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Take the folder's pid file; returns a function that gives it back. */
export function claimDataDir(dir: string, fail: (message: string) => Error): () => void {
  const pidFile = path.join(dir, "rollout-lab.pid");
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    if (pid && pid !== process.pid && processAlive(pid)) {
      throw fail(
        `Another Rollout Lab (pid ${pid}) is using the embedded database in ${dir}; stop it first, or set ROLLOUT_LAB_DATA_DIR to another folder.`,
      );
    }
  }
  writeFileSync(pidFile, String(process.pid));
  return () => {
    const current = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").trim()) : null;
    if (current === process.pid) rmSync(pidFile, { force: true });
  };
}

function isPostmasterOf(pid: number, clusterDir: string): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return path.basename(cmdline[0] ?? "") === "postgres" && cmdline.includes(clusterDir);
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!processAlive(pid)) return true;
    await sleep(100);
  }
  return !processAlive(pid);
}

/**
 * Called while holding the folder (so no live Rollout Lab owns that server): a postmaster still running on this
 * cluster is a leftover. Fast shutdown (SIGINT), then immediate shutdown (SIGQUIT) if it does not go.
 */
export async function stopStalePostmaster(clusterDir: string): Promise<void> {
  const pidFile = path.join(clusterDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!pid || !isPostmasterOf(pid, clusterDir)) return; // stale file: PostgreSQL itself clears it on start
  console.log(`[rollout-lab] Stopping a leftover embedded PostgreSQL (pid ${pid}) from an earlier run…`);
  process.kill(pid, "SIGINT");
  if (await waitGone(pid, 20_000)) return;
  process.kill(pid, "SIGQUIT");
  if (!(await waitGone(pid, 10_000))) {
    throw new Error(
      `A leftover PostgreSQL (pid ${pid}) still runs on ${clusterDir} and did not stop; stop it (kill ${pid}) and start again.`,
    );
  }
}

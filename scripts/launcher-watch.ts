/**
 * `npm start` is a chain of processes: npm → sh → node scripts/start.ts. A `kill -9` of npm (or of the shell) does
 * not reach start.ts, which Linux simply reparents, and everything it started (the web server, the worker, the
 * database) kept running with the ports open. So start.ts watches the processes that launched it, up to npm
 * itself when an npm script started it, and stops everything as soon as one of them is gone.
 *
 * A process is identified by its pid and its start time (/proc/<pid>/stat field 22), so a recycled pid does not
 * pass for the launcher. Without /proc (not Linux) only the parent is watched, through process.ppid.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

interface ProcessId {
  pid: number;
  startTime: string;
}

/** pid, parent pid and start time, or null when the process is gone. */
function statOf(pid: number): { ppid: number; startTime: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read the fields after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(fields[1]), startTime: fields[19] };
  } catch {
    return null;
  }
}

/** npm's own process: "node /usr/bin/npm start" at first, then "npm start" once npm has set its process title. */
function isNpm(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return argv.slice(0, 2).some((a) => /^npm(-cli\.js)?$/.test(path.basename(a.split(" ")[0])));
  } catch {
    return false;
  }
}

/**
 * The launchers to watch: the parent, and when an npm script started this process, every ancestor up to npm
 * (at most `maxDepth` levels; if npm is not found within them, only the parent).
 */
export function launchersOf(env: Record<string, string | undefined> = process.env, maxDepth = 6): ProcessId[] {
  const parent = statOf(process.ppid);
  if (!parent) return [];
  const chain: ProcessId[] = [{ pid: process.ppid, startTime: parent.startTime }];
  if (!env.npm_lifecycle_event) return chain;
  for (let pid = process.ppid, depth = 0; depth < maxDepth && pid > 1; depth++) {
    if (isNpm(pid)) return chain;
    const next = statOf(pid)?.ppid ?? 1;
    const nextStat = statOf(next);
    if (next <= 1 || !nextStat) break;
    chain.push({ pid: next, startTime: nextStat.startTime });
    pid = next;
  }
  return chain.slice(0, 1);
}

/** Calls `onGone` once, when a launcher exits (polled every `intervalMs`). Returns a function that stops watching. */
export function watchLaunchers(onGone: (pid: number) => void, intervalMs = 1000): () => void {
  const parentPid = process.ppid;
  const launchers = launchersOf();
  const timer = setInterval(() => {
    const gone = process.ppid !== parentPid ? parentPid : launchers.find((l) => statOf(l.pid)?.startTime !== l.startTime)?.pid;
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(gone);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * `npm start` as a real process for the embedded-mode tests: free ports, the start script with its output captured,
 * waiting on what it prints, and the process tree it leaves (read from /proc) to prove nothing outlives it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface StartedApp {
  child: ChildProcess;
  output: () => string;
}

/** `node --import tsx scripts/start.ts` with DATABASE_URL unset (embedded mode). */
export function startApp(env: Record<string, string>): StartedApp {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, START_WORKER: "false", NEXT_TELEMETRY_DISABLED: "1", ...env };
  delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return { child, output: () => out };
}

export async function waitFor(
  predicate: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string,
  output: () => string = () => "",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`timed out waiting for ${what}; output:\n${output()}`);
}

export async function stopApp(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  return exited;
}

interface ProcInfo {
  pid: number;
  ppid: number;
  state: string;
  cmdline: string;
}

function readProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may contain spaces, so split after the last ")".
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      out.push({ pid: Number(entry), state: rest[0], ppid: Number(rest[1]), cmdline });
    } catch {
      // the process exited while we read
    }
  }
  return out;
}

/** Every live (non-zombie) descendant of `pid`. */
export function descendantsOf(pid: number): ProcInfo[] {
  const procs = readProcs();
  const found: ProcInfo[] = [];
  const frontier = [pid];
  while (frontier.length) {
    const parent = frontier.pop()!;
    for (const p of procs) {
      if (p.ppid === parent && !found.some((f) => f.pid === p.pid)) {
        found.push(p);
        frontier.push(p.pid);
      }
    }
  }
  return found.filter((p) => p.state !== "Z");
}

/** Which of `pids` still run (zombies count as gone). */
export function stillRunning(pids: number[]): ProcInfo[] {
  return readProcs().filter((p) => pids.includes(p.pid) && p.state !== "Z");
}

export async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

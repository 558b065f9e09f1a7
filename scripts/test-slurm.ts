/**
 * A real one-node Slurm for the tests (like the PostgreSQL of scripts/test-services.ts): Debian's slurm-wlm — munged,
 * slurmctld and slurmd — started in a temporary folder with its own slurm.conf, its own munge socket and free
 * loopback ports, so it touches neither /etc/slurm nor /run/munge and leaves the machine as it found it. The client
 * commands (sbatch, squeue, scontrol, scancel) reach it through SLURM_CONF.
 *
 * TEST_SLURM_CONF set: that cluster is used as it is (scripts/test.ts starts one for every suite). No slurm-wlm, not
 * root (slurmd must be), or no munge key: one line says why and what to install, and the Slurm tests are skipped.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./test-services";

export interface TestSlurm {
  /** The slurm.conf every client command must see (pass `env` to child processes). */
  conf: string;
  env: { SLURM_CONF: string };
  /** The partition jobs go to (the only one). */
  partition: string;
  /** Where the daemons log, for a failing test to show. */
  dir: string;
  stop(): Promise<void>;
}

const MUNGE_KEY = "/etc/munge/munge.key";
const PARTITION = "debug";

/** null when this machine can run the test cluster; else the one line saying why not and how to fix it. */
export function slurmUnavailable(exists: (p: string) => boolean = existsSync): string | null {
  const missing = ["slurmctld", "slurmd", "munged", "sbatch"].filter((b) => spawnSync("sh", ["-c", `command -v ${b}`]).status !== 0);
  if (missing.length > 0) {
    return `slurm: not run — ${missing.join(", ")} not found. Install it (Debian/Ubuntu: sudo apt-get install slurm-wlm munge) or set TEST_SLURM_CONF to a running cluster's slurm.conf.`;
  }
  if (process.getuid?.() !== 0)
    return "slurm: not run — the test cluster's slurmd must run as root; run the tests as root or set TEST_SLURM_CONF.";
  if (!exists(MUNGE_KEY)) return `slurm: not run — no ${MUNGE_KEY} (created by the munge package: sudo apt-get install munge).`;
  return null;
}

function idOf(user: string, flag: "-u" | "-g"): number {
  return Number(spawnSync("id", [flag, user]).stdout.toString().trim());
}

/** The slurm.conf of the test cluster: one node with 2 CPUs, no accounting, loopback only. */
export function testSlurmConf(o: { dir: string; host: string; ctldPort: number; slurmdPort: number; mungeSocket: string }): string {
  return [
    "ClusterName=rollout-lab-test",
    `SlurmctldHost=${o.host}(127.0.0.1)`,
    `SlurmctldPort=${o.ctldPort}`,
    `SlurmdPort=${o.slurmdPort}`,
    "AuthType=auth/munge",
    "CredType=cred/munge",
    `AuthInfo=socket=${o.mungeSocket}`,
    "ProctrackType=proctrack/linuxproc",
    "TaskPlugin=task/none",
    "SchedulerType=sched/builtin",
    "SelectType=select/cons_tres",
    "SelectTypeParameters=CR_Core",
    `StateSaveLocation=${o.dir}/state`,
    `SlurmdSpoolDir=${o.dir}/spool`,
    `SlurmctldPidFile=${o.dir}/slurmctld.pid`,
    `SlurmdPidFile=${o.dir}/slurmd.pid`,
    `SlurmctldLogFile=${o.dir}/slurmctld.log`,
    `SlurmdLogFile=${o.dir}/slurmd.log`,
    "SlurmUser=root",
    "ReturnToService=2",
    // Finished jobs stay visible to scontrol for 10 minutes (there is no sacct without accounting).
    "MinJobAge=600",
    // Time between a job's SIGTERM and SIGKILL: the trainer checkpoints in it.
    "KillWait=60",
    "JobAcctGatherType=jobacct_gather/none",
    "AccountingStorageType=accounting_storage/none",
    `NodeName=${o.host} NodeAddr=127.0.0.1 CPUs=2 RealMemory=4000 State=UNKNOWN`,
    `PartitionName=${PARTITION} Nodes=${o.host} Default=YES MaxTime=INFINITE State=UP`,
    "",
  ].join("\n");
}

/** The last lines of the cluster's daemon logs, for an error to show. */
export function clusterLogTail(dir: string, lines = 8): string {
  return ["munge/munged.log", "slurmctld.log", "slurmd.log"]
    .map((f) => path.join(dir, f))
    .filter(existsSync)
    .map((f) => `${f}:\n${readFileSync(f, "utf8").split("\n").slice(-lines).join("\n")}`)
    .join("\n");
}

async function waitFor(what: string, check: () => boolean, timeoutMs: number, dir: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`The test Slurm did not come up: ${what} within ${timeoutMs / 1000} s.\n${clusterLogTail(dir)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Whether process `pid` belongs to the cluster in `dir`: its command line names the folder, or it holds a file in it. */
function holdsFolder(pid: string, dir: string): boolean {
  try {
    if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(dir + "/")) return true;
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(dir + "/");
      } catch {
        return false;
      }
    });
  } catch {
    // the process ended meanwhile, or is not ours to read
    return false;
  }
}

interface LiveProcess {
  pid: number;
  cmd: string;
  session: number;
}

/** A running process (not a zombie: those are gone for good, their parent only has to reap them); null if none. */
function liveProcess(pid: number): LiveProcess | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // After the command's closing parenthesis: state, ppid, process group, session.
    const [state, , , session] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (state === "Z") return null;
    return { pid, cmd: readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim(), session: Number(session) };
  } catch {
    return null;
  }
}

/**
 * Live processes of the cluster in `dir`: those that name or hold its folder (the daemons, slurmstepd, job scripts),
 * and every process of a job step's session (what the job started: `sleep` holds nothing of the folder). This
 * process's own session, where the daemons were started, is not swept.
 */
export function clusterProcesses(dir: string): LiveProcess[] {
  const pids = readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((p) => p !== process.pid);
  const own = liveProcess(process.pid)?.session;
  const isLive = (p: LiveProcess | null): p is LiveProcess => p !== null;
  const holders = pids
    .filter((p) => holdsFolder(String(p), dir))
    .map(liveProcess)
    .filter(isLive);
  const jobSessions = new Set(holders.map((h) => h.session).filter((session) => session !== own));
  const sessionMates = jobSessions.size
    ? pids
        .filter((p) => !holders.some((h) => h.pid === p))
        .map(liveProcess)
        .filter(isLive)
        .filter((p) => jobSessions.has(p.session))
    : [];
  return [...holders, ...sessionMates];
}

/**
 * Whatever of the cluster outlived its daemons: slurmstepd processes (they keep its log open) and the jobs' own
 * processes, which a step daemon stopped mid-cancel (a loaded machine) leaves orphaned. Killed and waited for, so no
 * job of the test cluster is left on the machine; other clusters' processes never hold this folder nor share a session
 * with what does.
 */
async function killLeftovers(dir: string): Promise<void> {
  const end = Date.now() + 10_000;
  for (let left = clusterProcesses(dir); left.length > 0 && Date.now() < end; left = clusterProcesses(dir)) {
    for (const { pid } of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // ended meanwhile
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Start munged, slurmctld and slurmd in a fresh folder; resolves once the node is idle. */
export async function startTestSlurm(): Promise<TestSlurm> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rollout-lab-slurm-"));
  // munged refuses a socket whose folders are not searchable by everyone.
  chmodSync(dir, 0o755);
  for (const sub of ["state", "spool", "munge"]) mkdirSync(path.join(dir, sub));
  const mungeDir = path.join(dir, "munge");
  chownSync(mungeDir, idOf("munge", "-u"), idOf("munge", "-g"));
  const mungeSocket = path.join(mungeDir, "munge.socket");
  const host = os.hostname().split(".")[0];
  const conf = path.join(dir, "slurm.conf");
  const ctldPort = await freePort();
  // Two ports asked one after the other can come back equal (each was free once its probe closed).
  let slurmdPort = await freePort();
  while (slurmdPort === ctldPort) slurmdPort = await freePort();
  writeFileSync(conf, testSlurmConf({ dir, host, ctldPort, slurmdPort, mungeSocket }));
  const env = { ...process.env, SLURM_CONF: conf };
  const children: ChildProcess[] = [];
  const stop = async () => {
    // Jobs first, so no slurmstepd is left waiting for a slurmd that is gone.
    if (children.length === 3) {
      spawnSync("scancel", ["--full", `--partition=${PARTITION}`], { env });
      const end = Date.now() + 20_000;
      while (Date.now() < end && (spawnSync("squeue", ["-h", "-o", "%i"], { env }).stdout?.toString().trim() ?? "") !== "") {
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    for (const child of children.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    await killLeftovers(dir);
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    process.removeListener("exit", killAll);
  };
  // A test process that exits without calling stop() (an uncaught error) still takes its daemons with it.
  const killAll = () => children.forEach((c) => c.exitCode === null && c.signalCode === null && c.kill("SIGKILL"));
  process.once("exit", killAll);
  try {
    children.push(
      spawn(
        "munged",
        [
          "-F",
          `--socket=${mungeSocket}`,
          `--pid-file=${mungeDir}/munged.pid`,
          `--log-file=${mungeDir}/munged.log`,
          `--seed-file=${mungeDir}/munged.seed`,
        ],
        { uid: idOf("munge", "-u"), gid: idOf("munge", "-g"), stdio: "ignore" },
      ),
    );
    await waitFor("munged's socket", () => existsSync(mungeSocket), 15_000, dir);
    // -D: in the foreground, so they are this process's children and stop() ends exactly them.
    children.push(spawn("slurmctld", ["-D", "-f", conf], { env, stdio: "ignore" }));
    children.push(spawn("slurmd", ["-D", "-f", conf, "-N", host], { env, stdio: "ignore" }));
    await waitFor(
      "the node to be idle (sinfo)",
      () => /idle/.test(spawnSync("sinfo", ["-h", "-o", "%t"], { env }).stdout?.toString() ?? ""),
      60_000,
      dir,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { conf, env: { SLURM_CONF: conf }, partition: PARTITION, dir, stop };
}

/**
 * The cluster for a test file: TEST_SLURM_CONF's when set, else one started here (stopped by stop()); null, with
 * the reason logged in one line, when this machine cannot run one.
 */
export async function provideTestSlurm(
  env: Record<string, string | undefined> = process.env,
  log: (line: string) => void = console.log,
): Promise<TestSlurm | null> {
  if (env.TEST_SLURM_CONF) {
    const conf = env.TEST_SLURM_CONF;
    return {
      conf,
      env: { SLURM_CONF: conf },
      partition: env.TEST_SLURM_PARTITION ?? PARTITION,
      dir: path.dirname(conf),
      stop: async () => {},
    };
  }
  const why = slurmUnavailable();
  if (why) {
    log(why);
    return null;
  }
  return startTestSlurm();
}

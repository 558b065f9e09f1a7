/**
 * npm test — every suite, in the order a failure is cheapest to find: lint, type check, unit tests, web build,
 * integration tests against the real PostgreSQL (plus the embedded-mode test), Playwright end-to-end tests in
 * Debian's Chromium. Ends with one line "N passed, N failed" (CI reads it): N passed counts each test once; the
 * checks (lint, format, typecheck, build) are listed apart, and each one that fails adds one to N failed.
 *
 * Environment: TEST_PG_ADMIN_URL (default postgresql://postgres@127.0.0.1:5432/postgres) — tests create and drop
 * their own databases there; when it is unset and nothing answers on 5432, the embedded PostgreSQL is started for
 * the run (scripts/test-services.ts). ROLLOUT_LAB_LLM_BASE_URLS defaults to http://127.0.0.1: (the fake LLM
 * servers). No Chromium: the e2e suite is not run, and one line says how to install it. A one-node Slurm
 * (slurm-wlm) is started for the integration suite (TEST_SLURM_CONF); without slurm-wlm one line says so and the Slurm
 * tests are skipped.
 * `--only unit,integration` runs a subset; `--only build,e2e --spec compare-groups` only the e2e spec files whose names
 * contain that text (Playwright's own filter), with the fixtures trained as for the whole suite.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildIsCurrent, buildWebApp } from "./build-fingerprint";
import { createEmptyDatabase, dropDatabase } from "../tests/integration/helpers/db";
import { trainE2eFixtures } from "./e2e-fixtures";
import { createPrismaClient } from "../db/client";
import { applyMigrations } from "../db/migrate";
import pg from "pg";
import { missingChromium, provideTestPostgres, unreachablePostgres } from "./test-services";
import { provideTestSlurm } from "./test-slurm";
import { type FailedTest, formatFailures, playwrightFailures, type PlaywrightReportSuite, tapFailures } from "./test-failures";

interface SuiteResult {
  name: string;
  /** A check (lint, format, typecheck, build) is one pass/fail, not a test: it is shown apart and not counted as one. */
  kind: "check" | "tests";
  passed: number;
  failed: number;
  seconds: number;
  /** Tests that failed and then passed on a retry: counted as passed, but named so nobody mistakes them for green. */
  flaky?: string[];
  /** Each failed test with its message, read from the runner's report (printed again at the end of the log). */
  failures?: FailedTest[];
}
const results: SuiteResult[] = [];
/** The failed tests of the last run, one block each (.ci/run prints it above its closing count); empty when none failed. */
const FAILURES_FILE = "test-results/failures.txt";
function readOnlyFlag(argv: string[]): Set<string> | null {
  const eq = argv.find((a) => a.startsWith("--only="));
  if (eq) return new Set(eq.slice("--only=".length).split(","));
  const i = argv.indexOf("--only");
  return i >= 0 && argv[i + 1] ? new Set(argv[i + 1].split(",")) : null;
}
const only = readOnlyFlag(process.argv.slice(2));
const specIndex = process.argv.indexOf("--spec");
const e2eSpecs = specIndex >= 0 && process.argv[specIndex + 1] ? process.argv[specIndex + 1].split(",") : [];
// The suites' fake LLM servers listen on loopback, which the endpoint policy refuses by default: allow it for every
// suite and every process they start (web servers, workers, Playwright's server inherit process.env). Tests of the
// default policy build it from an explicit env object.
process.env.ROLLOUT_LAB_LLM_BASE_URLS ??= "http://127.0.0.1:";
const want = (suite: string) => !only || only.has(suite);

// ── machine services (scripts/test-services.ts): PostgreSQL found or started, Chromium found or reported ──
const postgres = want("integration") || want("e2e") ? await provideTestPostgres() : null;
if (postgres) process.env.TEST_PG_ADMIN_URL = postgres.adminUrl; // every suite's processes inherit it
// A server named by TEST_PG_ADMIN_URL that does not answer: one line, then stop, still with the closing count.
const noPostgres = postgres?.source === "TEST_PG_ADMIN_URL" ? await unreachablePostgres(postgres.adminUrl) : null;
if (noPostgres) {
  console.log(noPostgres);
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const noChromium = want("e2e") ? missingChromium() : null;
const notRun: string[] = noChromium ? [noChromium] : [];
// A real one-node Slurm (scripts/test-slurm.ts) for the Slurm launcher's tests; none possible: one line, those skipped.
const slurm = want("integration")
  ? await provideTestSlurm(process.env, (line) => notRun.push(line)).catch((err: Error) => {
      // The Slurm tests start their own cluster then, and fail with this same error where it can be read.
      notRun.push(`slurm: the shared test cluster did not start (${err.message.split("\n")[0]})`);
      return null;
    })
  : null;
if (slurm) process.env.TEST_SLURM_CONF = slurm.conf;
// ──

function run(command: string, args: string[], env: Record<string, string> = {}): number {
  const res = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env } });
  return res.status ?? 1;
}

function findTests(dirs: string[], suffix: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) {
      if (entry === "node_modules" || entry.startsWith(".")) continue;
      const p = path.join(dir, entry);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith(suffix)) out.push(p);
    }
  };
  dirs.forEach(walk);
  return out.sort();
}

interface PlaywrightReport {
  stats: { expected: number; unexpected: number; flaky: number };
  suites: PlaywrightReportSuite[];
}

/** Titles of the tests Playwright marked "flaky" (failed, then passed on a retry). */
function flakyTitles(suites: PlaywrightReportSuite[], prefix = ""): string[] {
  return suites.flatMap((s) => {
    const here = prefix ? `${prefix} › ${s.title}` : s.title;
    const specs = (s.specs ?? []).filter((spec) => spec.tests.some((t) => t.status === "flaky")).map((spec) => `${here} › ${spec.title}`);
    return [...specs, ...flakyTitles(s.suites ?? [], here)];
  });
}

type Outcome = Pick<SuiteResult, "passed" | "failed" | "flaky" | "failures">;

function timed(name: string, kind: SuiteResult["kind"], fn: () => Outcome) {
  const start = Date.now();
  console.log(`\n━━ ${name} ━━`);
  const r = fn();
  results.push({ name, kind, ...r, seconds: (Date.now() - start) / 1000 });
}

// Each test's own bound: a regression that hangs (a lost lease, a server that never answers) fails in minutes, not
// after ten. The slowest tests take ~80 s on this 2-core machine under a full run; a test that needs longer (the
// npm start tests, which build and boot the whole app) declares its own timeout.
const TEST_TIMEOUT_MS = 240_000;

/**
 * Files whose tests each bound themselves and together outlast TEST_TIMEOUT_MS on a loaded machine: node's runner
 * applies --test-timeout to a whole file too, and the Slurm file (its jobs on one shared node, ~160 s quiet) was
 * cancelled whole at 240 s while other files ran beside it. They run after the rest, one at a time, with a file bound
 * of LONG_FILE_TIMEOUT_MS.
 */
const LONG_FILES = ["tests/integration/slurm.test.ts"];
const LONG_FILE_TIMEOUT_MS = 900_000;

/** One node:test process over `files`, counted from a TAP copy of its output (the spec reporter stays on the console). */
function runNodeTests(tap: string, files: string[], concurrency: number, timeoutMs: number): Outcome {
  rmSync(tap, { force: true });
  const code = run(process.execPath, [
    "--import",
    "tsx",
    // The environment server's tests play through a WebSocket client: built in from Node 22, behind a flag on 20.
    ...(typeof globalThis.WebSocket === "undefined" ? ["--experimental-websocket"] : []),
    "--test",
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${timeoutMs}`,
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    `--test-reporter-destination=${tap}`,
    ...files,
  ]);
  const text = existsSync(tap) ? readFileSync(tap, "utf8") : "";
  const passed = Number(text.match(/^# pass (\d+)/m)?.[1] ?? 0);
  const failed = Number(text.match(/^# fail (\d+)/m)?.[1] ?? 0) + Number(text.match(/^# cancelled (\d+)/m)?.[1] ?? 0);
  const failures = tapFailures(text);
  if (code !== 0 && failures.length === 0)
    failures.push({ title: `node --test ${files.length} files`, error: `exited with ${code}: see the log above` });
  return { passed, failed: failed || (code !== 0 ? 1 : 0), failures };
}

function nodeTests(name: string, files: string[], concurrency: number) {
  timed(name, "tests", () => {
    if (files.length === 0) return { passed: 0, failed: 0 };
    mkdirSync("test-results", { recursive: true });
    const long = files.filter((f) => LONG_FILES.includes(f.split(path.sep).join("/")));
    const rest = files.filter((f) => !long.includes(f));
    const first: Outcome = rest.length
      ? runNodeTests(`test-results/${name}.tap`, rest, concurrency, TEST_TIMEOUT_MS)
      : { passed: 0, failed: 0 };
    if (long.length === 0) return first;
    console.log(`\n${name}: ${long.join(", ")} alone (bounded at ${LONG_FILE_TIMEOUT_MS / 60_000} min)`);
    const second = runNodeTests(`test-results/${name}-long.tap`, long, 1, LONG_FILE_TIMEOUT_MS);
    return {
      passed: first.passed + second.passed,
      failed: first.failed + second.failed,
      failures: [...(first.failures ?? []), ...(second.failures ?? [])],
    };
  });
}

function check(name: string, command: string, args: string[]) {
  timed(name, "check", () => (run(command, args) === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 }));
}

if (want("lint")) check("lint", process.execPath, ["node_modules/eslint/bin/eslint.js", "."]);
// Formatting is Prettier's (.prettierrc.json, 140 columns); `npm run format` fixes what this reports.
if (want("lint")) check("format", process.execPath, ["node_modules/prettier/bin/prettier.cjs", "--check", "--log-level=warn", "."]);
if (want("typecheck")) check("typecheck", process.execPath, ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."]);
if (want("unit")) nodeTests("unit", findTests(["lib", "db", "server", "trainer", "scripts", "components", "cli"], ".test.ts"), 2);
if (want("build") || want("e2e")) {
  timed("build", "check", () => {
    if (buildIsCurrent()) return { passed: 1, failed: 0 };
    const ok = buildWebApp();
    return ok ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 };
  });
}
if (want("integration")) nodeTests("integration", findTests(["tests/integration"], ".test.ts"), 2);
if (want("e2e") && !noChromium) {
  const e2eDb = await createEmptyDatabase("rl_e2e");
  // Checkpoints of the runs the e2e tests launch go to a throwaway folder, not the user's .data.
  const e2eDataDir = mkdtempSync(path.join(os.tmpdir(), "rollout-lab-e2e-"));
  try {
    const client = new pg.Client({ connectionString: e2eDb.url });
    await client.connect();
    await applyMigrations(client);
    await client.end();
    const prisma = createPrismaClient(e2eDb.url, 2);
    const t0 = Date.now();
    await trainE2eFixtures(prisma, e2eDataDir);
    console.log(`e2e fixtures trained in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    await prisma.$disconnect();
    timed("e2e", "tests", () => {
      const code = run(process.execPath, ["node_modules/@playwright/test/cli.js", "test", ...e2eSpecs], {
        E2E_DATABASE_URL: e2eDb.url,
        E2E_START_WORKER: "true",
        ROLLOUT_LAB_DATA_DIR: e2eDataDir,
      });
      const report = "test-results/e2e-results.json";
      if (!existsSync(report))
        return { passed: 0, failed: 1, failures: [{ title: "Playwright", error: `no report (${report}): see the log above` }] };
      const json = JSON.parse(readFileSync(report, "utf8")) as PlaywrightReport;
      const { stats } = json;
      return {
        passed: stats.expected + stats.flaky,
        failed: stats.unexpected || (code !== 0 ? 1 : 0),
        flaky: flakyTitles(json.suites),
        failures: playwrightFailures(json.suites),
      };
    });
  } finally {
    await dropDatabase(e2eDb.name);
    rmSync(e2eDataDir, { recursive: true, force: true });
  }
}

console.log("\n━━ summary ━━");
const checks = results.filter((r) => r.kind === "check");
if (checks.length) console.log(`checks       ${checks.map((c) => `${c.name} ${c.failed ? "FAILED" : "ok"}`).join(", ")}`);
for (const r of results.filter((x) => x.kind === "tests")) {
  const flaky = r.flaky?.length ? `  (${r.flaky.length} flaky: passed only on a retry)` : "";
  console.log(
    `${r.name.padEnd(12)} ${String(r.passed).padStart(4)} passed ${String(r.failed).padStart(3)} failed  ${r.seconds.toFixed(1)}s${flaky}`,
  );
  for (const title of r.flaky ?? []) console.log(`  flaky: ${title}`);
}
for (const line of notRun) console.log(line);
// What failed, last: a log read from its end shows each failed test and its message, not only a count.
const failureLines = [
  ...checks.filter((c) => c.failed).map((c) => `✖ ${c.name}: the check failed (its output is above)`),
  ...results.flatMap((r) => formatFailures(r.name, r.failures ?? [])),
];
if (failureLines.length) console.log(`\n━━ failed ━━\n${failureLines.join("\n")}`);
mkdirSync("test-results", { recursive: true });
writeFileSync(FAILURES_FILE, failureLines.length ? `${failureLines.join("\n")}\n` : "");
await postgres?.stop();
await slurm?.stop();
// The closing line counts tests, each once; a failed check counts as one failure so it can never read as green.
const tests = results.filter((r) => r.kind === "tests");
const passed = tests.reduce((s, r) => s + r.passed, 0);
const failed = tests.reduce((s, r) => s + r.failed, 0) + checks.filter((c) => c.failed).length;
// Running nothing is a failure, not a pass: a typo in --only must not turn CI green.
const failedTotal = passed + failed === 0 && checks.length === 0 ? 1 : failed;
console.log(`${passed} passed, ${failedTotal} failed`);
process.exit(failedTotal > 0 ? 1 : 0);

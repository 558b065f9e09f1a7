/**
 * npm run bench:ui — how long the run page takes to show its first chart in a real browser (Debian's Chromium via
 * Playwright), on a demo-sized run (40 steps, the synthetic run the integration tests use) and on a run with 100k
 * steps × 20 metric keys. Each page load is timed from navigation to the first drawn curve, cold (a fresh browser
 * context: nothing cached) and warm (median of the reloads), with the load average at each. Prints JSON with the
 * conditions (load average before and after, cores, versions). Targets on a quiet machine: warm < 1.0 s for the
 * demo run, < 1.5 s for the 100k-step run; figures taken under load are not comparable.
 *
 * It builds the app if the build is stale, serves it with `npm start`'s script on BENCH_UI_PORT (default 3291)
 * against its own database (rl_bench_ui, kept between runs; --refill rebuilds it), and never starts a worker.
 * Env: BENCH_PG_ADMIN_URL (default postgresql://postgres@127.0.0.1:5432/postgres), CHROMIUM_PATH.
 */
import { spawn } from "node:child_process";
import { chromium, type Browser, type Page } from "playwright";
import { createPrismaClient } from "../db/client";
import { benchConditions, benchDbUrl, insertMetricRun, insertRollups, loadAverageNow, openBenchDb } from "./bench-db";
import { insertSyntheticRun } from "../tests/integration/helpers/synthetic-run";
import { buildIsCurrent, buildWebApp } from "../scripts/build-fingerprint";

const DB = "rl_bench_ui";
const PORT = Number(process.env.BENCH_UI_PORT ?? 3291);
const BIG_RUN = "bench-ui-100k";
const STEPS = 100_000;
const KEYS = Array.from({ length: 20 }, (_, i) => (i === 0 ? "reward/mean" : `bench/key_${String(i).padStart(2, "0")}`));
const RELOADS = Number(process.env.BENCH_ITERATIONS ?? 5);

const dbUrl = () => benchDbUrl(DB);

/** The database with a demo-sized run and a 100k-step run (its points and the rollups the trainer would keep). */
async function fill(refill: boolean): Promise<string> {
  const c = await openBenchDb(DB, refill);
  const have = await c.query(`SELECT id FROM "Run" WHERE name = 'bench-ui demo'`);
  let demoId: string = have.rows[0]?.id;
  if (!demoId) {
    const prisma = createPrismaClient(dbUrl());
    demoId = await insertSyntheticRun(prisma);
    await prisma.run.update({ where: { id: demoId }, data: { name: "bench-ui demo" } });
    await prisma.$disconnect();
  }
  const big = await c.query(`SELECT 1 FROM "Run" WHERE id = $1`, [BIG_RUN]);
  if (!big.rowCount) {
    console.error("filling: a 100k-step run with 20 keys and its rollups (a minute, once)…");
    await insertMetricRun(c, { id: BIG_RUN, name: "bench-ui 100k steps", steps: STEPS, keys: KEYS });
    await insertRollups(c, BIG_RUN);
    await c.query("ANALYZE");
  }
  await c.end();
  return demoId;
}

async function firstChartMs(page: Page, url: string, reload: boolean): Promise<number> {
  const t0 = performance.now();
  if (reload) await page.reload();
  else await page.goto(url);
  await page.locator('[data-testid="metric-chart"] path.recharts-curve').first().waitFor({ state: "visible", timeout: 120_000 });
  return Math.round(performance.now() - t0);
}

/** Cold: a new browser context (no HTTP cache, no JavaScript compiled for this origin); warm: its reloads. */
async function measure(browser: Browser, url: string) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const loadAverageCold = loadAverageNow();
  const cold = await firstChartMs(page, url, false);
  const loadAverageWarm = loadAverageNow();
  const warm: number[] = [];
  for (let i = 0; i < RELOADS; i++) warm.push(await firstChartMs(page, url, true));
  warm.sort((a, b) => a - b);
  const charts = await page.locator('[data-testid="metric-chart"]').count();
  await context.close();
  return { cold_ms: cold, loadAverageCold, warm_median_ms: warm[Math.floor(warm.length / 2)], warm_ms: warm, loadAverageWarm, charts };
}

const demoId = await fill(process.argv.includes("--refill"));
const loadBefore = loadAverageNow();
if (!buildIsCurrent()) {
  console.error("building the app (npm run build)…");
  if (!buildWebApp()) throw new Error("the web build failed");
}
const server = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
  env: { ...process.env, DATABASE_URL: dbUrl(), PORT: String(PORT), START_WORKER: "false", NEXT_TELEMETRY_DISABLED: "1" },
  stdio: ["ignore", "ignore", "inherit"],
});
try {
  const base = `http://127.0.0.1:${PORT}`;
  for (let i = 0; ; i++) {
    if ((await fetch(`${base}/api/health`).catch(() => null))?.ok) break;
    if (i > 240) throw new Error("the app did not come up within 2 minutes");
    await new Promise((r) => setTimeout(r, 500));
  }
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
  const results = {
    "run page, demo-sized run (40 steps)": await measure(browser, `${base}/runs/${demoId}`),
    "run page, 100k steps × 20 keys": await measure(browser, `${base}/runs/${BIG_RUN}`),
  };
  const chromiumVersion = browser.version();
  await browser.close();
  console.log(
    JSON.stringify(
      {
        targets: { demoWarmMs: 1000, big100kWarmMs: 1500, note: "on a quiet machine; compare figures only at a similar load average" },
        conditions: { ...benchConditions(loadBefore), chromium: chromiumVersion, reloads: RELOADS, viewport: "1440×900" },
        results,
      },
      null,
      2,
    ),
  );
} finally {
  server.kill("SIGTERM");
}

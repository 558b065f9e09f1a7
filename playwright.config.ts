/**
 * End-to-end tests in Debian's Chromium (/usr/bin/chromium): `npx playwright install` would download a browser,
 * which this project never does. The app runs against the database in E2E_DATABASE_URL (scripts/test.ts creates a
 * fresh one on the real PostgreSQL), seeded with the demo run.
 */
import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT ?? 3210);

export default defineConfig({
  testDir: "tests/e2e",
  timeout: 60_000,
  // Generous: CI shares 2 cores between the web server, Chromium and the test runner.
  expect: { timeout: 15_000 },
  workers: 1,
  reporter: [["list"], ["json", { outputFile: "test-results/e2e-results.json" }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  webServer: {
    command: "node --import tsx scripts/start.ts",
    url: `http://127.0.0.1:${port}/api/health`,
    timeout: 240_000,
    reuseExistingServer: false,
    env: {
      DATABASE_URL: process.env.E2E_DATABASE_URL ?? "",
      PORT: String(port),
      START_WORKER: process.env.E2E_START_WORKER ?? "false",
      NEXT_TELEMETRY_DISABLED: "1",
      // The launch tests point runs at the fake LLM server on loopback, which the endpoint policy refuses by default.
      ROLLOUT_LAB_LLM_BASE_URLS: process.env.ROLLOUT_LAB_LLM_BASE_URLS ?? "http://127.0.0.1:",
    },
  },
});

import { expect, test } from "@playwright/test";
import pg from "pg";
import { SIMULATED_RUN } from "./fixtures";

// Needs a trainer worker beside the web server (scripts/test.ts sets E2E_START_WORKER=true).
test("launch a run from the form: it appears, trains on the worker, and can be compared with another run", async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto("/runs");
  await page.getByRole("link", { name: "New run" }).click();
  await expect(page.getByRole("heading", { name: "Launch a run" })).toBeVisible();

  await page.getByLabel("Environment", { exact: true }).selectOption("guess-number");
  // One environment control: no second free-text field that could disagree with it.
  await expect(page.locator("#cfg-environment")).toHaveCount(0);
  await page.locator("#cfg-name").fill("e2e guess-number");
  // An invalid combination is explained beside its field before anything is sent.
  await page.locator("#cfg-grpo-groupSize").fill("1");
  await page.getByRole("button", { name: "Launch run" }).click();
  await expect(page.getByTestId("error-grpo.groupSize")).toContainText("at least 2");

  await page.locator("#cfg-grpo-groupSize").fill("2");
  await page.locator("#cfg-grpo-steps").fill("2");
  await page.locator("#cfg-grpo-groupsPerStep").fill("2");
  await page.locator("#cfg-grpo-minibatchSize").fill("4");
  await page.locator("#cfg-grpo-sftWarmupSteps").fill("2");
  await page.getByTestId("advanced-settings").locator("summary").click(); // checkpoints and evaluation are advanced
  await page.locator("#cfg-checkpoint-saveFreq").fill("1");
  await page.locator("#cfg-evaluation-testFreq").fill("0");

  // An option whose JSON does not parse holds the launch instead of being silently dropped.
  await page.locator("#cfg-environmentOptions").fill('{"max": ');
  await page.getByRole("button", { name: "Launch run" }).click();
  await expect(page.getByTestId("json-error-cfg-environmentOptions")).toContainText("Not valid JSON");
  await expect(page.getByText(/Fix the highlighted fields: environmentOptions/)).toBeVisible();
  await expect(page).toHaveURL(/\/runs\/new/);
  await page.locator("#cfg-environmentOptions").fill('{"max": 4}');
  await expect(page.getByTestId("json-error-cfg-environmentOptions")).toHaveCount(0);

  // The pre-flight check: the worker renders the game's opening prompt with the policy's tokenizer. A context too
  // small for it holds the launch (unless "Launch anyway"); the preset's context fits.
  const preflight = page.getByTestId("preflight");
  const maxNewTokens = await page.locator("#cfg-rollout-maxNewTokens").inputValue();
  await page.locator("#cfg-policy-contextLength").fill("64");
  await page.locator("#cfg-rollout-maxNewTokens").fill("64");
  await expect(preflight).toHaveAttribute("data-verdict", "problems", { timeout: 30_000 });
  await expect(preflight.getByRole("alert")).toContainText("Raise policy.contextLength");
  await expect(page.getByRole("button", { name: "Launch run" })).toBeDisabled();
  await page.getByLabel("Launch anyway").check();
  await expect(page.getByRole("button", { name: "Launch run" })).toBeEnabled();
  await page.locator("#cfg-policy-contextLength").fill("512");
  await page.locator("#cfg-rollout-maxNewTokens").fill(maxNewTokens);
  await expect(preflight).toHaveAttribute("data-verdict", "ok", { timeout: 30_000 });
  await expect(preflight).toContainText(/fits with \d+ tokens to spare/);
  // Notes written at launch go with the run (beside its config) and show on its page.
  // A note the server would refuse is refused beside its box, before anything is sent.
  await page.getByLabel(/^Notes/).fill(`key sk-${"x1".repeat(12)}`);
  await page.getByRole("button", { name: "Launch run" }).click();
  await expect(page.locator("#error-notes")).toContainText(/API key/);
  await expect(page.getByLabel(/^Notes/)).toBeFocused();
  await expect(page).toHaveURL(/\/runs\/new/);
  await page.getByLabel(/^Notes/).fill("Launched by the e2e test: two steps.");
  await expect(page.locator("#error-notes")).toHaveCount(0);
  await page.getByRole("button", { name: "Launch run" }).click();

  await expect(page.getByTestId("run-name")).toHaveText("e2e guess-number");
  await expect(page.getByTestId("run-notes-text")).toHaveText("Launched by the e2e test: two steps.");
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 150_000 });
  await expect(page.getByText("2/2")).toBeVisible();
  await expect(page.getByText("reward/mean", { exact: true })).toBeVisible();
  await expect(page.getByTestId("event-log")).toContainText(/claimed|step/i);
  const runId = new URL(page.url()).pathname.split("/")[2];
  await page.screenshot({ path: "artifacts/screenshots/launched-run.png", fullPage: true });

  // Its trajectories are browsable.
  await page.getByRole("link", { name: "Trajectories" }).click();
  await expect(page.getByTestId("trajectory-row").first()).toBeVisible();

  // Compare with another real run: both appear, with curves and the config difference.
  await page.goto("/runs");
  const demoHref = await page.getByTestId("run-row").filter({ hasText: SIMULATED_RUN }).getByRole("link").first().getAttribute("href");
  const demoId = demoHref!.split("/")[2];
  await page.goto(`/compare?runs=${demoId},${runId}`);
  await expect(page.getByRole("link", { name: /e2e guess-number \(succeeded, 2\/2\)/ })).toBeVisible();
  await expect(page.getByRole("figure", { name: "reward/mean" }).getByText("e2e guess-number")).toBeVisible();
  await expect(page.getByRole("cell", { name: "environment", exact: true })).toBeVisible();
  await page.screenshot({ path: "artifacts/screenshots/compare.png", fullPage: true });
});

test("a config file loads into the form as the CLI reads it, the budget line follows the values, and a bad file is named", async ({
  page,
}) => {
  await page.goto("/runs/new");
  await page.getByText("Load a config file").click();
  await page.getByLabel("or paste it").fill("grpo: [steps");
  await page.getByRole("button", { name: "Use this config" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "pasted config is not valid JSON or YAML" })).toBeVisible();

  const yaml = [
    "name: from a yaml file",
    "environment: guess-number",
    "grpo:",
    "  steps: 3",
    "  groupsPerStep: 2",
    "  groupSize: 4",
    "  minibatchSize: 8",
    "  sftWarmupSteps: 0",
    "rollout:",
    "  maxTurns: 4",
    "  maxNewTokens: 8",
    "evaluation:",
    "  testFreq: 0",
  ].join("\n");
  await page.getByLabel("Upload").setInputFiles({ name: "run.yaml", mimeType: "text/yaml", buffer: Buffer.from(yaml) });
  await expect(page.getByText("Loaded run.yaml")).toBeVisible();
  await expect(page.locator("#cfg-name")).toHaveValue("from a yaml file");
  await expect(page.getByLabel("Environment", { exact: true })).toHaveValue("guess-number");
  await expect(page.locator("#cfg-grpo-steps")).toHaveValue("3");
  const budget = page.getByTestId("budget");
  await expect(budget).toContainText("3 steps × 8 episodes (2 groups × 4) = 24 training episodes; at most 768 generated tokens");
  await expect(budget).toContainText("no evaluation; no SFT warm-up");
  await page.locator("#cfg-grpo-steps").fill("5");
  await expect(budget).toContainText("5 steps × 8 episodes (2 groups × 4) = 40 training episodes");
});

test("the form's own defaults pass its pre-flight check, for the first environment and τ² retail", async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto("/runs/new");
  const preflight = page.getByTestId("preflight");
  // Untouched: the simulated preset (its opening used to need 2,503 tokens of a 512-token context).
  await expect(page.getByLabel("Environment", { exact: true })).toHaveValue("simulated");
  await expect(preflight).toHaveAttribute("data-verdict", "ok", { timeout: 90_000 });
  // Beside the per-step estimate, the whole run's: steps × step time, naming what it leaves out.
  await expect(preflight).toContainText(/whole run \(rough\)~(\d+h )?(\d+m )?\d+s for 20 steps, plus 30 SFT warm-up steps/);
  await expect(page.getByRole("button", { name: "Launch run" })).toBeEnabled();
  await expect(page.getByLabel("Launch anyway")).toHaveCount(0);
  await page.getByLabel("Environment", { exact: true }).selectOption("tau2-retail");
  await expect(preflight).toHaveAttribute("data-verdict", "ok", { timeout: 90_000 });
  await expect(preflight).toContainText(/fits with \d+ tokens to spare/);
});

test("a refused field shows its reason beside it, including the environment", async ({ page }) => {
  await page.goto("/runs/new");
  await page.getByText("Load a config file").click();
  await page.getByLabel("or paste it").fill("environment: nope-env\ngrpo:\n  groupSize: 1\n  colour: blue\n");
  await page.getByRole("button", { name: "Use this config" }).click();
  // The unknown key stops the rules that need a well-formed config; its reason sits under the GRPO section.
  await expect(page.getByTestId("error-section-grpo")).toContainText('Unrecognized key: "colour"');
  await page.getByLabel("or paste it").fill("environment: nope-env\ngrpo:\n  groupSize: 1\n");
  await page.getByRole("button", { name: "Use this config" }).click();
  const envError = page.getByTestId("error-environment");
  await expect(envError).toContainText('Unknown environment "nope-env"; choose one of:');
  await expect(page.getByLabel("Environment", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await page.getByRole("button", { name: "Launch run" }).click();
  await expect(page.getByText(/Fix the highlighted fields: environment, grpo\.groupSize/)).toBeVisible();
  await expect(page.getByTestId("error-grpo.groupSize")).toContainText("at least 2");
});

test("choosing Slurm shows the job script the launcher will submit, and a bad Slurm field is refused beside it", async ({ page }) => {
  await page.goto("/runs/new");
  await expect(page.getByTestId("slurm-script")).toHaveCount(0);
  await page.getByText("Load a config file").click();
  const yaml = (partition: string) =>
    [
      "name: on the cluster",
      "environment: guess-number",
      "execution:",
      "  launcher: slurm",
      "  slurm:",
      `    partition: "${partition}"`,
      "    gpusPerNode: 8",
      "    time: '12:00:00'",
    ].join("\n");
  await page.getByLabel("or paste it").fill(yaml("gpu"));
  await page.getByRole("button", { name: "Use this config" }).click();
  await expect(page.locator("#cfg-execution-launcher")).toHaveValue("slurm");
  const script = page.getByTestId("slurm-script");
  await expect(script).toContainText("#SBATCH --partition=gpu");
  await expect(script).toContainText("#SBATCH --gpus-per-node=8");
  await expect(script).toContainText("#SBATCH --time=12:00:00");
  await expect(script).toContainText("trainer/slurm/job-main.ts");
  await page.getByLabel("or paste it").fill(yaml("gpu; rm -rf /"));
  await page.getByRole("button", { name: "Use this config" }).click();
  await expect(page.getByTestId("error-execution.slurm")).toContainText("partition must be a Slurm name");
  await expect(page.getByTestId("slurm-script")).toHaveCount(0);

  // Launched, it waits for a Slurm launcher, not a worker: the run page gives no "start a worker" advice, and shows the
  // job once the launcher has recorded it (here the row the launcher writes, as no cluster runs beside the e2e server).
  await page.getByLabel("or paste it").fill(yaml("debug"));
  await page.getByRole("button", { name: "Use this config" }).click();
  await page
    .getByLabel("Launch anyway")
    .check({ timeout: 20_000 })
    .catch(() => {});
  await page.getByRole("button", { name: "Launch run" }).click();
  await expect(page.getByTestId("run-name")).toHaveText("on the cluster");
  await expect(page.getByTestId("run-status")).toHaveText("queued");
  await expect(page.getByTestId("queue-standing")).toHaveCount(0);
  const runId = new URL(page.url()).pathname.split("/")[2];
  const db = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO "SlurmJob" ("runId", "jobId", "jobName", state, reason, script, "updatedAt") VALUES ($1, '4242', $2, 'PENDING', 'Resources', '#!/bin/bash', now())`,
      [runId, `rollout-lab-${runId}-1`],
    );
  } finally {
    await db.end();
  }
  await expect(page.getByTestId("slurm-job")).toHaveText("Slurm job 4242: PENDING (Resources)", { timeout: 20_000 });
  // Cancelled, so no other test finds it queued (the launcher would scancel its job).
  page.once("dialog", (d) => d.accept());
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("run-status")).toHaveText("cancelled");
  await page.goto("/runs");
  await expect(page.getByTestId("run-slurm-job").first()).toHaveText("Slurm job 4242: PENDING (Resources)");
});

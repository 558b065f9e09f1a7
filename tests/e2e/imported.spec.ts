import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { GUESS_RUN, IMPORTED_RUN, openRun } from "./fixtures";

test("a run imported from verl shows where it came from, its curve, its samples and its groups, and compares with a local run", async ({
  page,
}) => {
  const runId = await openRun(page, IMPORTED_RUN);
  await expect(page.getByText("Imported from verl")).toBeVisible();
  await expect(page.getByRole("button", { name: "Cancel" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Clone" })).toHaveCount(0);

  await page.goto(`/runs/${runId}/trajectories?sort=reward&dir=desc`);
  const rows = page.getByTestId("trajectory-row");
  await expect(rows).toHaveCount(8);
  await rows.first().getByRole("link").first().click();
  await expect(page.getByTestId("conversation")).toContainText("<|im_start|>user");
  await expect(page.getByTestId("conversation")).toContainText("####");

  await page.goto(`/runs/${runId}/groups`);
  await expect(page.getByTestId("group-row")).toHaveCount(4);
  await page
    .getByTestId("group-row")
    .filter({ hasNotText: /± 0\s*$/ })
    .first()
    .getByRole("link")
    .click();
  await expect(page.getByTestId("group-sample")).toHaveCount(2);

  const guessId = await openRun(page, GUESS_RUN);
  await page.goto(`/compare?runs=${runId},${guessId}`);
  await expect(page.getByTestId("overlay-chart").first().locator("path.recharts-curve").first()).toBeVisible();
});

test("the upload page imports a file another trainer wrote: a bad record is named by line, the rest lands", async ({ page }) => {
  // The fixture's first five records are well-formed (a run, two steps, two samples); the importer tests use the
  // rest to exercise bad records. Here one broken line follows the good ones.
  const good = readFileSync(path.join(process.cwd(), "tests/fixtures/import/rollout-lab.jsonl"), "utf8").split("\n").slice(0, 5);
  const trajectories = good.filter((l) => l.includes('"type": "trajectory"')).length;
  await page.goto("/runs");
  await page.getByRole("link", { name: "Import", exact: true }).click();
  await expect(page).toHaveURL(/\/runs\/import$/);
  await page.getByLabel("Format").selectOption("jsonl");
  await page.getByLabel("Files").setInputFiles({
    name: "run.jsonl",
    mimeType: "application/jsonl",
    buffer: Buffer.from(`${good.join("\n")}\n{"type": "trajectory", "step": oops}\n`),
  });
  await page.getByLabel("Run name").fill("e2e upload");
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByTestId("upload-done")).toContainText(`Imported ${trajectories} samples`);
  await expect(page.getByTestId("upload-done")).toContainText("1 record could not be read");
  await expect(page.getByTestId("upload-problems")).toContainText(`run.jsonl:${good.length + 1}: not valid JSON`);
  await page.getByRole("link", { name: "Open the run" }).click();
  await expect(page.getByTestId("run-name")).toHaveText(/e2e upload/);
  await page.getByRole("link", { name: "Trajectories" }).first().click();
  await expect(page.getByTestId("trajectory-row")).toHaveCount(trajectories);
});

test("the upload page reads a TRL output folder: its curves and the samples of its completions Parquet files", async ({ page }) => {
  await page.goto("/runs/import");
  await page.getByLabel("Format").selectOption("trl");
  // A directory input: Playwright uploads the folder as the browser would (webkitdirectory).
  await page.getByLabel("Files").setInputFiles(path.join(process.cwd(), "tests/fixtures/import/trl-output"));
  await page.getByLabel("Run name").fill("e2e trl upload");
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByTestId("upload-done")).toContainText("Imported 16 samples and 4 steps");
  await page.getByRole("link", { name: "Open the run" }).click();
  await expect(page.getByText("Imported from trl")).toBeVisible();
  await page.getByRole("link", { name: "Trajectories" }).first().click();
  await expect(page.getByTestId("trajectory-row")).toHaveCount(16);
});

test("the upload page recognises files imported before: it names that run, and imports them again only when asked", async ({ page }) => {
  const file = {
    name: "twice.jsonl",
    mimeType: "application/jsonl",
    buffer: Buffer.from(
      [
        JSON.stringify({ type: "run", name: "e2e twice", source: "other" }),
        JSON.stringify({ type: "trajectory", id: "t0", step: 0, reward: 1, conversation: [{ role: "user", content: "hi" }] }),
      ].join("\n"),
    ),
  };
  const upload = async () => {
    await page.goto("/runs/import");
    await page.getByLabel("Format").selectOption("jsonl");
    await page.getByLabel("Files").setInputFiles(file);
    await page.getByRole("button", { name: "Import", exact: true }).click();
  };
  await upload();
  await expect(page.getByTestId("upload-done")).toContainText("Imported 1 samples");
  const first = await page.getByRole("link", { name: "Open the run" }).getAttribute("href");

  await upload();
  await expect(page.getByTestId("upload-error")).toContainText("These files were already imported as run");
  await expect(page.getByRole("link", { name: "Open that run" })).toHaveAttribute("href", first!);
  await page.getByLabel("Import again as a new run").check();
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByTestId("upload-done")).toContainText("Imported 1 samples");
  expect(await page.getByRole("link", { name: "Open the run" }).getAttribute("href")).not.toBe(first);
});

import { expect, test } from "@playwright/test";
import { GUESS_RUN, SIMULATED_RUN, openRun } from "./fixtures";

test("the trajectory browser filters through the URL, and the inspector walks the same order with j/k", async ({ page }) => {
  const runId = await openRun(page, SIMULATED_RUN);
  await page.getByRole("link", { name: "Trajectories" }).click();
  const rows = page.getByTestId("trajectory-row");
  await expect(rows.first()).toBeVisible();

  // Status filter: the URL carries it and every remaining row has that status (the policy ran out of turns).
  await page.getByRole("checkbox", { name: "truncated" }).click();
  await expect(page.getByRole("checkbox", { name: "truncated" })).toBeChecked();
  await expect(page).toHaveURL(/status=truncated/);
  await expect(rows.first()).toContainText("truncated");
  const count = await rows.count();
  for (let i = 0; i < count; i++) await expect(rows.nth(i)).toContainText("truncated");

  // Text search with no match shows the empty state.
  await page.getByLabel("Search conversations").fill("no such phrase anywhere");
  await page.getByRole("button", { name: "Apply" }).click();
  // The empty state names the filters that emptied the list, and clears them.
  await expect(page.getByTestId("empty-result")).toContainText('No trajectories match status truncated, text "no such phrase anywhere".');
  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(rows.first()).toBeVisible();
  await expect(page).not.toHaveURL(/status=truncated/);

  // The verdict (judge reasoning) is searchable, and the run's end reasons are offered as a filter.
  await page.getByLabel("Search verdicts").fill("zzz no such verdict");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/verdict=zzz/);
  await expect(page.getByTestId("empty-result")).toContainText('verdict "zzz no such verdict"');
  await page.getByRole("button", { name: "Clear filters" }).click();
  // The URL update lands asynchronously; a filter picked before it would carry the old verdict along.
  await expect(page).not.toHaveURL(/verdict=/);
  const endReason = page.getByLabel("End reason");
  const reason = (await endReason.locator("option").nth(1).textContent())!;
  await endReason.selectOption(reason);
  await expect(page).toHaveURL(new RegExp(`end=${reason}`));
  await expect(rows.first()).toBeVisible();
  await page.getByRole("button", { name: "Clear", exact: true }).click();
  await expect(page).not.toHaveURL(/end=/);

  // j / k walk the rows, Enter opens the one under the cursor.
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  await expect(rows.nth(1)).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("k");
  await expect(rows.nth(0)).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}/trajectories/[^/?]+`));
  await expect(page.getByTestId("conversation")).toBeVisible();

  // Sorted by reward, open the first row; the inspector shows attributed turns, the judge's reasoning and the state.
  await page.goto(`/runs/${runId}/trajectories?sort=reward&dir=desc`);
  await rows.first().getByRole("link").first().click();
  await expect(page.getByTestId("conversation")).toBeVisible();
  await expect(page.getByTestId("source-badge").filter({ hasText: "simulated user" }).first()).toBeVisible();
  await expect(page.getByTestId("state-diff")).toBeVisible();
  // How the reward was computed: the offline judge's formula, its terms as rewards, the format share set apart.
  await expect(page.getByTestId("reward-formula")).toContainText("no forbidden call");
  await expect(page.getByTestId("reward-term").filter({ hasText: "calls" })).toBeVisible();
  await expect(page.getByTestId("reward-diagnostic").filter({ hasText: "format" })).toBeVisible();
  // The judge's own call sits under its reasoning, not in a list of other calls.
  await expect(page.getByTestId("judge-calls").getByTestId("llm-call").first()).toBeVisible();
  await expect(page.getByText("1 / ")).toBeVisible();
  await page.screenshot({ path: "artifacts/screenshots/trajectory-inspector.png", fullPage: true });
  const first = page.url();
  await page.keyboard.press("j");
  await expect(page).not.toHaveURL(first);
  await expect(page.getByText("2 / ")).toBeVisible();
  await expect(page).toHaveURL(/sort=reward(?!&dir=asc)/); // descending, the default, is left out of the URL
  await page.keyboard.press("k");
  await expect(page).toHaveURL(first);

  // Export downloads a Simia-RL record.
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export (Simia-RL JSON)" }).click();
  expect((await download).suggestedFilename()).toMatch(/\.simia\.json$/);
});

test("the policy's view shows the tokens it was trained on, coloured by a per-token metric", async ({ page }) => {
  // A run that learns (its groups' rewards differ): the most reinforced sample was in the update's passes (a
  // zero-advantage one may be left out of them and have no ratios).
  const runId = await openRun(page, GUESS_RUN);
  await page.goto(`/runs/${runId}/trajectories?sort=advantage&dir=desc`);
  await page.getByTestId("trajectory-row").first().getByRole("link").first().click();
  await page.getByText("Policy's view").click();
  // (a byte that only starts a character has no text of its own: pick tokens that show some)
  const tokens = page.getByTestId("policy-token").filter({ hasText: /\S/ });
  await expect(tokens.first()).toBeVisible();
  await expect(page.getByTestId("policy-view-summary")).toContainText(/\d+ tokens, \d+ sampled · perplexity/);
  // The chat template the policy saw is there as context, and its replies are whole turns.
  await expect(page.getByTestId("context-token").filter({ hasText: "<|im_start|>" }).first()).toBeVisible();
  expect(await page.getByTestId("policy-reply").count()).toBeGreaterThan(0);
  // Trained with: the advantage colours the tokens by default; the sampler's log-prob is one choice away.
  const metric = page.getByLabel("Token metric");
  await expect(metric).toHaveValue("advantage");
  await metric.selectOption("logprob");
  await tokens.first().hover();
  await expect(page.getByTestId("token-values")).toContainText(/log p -?[\d.]+ \(p [\d.]+\) · A -?[\d.]+ · ratio [\d.]+/);
  expect(await tokens.first().evaluate((el) => getComputedStyle(el).backgroundColor)).toMatch(/^rgba\(220, 38, 38/);
  await page.screenshot({ path: "artifacts/screenshots/policy-view.png", fullPage: true });
});

test("a group shows its samples side by side, and compare shows curves and the config table", async ({ page }) => {
  const runId = await openRun(page, GUESS_RUN);
  await page.goto(`/runs/${runId}/groups`);
  // The groups GRPO learned nothing from, and the most spread-out first.
  await page.getByLabel("Reward spread").selectOption("zero");
  // (an early guessing-game policy leaves many groups all unsolved: std 0). The previous page stays on screen until
  // the filtered one arrives, so poll.
  await expect(async () => {
    const stds = await page.locator("[data-std]").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-std"))));
    expect(stds.length).toBeGreaterThan(0);
    expect(stds.every((x) => x === 0)).toBe(true);
  }).toPass();
  await page.getByLabel("Reward spread").selectOption("all");
  await page.getByLabel("Sort groups").selectOption("std_desc");
  await expect(async () => {
    const stds = (await page.locator("[data-std]").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-std"))))).slice(0, 10);
    expect(stds.length).toBeGreaterThan(1);
    expect(stds).toEqual([...stds].sort((a, b) => b - a));
    expect(stds[0]).toBeGreaterThan(0);
  }).toPass();
  await page.getByLabel("Sort groups").selectOption("step");
  // A group whose rewards vary (std not 0), so its samples diverge somewhere.
  await page
    .getByTestId("group-row")
    .filter({ hasNotText: /± 0\s*$/ })
    .first()
    .getByRole("link")
    .click();
  await expect(page.getByTestId("group-sample")).toHaveCount(8);
  // All eight fit a 1440 px screen, each with its reward components.
  await page.setViewportSize({ width: 1440, height: 900 });
  const rights = await page.getByTestId("group-sample").evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
  expect(Math.max(...rights)).toBeLessThanOrEqual(1440);
  await expect(page.getByTestId("sample-components").first()).toBeVisible();
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(page.getByText("diverges here").first()).toBeVisible();
  await expect(page.locator('[data-shared="unique"]').first()).toBeVisible();
  await page.screenshot({ path: "artifacts/screenshots/group-view.png", fullPage: true });

  // The task's history: a reward curve over steps and its trajectories.
  await page.goto(`/runs/${runId}/tasks/guess-1`);
  await expect(page.getByTestId("task-reward-chart").locator("path.recharts-curve").first()).toBeVisible();
  await expect(page.getByTestId("trajectory-row").first()).toBeVisible();

  // A narrow window: the browser's table scrolls inside its box instead of widening the page.
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(`/runs/${runId}/trajectories?sort=reward`);
  await expect(page.getByTestId("trajectory-row").first()).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: "artifacts/screenshots/trajectory-browser-narrow.png", fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.goto(`/compare?runs=${runId}`);
  await expect(page.getByTestId("overlay-chart").first().locator("path.recharts-curve").first()).toBeVisible();
  await expect(page.getByText("Select at least two runs")).toBeVisible();
});

test("the trajectory list opens at the latest step, with an end-reason column and a text preview of each episode", async ({ page }) => {
  const runId = await openRun(page, GUESS_RUN); // steps 0 … 11
  await page.goto(`/runs/${runId}/trajectories`);
  const rows = page.getByTestId("trajectory-row");
  await expect(rows.first()).toBeVisible();
  await expect(rows.first().getByRole("link").first()).toHaveText("11");
  await expect(page.getByLabel("Direction")).toHaveValue("desc");
  await expect(page.locator("thead th", { hasText: /^Ended$/ })).toHaveCount(1);
  await expect(rows.first().getByTestId("end-reason")).toHaveText(/^[a-z_]+$/);
  await expect(rows.first().getByTestId("preview")).not.toBeEmpty();
});

test("a tool output taller than its box says how many lines are below the edge, until scrolled to the end", async ({ page }) => {
  const flights = Array.from({ length: 40 }, (_, i) => ({ flight: `HAT${100 + i}`, seats: i % 5, price: 120 + i }));
  // Unique per attempt: the upload page would otherwise offer to skip a file it has already imported (a retry).
  const attempt = `${Date.now()}`;
  const lines = [
    { type: "run", name: `e2e long tool output ${attempt}`, source: "jsonl" },
    {
      type: "trajectory",
      id: `long-tool-${attempt}`,
      step: 0,
      group: "g0",
      conversation: [
        { role: "user", content: "Find me a flight." },
        { role: "tool", content: JSON.stringify({ flights }) },
        { role: "assistant", content: "HAT104 has seats." },
      ],
      reward: 1,
    },
  ];
  await page.goto("/runs/import");
  await page.getByLabel("Format").selectOption("jsonl");
  await page.getByLabel("Files").setInputFiles({
    name: "long.jsonl",
    mimeType: "application/jsonl",
    buffer: Buffer.from(lines.map((l) => JSON.stringify(l)).join("\n") + "\n"),
  });
  await page.getByLabel("Run name").fill(`e2e long tool output ${attempt}`);
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await page.getByRole("link", { name: "Open the run" }).click();
  await page.getByRole("link", { name: "Trajectories" }).first().click();
  await page.getByTestId("trajectory-row").first().getByRole("link").first().click();
  const cue = page.getByTestId("clip-cue");
  await expect(cue).toHaveText(/^↓ \d+ more lines: scroll inside the box \(\d+ lines in all\)$/);
  const box = page.getByTestId("message").filter({ hasText: "HAT100" }).locator("pre").first();
  await box.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
  await expect(cue).toHaveCount(0);
});

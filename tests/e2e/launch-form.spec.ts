import { expect, test } from "@playwright/test";
import { DEMO_RUN } from "./fixtures";

test("the launch form leads with the run, policy, GRPO and rollout in words (keys on hover); the rest is folded under Advanced", async ({
  page,
}) => {
  await page.goto("/runs/new");
  const legends = page.locator("form fieldset:not([data-testid=advanced-settings] fieldset) > legend");
  await expect(legends.first()).toBeVisible();
  // "Policy" is where the policy comes from (a model, an endpoint, a checkpoint); "Policy model" its settings.
  expect(await legends.allTextContents()).toEqual(["Policy", "Run", "Policy model", "GRPO", "Rollout"]);
  const rate = page.locator("label[for=cfg-grpo-learningRate]");
  await expect(rate).toHaveText("Learning rate");
  await expect(rate).toHaveAttribute("title", "grpo.learningRate");
  await expect(page.locator("label[for=cfg-grpo-sftWarmupSteps]")).toHaveText("SFT warm-up steps");
  const advanced = page.getByTestId("advanced-settings");
  await expect(advanced.locator("summary")).toHaveText(/^Advanced: Dataset, LLM endpoints, Judge, Checkpoints, Evaluation/);
  await expect(page.locator("#cfg-checkpoint-saveFreq")).toBeHidden();
  const folded = (await page.locator("form").boundingBox())!.height;
  await advanced.locator("summary").click();
  await expect(page.locator("#cfg-checkpoint-saveFreq")).toBeVisible();
  const open = (await page.locator("form").boundingBox())!.height;
  expect(folded).toBeLessThan(open * 0.75);
});

test("a refused advanced field opens Advanced to show its reason", async ({ page }) => {
  await page.goto("/runs/new");
  await page.getByTestId("advanced-settings").locator("summary").click();
  await page.locator("#cfg-checkpoint-keepLast").fill("0");
  await page.getByTestId("advanced-settings").locator("summary").click();
  await expect(page.locator("#cfg-checkpoint-keepLast")).toBeHidden();
  await page.getByRole("button", { name: "Launch run" }).click();
  await expect(page.getByTestId("error-checkpoint.keepLast")).toBeVisible();
});

test("keyboard: the first Tab is a skip link past the nav, and the demo run is a few Tabs after it", async ({ page }) => {
  await page.goto("/runs");
  await expect(page.getByTestId("run-row").first()).toBeVisible();
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeVisible();
  await page.keyboard.press("Enter");
  // On the runs page it lands on the runs table: each row is its checkbox, then its link.
  await expect(page.locator("main [data-skip-target]")).toBeFocused();
  const names = await page.getByTestId("run-row").allTextContents();
  const row = names.findIndex((n) => n.includes(DEMO_RUN));
  const demo = page.getByTestId("run-row").nth(row).getByRole("link").first();
  let presses = 0;
  while (presses < 20 && !(await demo.evaluate((el) => el === document.activeElement))) {
    await page.keyboard.press("Tab");
    presses++;
  }
  await expect(demo).toBeFocused();
  expect(presses).toBe(2 * row + 2); // on a fresh install the demo is the only run: 2 Tabs
});

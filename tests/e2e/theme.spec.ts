import { expect, test } from "@playwright/test";
import { GUESS_RUN, openRun } from "./fixtures";

/** Relative luminance of a computed CSS colour (rgb or oklch as Chromium reports it), 0 dark … 1 light. */
async function lightness(page: import("@playwright/test").Page, selector: string, property: "backgroundColor" | "stroke"): Promise<number> {
  return page
    .locator(selector)
    .first()
    .evaluate((el, prop) => {
      // Paint the colour on a canvas and read it back: the browser converts any colour syntax to sRGB.
      const colour = getComputedStyle(el)[prop];
      const ctx = document.createElement("canvas").getContext("2d")!;
      ctx.fillStyle = colour;
      ctx.fillRect(0, 0, 1, 1);
      const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
      return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    }, property);
}

test("dark mode: the toggle cycles system → light → dark, the choice survives a reload, and the charts follow", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await openRun(page, GUESS_RUN);
  const toggle = page.getByRole("button", { name: /^Theme:/ });
  // With no choice the system's preference (dark here) applies.
  await expect(toggle).toHaveText("Theme: system");
  await expect(page.locator("html")).toHaveClass(/dark/);
  await toggle.click();
  await expect(toggle).toHaveText("Theme: light");
  await expect(page.locator("html")).not.toHaveClass(/dark/);
  expect(await lightness(page, "body", "backgroundColor")).toBeGreaterThan(0.9);
  await toggle.click();
  await expect(toggle).toHaveText("Theme: dark");
  await page.emulateMedia({ colorScheme: "light" });
  await page.reload();
  // Set before the first paint by the boot script, whatever the system prefers.
  await expect(page.locator("html")).toHaveClass(/dark/);
  expect(await lightness(page, "body", "backgroundColor")).toBeLessThan(0.15);
  expect(await lightness(page, "[data-testid=metric-chart]", "backgroundColor")).toBeLessThan(0.25);
  await expect(page.locator("[data-testid=metric-chart] .recharts-cartesian-grid line").first()).toBeAttached();
  expect(await lightness(page, "[data-testid=metric-chart] .recharts-cartesian-grid line", "stroke")).toBeLessThan(0.35);
  await page.screenshot({ path: "artifacts/screenshots/run-page-dark.png" });
  await toggle.click();
  await expect(toggle).toHaveText("Theme: system");
  await expect(page.locator("html")).not.toHaveClass(/dark/);
});

/** WCAG contrast of an element's text colour against the background of another (sRGB via a canvas). */
async function contrast(page: import("@playwright/test").Page, textSelector: string, boxSelector: string): Promise<number> {
  return page.evaluate(
    ([textSel, boxSel]) => {
      const rgb = (colour: string) => {
        const ctx = document.createElement("canvas").getContext("2d")!;
        ctx.fillStyle = colour;
        ctx.fillRect(0, 0, 1, 1);
        return [...ctx.getImageData(0, 0, 1, 1).data.slice(0, 3)];
      };
      const luminance = ([r, g, b]: number[]) => {
        const lin = (c: number) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
        return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
      };
      const text = luminance(rgb(getComputedStyle(document.querySelector(textSel)!).color));
      const box = luminance(rgb(getComputedStyle(document.querySelector(boxSel)!).backgroundColor));
      return (Math.max(text, box) + 0.05) / (Math.min(text, box) + 0.05);
    },
    [textSelector, boxSelector],
  );
}

test("dark mode: a chart's tooltip is a dark box whose step label reads at 4.5:1 or more", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await openRun(page, GUESS_RUN);
  await expect(page.locator("html")).toHaveClass(/dark/);
  const figure = "[data-testid=metric-chart][data-key='reward/mean']";
  const chart = page.locator(`${figure} .recharts-surface`).first();
  await chart.scrollIntoViewIfNeeded();
  const box = (await chart.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5);
  const label = page.locator(`${figure} .recharts-tooltip-label`);
  await expect(label).toBeVisible();
  await expect(label).toHaveText(/step \d+/);
  expect(await lightness(page, `${figure} .recharts-default-tooltip`, "backgroundColor")).toBeLessThan(0.3);
  expect(await contrast(page, `${figure} .recharts-tooltip-label`, `${figure} .recharts-default-tooltip`)).toBeGreaterThanOrEqual(4.5);
});

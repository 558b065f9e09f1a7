/**
 * A run's notes in the browser: written on the run page with the keyboard alone, shown as plain text (markup in a
 * note is text, never HTML), previewed in the runs table with the whole note on hover, and found by the runs search.
 */
import { existsSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { GUESS_RUN, openRun } from "./fixtures";
import { axePath, seriousViolations } from "./axe";

test("notes written on the run page show as plain text, preview in the runs table, and the runs search finds the run by them", async ({
  page,
}) => {
  const word = `plateau${Date.now() % 100_000}`;
  const markup = "<img src=x onerror=\"document.title='injected'\">";
  const firstLine = `Reward reaches a ${word} around step 3, then holds steady while KL keeps rising slowly ${markup}`;
  const note = `${firstLine}\nSecond line: try a smaller learning rate.`;
  const id = await openRun(page, GUESS_RUN);
  const section = page.getByTestId("run-notes");

  // Keyboard only: focus the button, Enter opens the editor with the caret in it, Ctrl+Enter saves.
  await section.getByRole("button", { name: /Add notes|Edit notes/ }).focus();
  await page.keyboard.press("Enter");
  const box = page.getByRole("textbox", { name: "Run notes" });
  await expect(box).toBeFocused();
  await box.fill(note);
  await expect(section).toContainText(`${note.length} / 10,000 characters`);

  // A refused save says why and keeps the text.
  await box.fill(`${note}\nkey sk-${"x1".repeat(12)}`);
  await page.keyboard.press("Control+Enter");
  await expect(section.getByRole("alert")).toContainText(/Not saved: .*API key/);
  await expect(box).toBeVisible();
  await box.fill(note);
  await page.keyboard.press("Control+Enter");

  await expect(section.getByRole("status")).toHaveText("Notes saved");
  await expect(section.getByRole("button", { name: "Edit notes" })).toBeFocused();
  const shown = page.getByTestId("run-notes-text");
  await expect(shown).toHaveText(note, { useInnerText: true }); // line break kept
  await expect(shown).toContainText(markup); // the markup is text...
  await expect(shown.locator("img")).toHaveCount(0); // ...never an element
  expect(await page.title()).not.toBe("injected");
  // axe on the shown note and the editor, in both themes (the a11y tour's run page has no note to check).
  if (axePath && existsSync(axePath)) {
    expect(await seriousViolations(page)).toEqual([]);
    await section.getByRole("button", { name: "Edit notes" }).click();
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "dark" });
    await expect(page.locator("html")).toHaveClass(/dark/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press("Escape");
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "light" });
  }

  // Escape leaves the editor without saving.
  await section.getByRole("button", { name: "Edit notes" }).click();
  await box.fill("discarded");
  await page.keyboard.press("Escape");
  await expect(shown).toHaveText(note, { useInnerText: true });
  await page.reload();
  await expect(page.getByTestId("run-notes-text")).toContainText("Second line: try a smaller learning rate.");

  // The runs table: the first line, cut with a cue, the whole note on hover.
  await page.goto("/runs");
  const row = page.getByTestId("run-row").filter({ has: page.locator(`a[href="/runs/${id}"]`) });
  const preview = row.getByTestId("run-notes-preview");
  await expect(preview).toContainText(`Reward reaches a ${word}`);
  await expect(preview).toContainText("…");
  await expect(preview).not.toContainText("Second line");
  await expect(preview).toHaveAttribute("title", note);
  await expect(row.locator("img")).toHaveCount(0);
  if (axePath && existsSync(axePath)) expect(await seriousViolations(page)).toEqual([]);

  // The search box finds the run by a word that is only in its notes (any case).
  await page.getByRole("textbox", { name: "Search runs" }).fill(word.toUpperCase());
  await expect(page.getByTestId("run-row")).toHaveCount(1);
  await expect(page.getByTestId("run-row").first()).toContainText(GUESS_RUN);
  await expect(page).toHaveURL(new RegExp(`search=${word.toUpperCase()}`));
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { isDark, nextTheme, parseTheme } from "./theme";

test("the theme follows the system unless chosen, and the toggle cycles through all three", () => {
  assert.equal(parseTheme(null), "system");
  assert.equal(parseTheme("purple"), "system");
  assert.equal(parseTheme("dark"), "dark");
  assert.equal(isDark("system", true), true);
  assert.equal(isDark("light", true), false);
  assert.equal(isDark("dark", false), true);
  assert.deepEqual([nextTheme("system"), nextTheme("light"), nextTheme("dark")], ["light", "dark", "system"]);
});

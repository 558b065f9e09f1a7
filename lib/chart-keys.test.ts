import { test } from "node:test";
import assert from "node:assert/strict";
import { chartKeysShown, chartViewFromParams } from "./chart-keys";

const KEYS = ["time/update_s", "reward/std", "reward/mean", "kl", "loss/policy", "custom/x"];

test("pins lead, folded namespaces are left out, the filter narrows: the order the page draws and the server prefetches", () => {
  const view = chartViewFromParams((name) => ({ pin: "time/update_s", hide: "loss", filter: "" })[name] ?? null);
  assert.deepEqual(view, { filter: "", hidden: ["loss"], pinned: ["time/update_s"] });
  assert.deepEqual(chartKeysShown(KEYS, view).shown, ["time/update_s", "reward/mean", "reward/std", "kl", "custom/x"]);
  assert.deepEqual(chartKeysShown(KEYS, { filter: "reward/", hidden: [], pinned: [] }).shown, ["reward/mean", "reward/std"]);
  assert.deepEqual(
    chartKeysShown(KEYS, { filter: "", hidden: [], pinned: ["gone/key"] }).shown.length,
    KEYS.length,
    "a pin of a missing key draws nothing",
  );
});

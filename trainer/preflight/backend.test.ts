/**
 * A worker answers a pre-flight check on its training backend even before its first run: checks used to run on
 * TF.js's default pure-JS cpu backend until a run had started (~200× slower; a 2,500-token opening took minutes and
 * the launch form gave up). This file runs in its own process, as a fresh worker does.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { presetConfig } from "../../lib/environments";
import { parseRunConfig } from "../../lib/run-config";
import { computePreflight } from "./compute";

test("a fresh worker's first check runs on the backend it trains with", async () => {
  const result = await computePreflight(parseRunConfig(presetConfig("guess-number")), []);
  assert.equal(result.backend, tf.getBackend());
  const forced = process.env.ROLLOUT_LAB_BACKEND?.trim();
  if (forced) assert.equal(result.backend, forced);
  else assert.notEqual(result.backend, "cpu", "the default order starts wasm (the slowest path is only a fallback)");
});

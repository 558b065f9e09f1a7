import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { parseRunConfig } from "../lib/run-config";
import { readConfigFile } from "./config-file";

test("the README's example run.yaml is a valid RunConfig", async () => {
  const config = parseRunConfig(await readConfigFile(path.join(import.meta.dirname, "../examples/run.yaml")));
  assert.equal(config.environment, "guess-number");
  assert.equal(config.grpo.sftWarmupSteps, 20);
});

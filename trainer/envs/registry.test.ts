import { test } from "node:test";
import assert from "node:assert/strict";
import { ENVIRONMENT_NAMES } from "../../lib/environments";
import { getEnvironment, listEnvironments, UnknownEnvironmentError } from "./registry";

test("the trainer registers exactly the environments the launch form offers", () => {
  assert.deepEqual(listEnvironments(), [...ENVIRONMENT_NAMES].sort());
});

test("every registered environment builds with its defaults and ships tasks", () => {
  for (const name of listEnvironments()) {
    const env = getEnvironment(name);
    assert.ok(env.builtinTasks().length > 0, `${name} ships built-in tasks`);
  }
});

test("an unknown environment name lists the valid ones", () => {
  assert.throws(
    () => getEnvironment("nope"),
    (err: Error) => err instanceof UnknownEnvironmentError && /Valid names: .*simulated/.test(err.message),
  );
});

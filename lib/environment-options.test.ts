import { test } from "node:test";
import assert from "node:assert/strict";
import { ENVIRONMENT_NAMES } from "./environments";
import { ENVIRONMENT_OPTION_SCHEMAS, environmentOptionsIssues } from "./environment-options";

test("every environment of the catalog has an options schema, and every schema an environment", () => {
  assert.deepEqual(Object.keys(ENVIRONMENT_OPTION_SCHEMAS).sort(), [...ENVIRONMENT_NAMES].sort());
  for (const name of ENVIRONMENT_NAMES) assert.deepEqual(environmentOptionsIssues(name, {}, ["environmentOptions"]), [], name);
});

test("unknown options are named, a few of them, with how many more; bad values keep their field path", () => {
  const many = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]));
  const [issue, ...rest] = environmentOptionsIssues("guess-number", { max: 4, ...many }, ["config", "environmentOptions"]);
  assert.equal(rest.length, 0);
  assert.equal(issue.path, "config.environmentOptions");
  assert.match(issue.message, /^unknown options "k0", "k1", .*"k9" and 49,?990 more for environment "guess-number"$/);
  assert.deepEqual(
    environmentOptionsIssues("simulated", { judge: { treshold: 0.5 }, maxSimSteps: 0 }, ["environmentOptions"]).map((i) => i.path),
    ["environmentOptions.maxSimSteps", "environmentOptions.judge"],
  );
  assert.deepEqual(environmentOptionsIssues("no-such-env", { x: 1 }, []), [], "an unknown environment is the config's own error");
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_STATE, describeFilters, parseBrowserQuery, toBrowserQuery, toListInput } from "./browser-query";

test("a shared URL restores the same filters, order and page", () => {
  const url = "stepMin=10&stepMax=20&rewardMin=-0.5&status=unscored,error&task=airline-rebook-001&q=refund&sort=reward&dir=asc&page=3";
  const state = parseBrowserQuery(new URLSearchParams(url));
  assert.deepEqual(state, {
    stepMin: 10,
    stepMax: 20,
    rewardMin: -0.5,
    rewardMax: undefined,
    status: ["unscored", "error"],
    taskId: "airline-rebook-001",
    text: "refund",
    endReason: undefined,
    verdict: undefined,
    component: undefined,
    componentMin: undefined,
    sort: "reward",
    dir: "asc",
    page: 3,
  });
  assert.equal(toBrowserQuery(state), url);
  assert.equal(toBrowserQuery(state, { includePage: false }).includes("page="), false);
});

test("defaults make an empty query, and hand-edited junk falls back to defaults", () => {
  assert.equal(toBrowserQuery(DEFAULT_STATE), "");
  assert.deepEqual([DEFAULT_STATE.sort, DEFAULT_STATE.dir], ["step", "desc"], "the latest step first, as on the task and group pages");
  assert.equal(toBrowserQuery({ ...DEFAULT_STATE, dir: "asc" }), "dir=asc");
  const s = parseBrowserQuery(new URLSearchParams("stepMin=abc&status=bogus,ok&sort=evil;drop&dir=sideways&page=-4"));
  assert.deepEqual(s, {
    ...DEFAULT_STATE,
    stepMin: undefined,
    stepMax: undefined,
    rewardMin: undefined,
    rewardMax: undefined,
    taskId: undefined,
    text: undefined,
    endReason: undefined,
    verdict: undefined,
    component: undefined,
    componentMin: undefined,
    status: ["ok"],
  });
});

test("a reward bound of 0 is kept (0 is a real bound, not 'no filter')", () => {
  const s = parseBrowserQuery(new URLSearchParams("rewardMax=0"));
  assert.equal(s.rewardMax, 0);
  assert.equal(toBrowserQuery(s), "rewardMax=0");
});

test("page numbers become server offsets", () => {
  const input = toListInput("run1", { ...DEFAULT_STATE, page: 3 }, 50);
  assert.equal(input.offset, 100);
  assert.equal(input.limit, 50);
  assert.equal(input.status, undefined);
});

test("an empty result names the filters that emptied it", () => {
  const s = parseBrowserQuery(new URLSearchParams("stepMin=3&stepMax=5&status=truncated,error&q=refund"));
  assert.deepEqual(describeFilters(s), ["steps 3–5", "status truncated or error", 'text "refund"']);
  assert.deepEqual(describeFilters(parseBrowserQuery(new URLSearchParams("stepMin=7&stepMax=7"))), ["step 7"]);
  assert.deepEqual(describeFilters(DEFAULT_STATE), []);
});

test("end reason, verdict text and a reward component bound survive the URL and reach the server's filter", () => {
  const url = "end=max_turns&verdict=wrong+date&comp=goal&compMin=0.5";
  const state = parseBrowserQuery(new URLSearchParams(url));
  assert.equal(toBrowserQuery(state), url);
  const input = toListInput("r1", state);
  assert.equal(input.endReason, "max_turns");
  assert.equal(input.verdict, "wrong date");
  assert.equal(input.component, "goal");
  assert.equal(input.componentMin, 0.5);
  assert.deepEqual(describeFilters(state), ["end reason max_turns", 'verdict "wrong date"', "goal ≥ 0.5"]);
  // A bound without a component means nothing: it is not sent.
  assert.equal(toListInput("r1", parseBrowserQuery(new URLSearchParams("compMin=1"))).componentMin, undefined);
});

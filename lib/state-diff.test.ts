import { test } from "node:test";
import assert from "node:assert/strict";
import { compareStates, diffManyJson, diffStates, flattenJson, summarizeStateDiff } from "./state-diff";

test("nested objects and arrays flatten to readable key paths", () => {
  const flat = flattenJson({ reservation: { pnr: "QX7", legs: [{ day: "Fri" }, { day: "Sat" }] }, "odd key": 1, empty: {} });
  assert.deepEqual(
    [...flat.entries()],
    [
      ["reservation.pnr", "QX7"],
      ["reservation.legs[0].day", "Fri"],
      ["reservation.legs[1].day", "Sat"],
      ['["odd key"]', 1],
      ["empty", {}],
    ],
  );
});

test("a wrong final state lists the changed, missing and unexpected fields, not the equal ones", () => {
  const expected = { reservation: { pnr: "QX7", day: "Friday", bags: 1 } };
  const actual = { reservation: { pnr: "QX7", day: "unchanged", refund: 20 } };
  assert.deepEqual(diffStates(expected, actual), [
    { path: "reservation.day", kind: "changed", expected: "Friday", actual: "unchanged" },
    { path: "reservation.bags", kind: "missing", expected: 1 },
    { path: "reservation.refund", kind: "unexpected", actual: 20 },
  ]);
  const s = summarizeStateDiff(expected, actual);
  assert.equal(s.matches, false);
  assert.deepEqual([s.equal, s.changed, s.missing, s.unexpected], [1, 1, 1, 1]);
});

test("a state that matches reports a match even when keys are in another order", () => {
  const s = summarizeStateDiff({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 });
  assert.equal(s.matches, true);
  assert.deepEqual(diffStates({ a: 1 }, { a: 1 }), []);
  assert.equal(diffStates({ a: 1 }, { a: 1 }, { includeEqual: true })[0].kind, "equal");
});

test("null states: a missing final state shows every expected field as missing", () => {
  assert.deepEqual(diffStates({ a: 1 }, null), [{ path: "a", kind: "missing", expected: 1 }]);
  assert.deepEqual(diffStates(null, null), []);
});

test("config difference across three runs lists only the paths that differ, absent counting as different", () => {
  const a = { grpo: { lr: 1e-5, groupSize: 8 }, seed: 1 };
  const b = { grpo: { lr: 3e-5, groupSize: 8 }, seed: 1 };
  const c = { grpo: { lr: 1e-5, groupSize: 8, kl: 0.1 }, seed: 1 };
  const { differing, sameCount } = diffManyJson([a, b, c]);
  assert.deepEqual(differing, [
    { path: "grpo.lr", values: [1e-5, 3e-5, 1e-5] },
    { path: "grpo.kl", values: [undefined, undefined, 0.1] },
  ]);
  assert.equal(sameCount, 2);
});

test("for configs, an empty list or object counts as absent: no `tags [] vs absent` rows", () => {
  const launched = { tags: [], environmentOptions: {}, grpo: { lr: 1e-5 } };
  const imported = { grpo: { lr: 1e-5 } };
  assert.deepEqual(diffManyJson([launched, imported], { emptyIsAbsent: true }).differing, []);
  assert.deepEqual(diffManyJson([{ tags: ["a"] }, {}], { emptyIsAbsent: true }).differing, [{ path: "tags[0]", values: ["a", undefined] }]);
  // Without the option (the state diff's use), `{}` against a missing key stays visible.
  assert.equal(diffManyJson([launched, imported]).differing.length, 2);
});

test("final vs expected compares only the keys both states declare; bookkeeping is never missing or unexpected", () => {
  // A solved guess-number episode: the answer is compared, turns and solved are the episode's bookkeeping.
  const solved = compareStates({ answer: 3 }, { answer: 3, turns: 2, solved: true });
  assert.equal(solved.kind, "compared");
  if (solved.kind !== "compared") return;
  assert.equal(solved.summary.matches, true);
  assert.deepEqual(solved.keys, ["answer"]);
  assert.deepEqual(solved.finalOnly, { turns: 2, solved: true });

  // simulated: calls are compared; facts to communicate and forbidden calls have no final counterpart.
  const sim = compareStates(
    { calls: [{ name: "book", arguments: { day: "Fri" } }], facts: ["booked"], forbiddenCalls: ["cancel"] },
    { calls: [{ name: "book", arguments: { day: "Mon" } }], formatErrors: 0 },
  );
  assert.equal(sim.kind, "compared");
  if (sim.kind !== "compared") return;
  assert.deepEqual(
    sim.entries.filter((e) => e.kind !== "equal").map((e) => [e.path, e.kind]),
    [["calls[0].arguments.day", "changed"]],
  );
  assert.deepEqual(Object.keys(sim.expectedOnly), ["facts", "forbiddenCalls"]);

  // States of episodes recorded before environments declared comparable keys: nothing in common, nothing red.
  assert.equal(compareStates({ secret: 3 }, { turns: 2, solved: true }).kind, "unrelated");
  assert.deepEqual(compareStates({ entity: "cat" }, null), { kind: "no-final", expected: { entity: "cat" } });
  assert.deepEqual(compareStates(null, { calls: [] }), { kind: "no-expected", actual: { calls: [] } });
  assert.deepEqual(compareStates(undefined, null), { kind: "none" });
  // Lists (sgd's calls against its goals) are compared whole.
  const lists = compareStates([{ name: "a" }], [{ name: "a" }, { name: "b" }]);
  assert.ok(lists.kind === "compared" && lists.keys === null && lists.summary.unexpected === 1);
});

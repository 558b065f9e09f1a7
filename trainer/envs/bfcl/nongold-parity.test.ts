/**
 * BFCL's API classes off the gold path. tests/fixtures/parity/bfcl-nongold.json holds random trajectories
 * (scripts/parity/bfcl_trajectories.py: ground truth with changed, dropped, added and mistyped arguments, extra calls)
 * executed by gorilla's executor on gorilla's classes, and envtuning-apis.json the same trajectories executed by
 * AWorld EnvTuning's executor on its fork of them (scripts/parity/bfcl_nongold_parity.py): every result, and each
 * class's state after the last turn. Here they run on the ported classes, gorilla's under the "bfcl" protocol and
 * EnvTuning's fork under "envtuning", and must agree (byte for byte, or differing only in 35 vs 35.0).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parsePythonCalls } from "./call-syntax";
import { runtimeForEntry, type RuntimeOptions } from "./runtime";
import type { BfclTaskData } from "./bfcl-format";
import { REPO, loadBfclParityTasks, sameButIntFloats, sameText, shownText, type FixtureText } from "./testing/parity-fixtures";

interface Run {
  results: FixtureText[][];
  states: Record<string, string>;
}
interface Trajectory {
  id: string;
  /** Also passes values of the wrong type (None, a list, a dict, a number as a string). */
  mistyped?: boolean;
  calls: string[][];
  gorilla: Run;
  /** Only what differs from gorilla's: results keyed "turn.call", states by class. */
  envtuning: { results: Record<string, FixtureText>; states: Record<string, string> };
}

const fixture = JSON.parse(readFileSync(path.join(REPO, "tests/fixtures/parity/bfcl-nongold.json"), "utf8")) as {
  trajectories: Trajectory[];
};

/** What one system's executor gave on trajectory `t`. */
function expected(t: Trajectory, system: "gorilla" | "envtuning"): Run {
  if (system === "gorilla") return t.gorilla;
  return {
    results: t.gorilla.results.map((turn, i) => turn.map((r, j) => t.envtuning.results[`${i}.${j}`] ?? r)),
    states: { ...t.gorilla.states, ...t.envtuning.states },
  };
}

/**
 * Differences kept on purpose (docs/environments/bfcl.md), by kind: mpmath's complex logarithm of a negative number,
 * the last digit of a power with a fractional exponent (C's pow is correctly rounded, JavaScript's may be an ulp off),
 * and the order Python prints a set in (its string hashes are salted per process).
 */
function keptDifference(call: string, want: FixtureText, got: string): string | null {
  if (typeof want !== "string") return null;
  if (/^logarithm\(/.test(call) && want.includes("mpc(")) return "logarithm's complex mpc";
  if (/^power\(/.test(call)) {
    const [w, g] = [want, got].map((t) => (t.match(/-?\d+\.?\d*(?:e[-+]\d+)?/g) ?? []).map(Number));
    if (w.length > 0 && w.length === g.length && w.every((x, i) => Math.abs(x - g[i]) <= 4e-16 * Math.abs(x)))
      return "pow's last digit (a fractional exponent)";
  }
  const sortedSet = (t: string) =>
    t.replace(/\{('[^']*'(?:, '[^']*')*)\}/g, (_m, items: string) => `{${items.split(", ").sort().join(", ")}}`);
  if (sortedSet(want) === sortedSet(got)) return "a set's print order";
  return null;
}

function check(system: "gorilla" | "envtuning", tasks: Map<string, BfclTaskData>, mistyped: boolean) {
  const messages: RuntimeOptions["messages"] = system;
  const differing: string[] = [];
  const kept = new Map<string, number>();
  const stateDiffering: string[] = [];
  let results = 0;
  let exact = 0;
  let states = 0;
  let trajectories = 0;
  for (const t of fixture.trajectories) {
    if (Boolean(t.mistyped) !== mistyped) continue;
    const task = tasks.get(t.id);
    if (!task) continue; // entry not in this clone's data (the full sets are optional)
    trajectories++;
    const want = expected(t, system);
    const rt = runtimeForEntry(task, messages);
    t.calls.forEach((turn, i) =>
      turn.forEach((call, j) => {
        const got = parsePythonCalls(call).map((c) => rt.execute(c).result)[0];
        results++;
        if (sameText(got, want.results[i][j])) exact++;
        else if (!sameButIntFloats(got, want.results[i][j])) {
          const why = keptDifference(call, want.results[i][j], got);
          if (why) kept.set(why, (kept.get(why) ?? 0) + 1);
          else differing.push(`${t.id} turn ${i} ${call}: want ${shownText(want.results[i][j])} | got ${got.slice(0, 200)}`);
        }
      }),
    );
    for (const [cls, text] of Object.entries(rt.stateStrings())) {
      states++;
      if (!sameButIntFloats(text, { sha256: "", sha256_int_floats: want.states[cls] }))
        stateDiffering.push(`${t.id} ${cls} after ${JSON.stringify(t.calls).slice(0, 300)}`);
    }
  }
  const keptCount = [...kept.values()].reduce((a, b) => a + b, 0);
  const keptText = keptCount ? `; kept on purpose: ${[...kept].map(([why, n]) => `${n} ${why}`).join(", ")}` : "";
  const summary =
    `${results - differing.length - keptCount} of ${results} results (${exact} byte for byte${keptText}), ` +
    `${states - stateDiffering.length} of ${states} final states, ${trajectories} trajectories`;
  return { differing, stateDiffering, results, states, trajectories, summary };
}

async function tasksById() {
  return new Map((await loadBfclParityTasks()).map((t) => [t.entryId, t]));
}

test("gorilla: every result and final state of random off-gold trajectories is gorilla's (Python ≥ 3.10)", async () => {
  const r = check("gorilla", await tasksById(), false);
  console.log(`gorilla off-gold parity: ${r.summary}`);
  assert.ok(r.trajectories >= 150, `${r.trajectories} trajectories`);
  assert.deepEqual(r.differing.slice(0, 10), [], `${r.differing.length} of ${r.results} results differ`);
  assert.deepEqual(r.stateDiffering.slice(0, 5), [], `${r.stateDiffering.length} of ${r.states} states differ`);
});

test('EnvTuning: under protocol "envtuning" every result and final state is that of EnvTuning\'s fork of the API classes', async () => {
  const r = check("envtuning", await tasksById(), false);
  console.log(`envtuning off-gold parity: ${r.summary}`);
  assert.deepEqual(r.differing.slice(0, 10), [], `${r.differing.length} of ${r.results} results differ`);
  assert.deepEqual(r.stateDiffering.slice(0, 5), [], `${r.stateDiffering.length} of ${r.states} states differ`);
});

test("kept on purpose: a value of the wrong type is refused with this port's message where Python's duck typing runs on", async () => {
  for (const system of ["gorilla", "envtuning"] as const) {
    const r = check(system, await tasksById(), true);
    console.log(`${system} mistyped trajectories (recorded, not required to match): ${r.summary}`);
  }
});

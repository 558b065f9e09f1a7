/**
 * Parity with gorilla's own BFCL code. tests/fixtures/parity/bfcl-gorilla.json was computed by gorilla's Python
 * executor and checker (scripts/parity/bfcl_gorilla_parity.py) for every entry of multi_turn_base, miss_param,
 * miss_func and long_context: each ground-truth call's result, multi_turn_checker's verdict on model outputs near the ground truth,
 * and the message that reveals held-back functions. The same entries run here and must agree.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatasetError } from "../types";
import { loadBfclDataset } from "./bfcl-format";
import {
  REPO,
  gorillaDataDir,
  loadBfclParityTasks,
  sameButIntFloats,
  sameText,
  shownText,
  type FixtureText,
} from "./testing/parity-fixtures";
import { runGroundTruth } from "./bfcl-episode";
import { checkMultiTurn } from "./multi-turn-checker";

interface Fixture {
  entries: {
    id: string;
    results: FixtureText[][];
    verdicts: { op: string; turn?: number; valid: boolean; error_type: string | null }[];
    reveal?: Record<string, FixtureText>;
  }[];
}

const fixture = JSON.parse(readFileSync(path.join(REPO, "tests/fixtures/parity/bfcl-gorilla.json"), "utf8")) as Fixture;
const byId = new Map(fixture.entries.map((e) => [e.id, e]));
const gorillaData = gorillaDataDir();

/** The model output a fixture verdict was computed on (see `apply` in the fixture script). */
function modelOutput(gt: string[][], op: { op: string; turn?: number }): string[][][] {
  const turns = gt.map((t) => [...t]);
  const k = op.turn ?? 0;
  if (op.op === "leave_out") turns[k] = [];
  else if (op.op === "early_and_again") turns[k] = [...gt[k + 1]];
  else if (op.op === "move_early") [turns[k], turns[k + 1]] = [[...gt[k + 1]], []];
  else if (op.op === "drop_first_call") turns[k] = turns[k].slice(1);
  else assert.equal(op.op, "gt");
  return turns.map((t) => (t.length ? [t] : []));
}

test("every ground-truth call gives gorilla's result (byte for byte, or differing only in 35 vs 35.0), in base, miss_param, miss_func and long_context", async () => {
  const tasks = await loadBfclParityTasks();
  assert.ok(tasks.length >= 150, `${tasks.length} entries`);
  const differing: string[] = [];
  let compared = 0;
  let exact = 0;
  for (const task of tasks) {
    const want = byId.get(task.entryId);
    assert.ok(want, `${task.entryId} has a fixture`);
    const got = runGroundTruth(task).results;
    got.forEach((turn, t) =>
      turn.forEach((r, i) => {
        compared++;
        if (sameText(r, want.results[t][i])) exact++;
        else if (!sameButIntFloats(r, want.results[t][i]))
          differing.push(`${task.entryId} turn ${t} call ${i}: gorilla ${shownText(want.results[t][i])} | here ${r.slice(0, 160)}`);
      }),
    );
  }
  assert.deepEqual(differing.slice(0, 10), [], `${differing.length} of ${compared} results differ`);
  // The figure docs/environments/bfcl.md gives: how many are byte for byte the same.
  console.log(
    `gorilla parity: ${exact} of ${compared} ground-truth results identical, the other ${compared - exact} differ only in integral-float printing`,
  );
});

test("the multi-turn checker agrees with gorilla's on outputs near the ground truth (turns without ground truth not checked)", async () => {
  const tasks = await loadBfclParityTasks();
  const disagreements: string[] = [];
  let checked = 0;
  for (const task of tasks) {
    for (const v of byId.get(task.entryId)!.verdicts) {
      const mine = checkMultiTurn(task, modelOutput(task.groundTruth, v));
      checked++;
      if (mine.valid !== v.valid || mine.errorType !== v.error_type) {
        disagreements.push(
          `${task.entryId} ${v.op}${v.turn !== undefined ? ` ${v.turn}` : ""}: gorilla ${v.valid} ${v.error_type} | here ${mine.valid} ${mine.errorType}`,
        );
      }
    }
  }
  assert.deepEqual(disagreements.slice(0, 10), [], `${disagreements.length} of ${checked} verdicts differ`);
  assert.ok(checked > 300);
});

test("miss_func: held-back functions are left out of the tool list and revealed at gorilla's turn with gorilla's message", async () => {
  const tasks = (await loadBfclParityTasks()).filter((t) => t.category === "multi_turn_miss_func");
  assert.ok(tasks.length >= 40);
  for (const task of tasks) {
    const reveal = byId.get(task.entryId)!.reveal!;
    for (const [turn, want] of Object.entries(reveal)) {
      const held = task.revealedTools?.[Number(turn)] ?? [];
      assert.ok(held.length > 0, `${task.entryId}: turn ${turn} reveals functions`);
      assert.ok(
        held.every((h) => !task.tools.some((t) => t.name === h.name)),
        `${task.entryId}: ${held.map((h) => h.name)} hidden before turn ${turn}`,
      );
      const message = task.turns[Number(turn)].map((m) => m.content).join("\n");
      assert.ok(sameText(message, want), `${task.entryId} turn ${turn}: gorilla ${shownText(want)} | here ${message.slice(0, 160)}`);
    }
  }
});

test("long_context: the API state carries gorilla's extensions, so answers are long and the state check sees them", async () => {
  const tasks = (await loadBfclParityTasks()).filter((t) => t.category === "multi_turn_long_context");
  assert.ok(tasks.length >= 40);
  const longest = Math.max(
    ...tasks.flatMap((t) =>
      runGroundTruth(t)
        .results.flat()
        .map((r) => r.length),
    ),
  );
  assert.ok(longest > 5_000, `the longest ground-truth result has ${longest} characters`);
  // The same entry read as multi_turn_base would give short answers: the flag, not the data, makes them long.
  const asBase = { ...tasks[0], category: "multi_turn_base" };
  const short = Math.max(
    ...runGroundTruth(asBase)
      .results.flat()
      .map((r) => r.length),
  );
  const long = Math.max(
    ...runGroundTruth(tasks[0])
      .results.flat()
      .map((r) => r.length),
  );
  assert.ok(long > 3 * short, `${tasks[0].entryId}: ${long} characters in long_context, ${short} without`);
});

test("categories without their mechanics are refused by name, never imported silently", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "bfcl-composite-"));
  writeFileSync(
    path.join(dir, "BFCL_v4_multi_turn_composite.json"),
    readFileSync(path.join(gorillaData, "BFCL_v4_multi_turn_long_context.json")),
  );
  await assert.rejects(
    loadBfclDataset(path.join(dir, "BFCL_v4_multi_turn_composite.json")),
    (e: unknown) =>
      e instanceof DatasetError &&
      /category "multi_turn_composite" is not supported; supported: multi_turn_base, multi_turn_miss_param, multi_turn_miss_func, multi_turn_long_context/.test(
        e.message,
      ),
  );
});

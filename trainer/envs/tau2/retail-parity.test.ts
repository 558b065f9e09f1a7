/**
 * Parity with τ²-bench's own retail environment. tests/fixtures/parity/tau2-retail.json was computed by τ²'s Python
 * code (scripts/parity/tau2_retail_parity.py): for every retail task, each gold call's tool output and error flag,
 * the database hash after the gold actions (τ²'s get_db_hash), the hash with item pairs listed in reverse, and
 * τ²'s ACTION verdict on calls near each gold action. The same calls are replayed here and must agree exactly.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseJsonKeepingKeyOrder } from "../../../lib/ordered-json";
import { needsFull, sharedData } from "../../../tests/fixtures/shared-data";
import { createTau2RetailEnvironment } from "./index";
import { forkDb, validateRetailDb, type RetailDb } from "./retail-db";
import { tau2DbHash } from "./retail-models";
import { runRetailTool } from "./retail-tools";
import { actionMatches } from "./tau2-reward";

interface FixtureCall {
  name: string;
  arguments: Record<string, unknown>;
  content: string | { sha256: string; head: string };
  error: boolean;
}
interface Fixture {
  initial_db_hash: string;
  tasks: {
    id: string;
    calls: FixtureCall[];
    db_hash: string;
    db_hash_pairs_reversed?: string;
  }[];
  /** Each distinct gold action, with calls near it (arguments given where they are not the gold's) and τ²'s verdict. */
  action_probes: {
    name: string;
    arguments: Record<string, unknown>;
    compare_args: string[] | null;
    probes: { label: string; name?: string; arguments?: Record<string, unknown>; matches: boolean }[];
  }[];
}

const FIXTURE = path.resolve(import.meta.dirname, "../../../tests/fixtures/parity/tau2-retail.json");
const fixture = JSON.parse(readFileSync(FIXTURE, "utf8")) as Fixture;
const retail = sharedData("data/tau2/retail");
const fullOnly = needsFull(retail, "data/tau2/retail");

function loadDb(): RetailDb {
  const file = path.join(retail.dir, "db.json");
  return validateRetailDb(parseJsonKeepingKeyOrder(readFileSync(file, "utf8")), file);
}

/** Replays calls on a fresh copy; returns the copy and the first output that differs from τ²'s (or null). */
function replay(db: RetailDb, calls: FixtureCall[]) {
  const copy = forkDb(db);
  let mismatch: string | null = null;
  calls.forEach((call, i) => {
    const out = runRetailTool(copy, call.name, call.arguments);
    const want = call.content;
    const same = typeof want === "string" ? out.content === want : createHash("sha256").update(out.content).digest("hex") === want.sha256;
    if (mismatch === null && (!same || out.ok === call.error)) {
      const shown = typeof want === "string" ? want : `${want.head}… (sha256 ${want.sha256})`;
      mismatch = `call ${i} ${call.name}(${JSON.stringify(call.arguments)}):\n  τ²:   ${shown.slice(0, 400)}\n  here: ${out.content.slice(0, 400)}`;
    }
  });
  return { copy, mismatch };
}

test("every retail task's gold calls give τ²'s tool outputs, word for word", async () => {
  const db = loadDb();
  const tasks = await createTau2RetailEnvironment().loadTasks!(retail.dir);
  const present = new Set(tasks.map((t) => t.data.taskId));
  const cases = fixture.tasks.filter((t) => present.has(t.id));
  assert.equal(cases.length, retail.full ? 114 : tasks.length, "every loaded task has a fixture");
  const mismatches = cases.map((t) => ({ id: t.id, m: replay(db, t.calls).mismatch })).filter((x) => x.m !== null);
  assert.deepEqual(mismatches, [], `${mismatches.length} of ${cases.length} tasks differ`);
  // The importer keeps τ²'s gold actions as they are (names, arguments, order).
  for (const t of cases) {
    const task = tasks.find((x) => x.data.taskId === t.id)!;
    assert.deepEqual(
      task.data.actions.map((a) => [a.name, a.arguments]),
      t.calls.map((c) => [c.name, c.arguments]),
      `task ${t.id}`,
    );
  }
});

test("the database after every task's gold actions hashes to τ²'s hash (all 114)", { skip: fullOnly }, () => {
  const db = loadDb();
  assert.equal(tau2DbHash(db), fixture.initial_db_hash, "the untouched database");
  const differing = fixture.tasks.filter((t) => tau2DbHash(replay(db, t.calls).copy.db) !== t.db_hash).map((t) => t.id);
  assert.deepEqual(differing, [], `${fixture.tasks.length - differing.length} of ${fixture.tasks.length} match`);
});

test("item order matters where τ² makes it matter: reversed pairs give τ²'s other database", { skip: fullOnly }, () => {
  const db = loadDb();
  const varied = fixture.tasks.filter((t) => t.db_hash_pairs_reversed !== undefined);
  assert.ok(varied.length >= 5, "tasks that swap several items");
  for (const t of varied) {
    const calls = t.calls.map((c) =>
      c.name === "modify_pending_order_items" && (c.arguments.item_ids as string[]).length > 1
        ? {
            ...c,
            arguments: {
              ...c.arguments,
              item_ids: [...(c.arguments.item_ids as string[])].reverse(),
              new_item_ids: [...(c.arguments.new_item_ids as string[])].reverse(),
            },
          }
        : c,
    );
    const hash = tau2DbHash(replay(db, calls).copy.db);
    assert.equal(hash, t.db_hash_pairs_reversed, `task ${t.id}`);
    assert.notEqual(hash, t.db_hash, `task ${t.id}: τ² gives a different database for the reversed listing`);
  }
});

test("ACTION matching agrees with τ²'s compare_with_tool_call on calls near every gold action", () => {
  let checked = 0;
  for (const a of fixture.action_probes) {
    const gold = { actionId: "gold", name: a.name, arguments: a.arguments, compareArgs: a.compare_args };
    for (const p of a.probes) {
      const verdict = actionMatches(gold, { name: p.name ?? a.name, arguments: p.arguments ?? a.arguments });
      assert.equal(verdict, p.matches, `${a.name}(${JSON.stringify(a.arguments)}), ${p.label}: τ² says ${p.matches}`);
      checked++;
    }
  }
  assert.ok(checked > 1500, `${checked} probes`);
});

test("through the environment (loadTasks, then an episode) a product's variants come in db.json's order, as τ² lists them", async () => {
  const env = createTau2RetailEnvironment();
  const tasks = await env.loadTasks!(retail.dir);
  const want = fixture.tasks
    .find((t) => t.id === "0")
    ?.calls.find((c) => c.name === "get_product_details" && c.arguments.product_id === "1656367028");
  const task = tasks.find((t) => t.data.taskId === "0");
  assert.ok(want && task, "task 0 looks up the keyboard (whose variant ids JavaScript would reorder)");
  const llm = {
    chat: async (req: { offline?: () => string | Promise<string> }) => ({ text: req.offline ? await req.offline() : "", callId: "c" }),
  };
  const ep = env.createEpisode(task, { seed: 1, llm, maxTurns: 5 });
  await ep.reset();
  const r = await ep.step(
    `<tool_call>${JSON.stringify({ name: "get_product_details", arguments: { product_id: "1656367028" } })}</tool_call>`,
    0,
  );
  const got = r.observations[0].content;
  const expected = want.content;
  assert.ok(
    typeof expected === "string" ? got === expected : createHash("sha256").update(got).digest("hex") === expected.sha256,
    got.slice(0, 200),
  );
});

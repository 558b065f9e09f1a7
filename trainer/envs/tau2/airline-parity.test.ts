/**
 * The τ²-bench airline domain against τ²'s own Python (tests/fixtures/parity/tau2-airline.json, made by
 * scripts/parity/tau2_airline_parity.py on the vendored database): every task's gold calls give τ²'s outputs and
 * database hash; a scripted run of 45 calls (bookings with split payments, spent certificates, the fixed new ids
 * running out, refunds, cabin changes, errors of every kind, one-stop searches) gives τ²'s outputs and hash;
 * and an airline task plays offline as an environment.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { LlmChat } from "../types";
import { airlineDomain } from "./airline-domain";
import type { AirlineWork } from "./airline-tools";
import type { FlightDb } from "./airline-models";
import { createTau2RetailEnvironment, loadTau2Domain } from "./index";
import { replayGoldActions } from "./tau2-episode";
import type { Tau2DomainTools } from "./domain";

const REPO = path.resolve(import.meta.dirname, "../../..");
const DIR = path.join(REPO, "tests/fixtures/tau2-airline");
interface Call {
  name: string;
  arguments: Record<string, unknown>;
  content: string | { sha256: string; head: string };
  error: boolean;
}
const fixture = JSON.parse(readFileSync(path.join(REPO, "tests/fixtures/parity/tau2-airline.json"), "utf8")) as {
  initial_db_hash: string;
  tasks: { id: string; calls: Call[]; db_hash: string }[];
  edge_calls: Call[];
  db_hash_after_edge: string;
};
const llm: LlmChat = { chat: async (req) => ({ text: req.offline ? await req.offline() : "", callId: "c" }) };

/** Runs the calls on the copy; the first output that differs from τ²'s, or null. */
function replay(w: AirlineWork, calls: Call[]): string | null {
  for (const [i, c] of calls.entries()) {
    const out = airlineDomain.runTool(w, c.name, c.arguments);
    const same =
      typeof c.content === "string"
        ? out.content === c.content
        : createHash("sha256").update(out.content).digest("hex") === c.content.sha256;
    if (!same || out.ok === c.error) {
      const want = typeof c.content === "string" ? c.content : `${c.content.head}… (sha256 ${c.content.sha256})`;
      return `call ${i} ${c.name}(${JSON.stringify(c.arguments)}):\n  τ²:   ${want.slice(0, 600)}\n  here: ${out.content.slice(0, 600)}`;
    }
  }
  return null;
}

test("τ²'s airline folder imports as the airline domain with all 50 tasks, and hashes as τ² does", async () => {
  const domain = await loadTau2Domain(DIR);
  assert.equal(domain.domain, "airline");
  assert.equal(domain.tasks.length, 50);
  assert.deepEqual(domain.skipped, []);
  assert.equal(airlineDomain.hash(airlineDomain.fork(domain.db as FlightDb)), fixture.initial_db_hash);
});

test("every airline task's gold calls give τ²'s outputs and final database, word for word", async () => {
  const domain = await loadTau2Domain(DIR);
  const db = domain.db as FlightDb;
  const mismatches: string[] = [];
  for (const want of fixture.tasks) {
    const w = airlineDomain.fork(db);
    const m = replay(w, want.calls);
    if (m) mismatches.push(`${want.id}: ${m}`);
    else if (airlineDomain.hash(w) !== want.db_hash) mismatches.push(`${want.id}: final database differs`);
    const data = domain.tasks.find((t) => t.id === want.id)!.data;
    const gold = replayGoldActions(airlineDomain as Tau2DomainTools, db, data) as AirlineWork;
    assert.equal(airlineDomain.hash(gold), want.db_hash, `${want.id}: the environment's gold replay`);
  }
  assert.deepEqual(mismatches, [], `${mismatches.length} of ${fixture.tasks.length} tasks differ`);
  assert.equal(
    fixture.tasks.reduce((n, t) => n + t.calls.length, 0),
    142,
  );
});

test("a scripted run through every tool and its errors gives τ²'s outputs and database", async () => {
  const db = (await loadTau2Domain(DIR)).db as FlightDb;
  const w = airlineDomain.fork(db);
  assert.equal(replay(w, fixture.edge_calls), null);
  assert.equal(airlineDomain.hash(w), fixture.db_hash_after_edge);
  // The episode's copy wrote only its own records: the loaded database is untouched.
  assert.equal(airlineDomain.hash(airlineDomain.fork(db)), fixture.initial_db_hash);
});

test("pydantic's validation text for arguments τ² builds models from", async () => {
  const w = airlineDomain.fork((await loadTau2Domain(DIR)).db as FlightDb);
  const passengers = airlineDomain.runTool(w, "update_reservation_passengers", {
    reservation_id: "GXWCPN",
    passengers: [{ first_name: "A", last_name: "B" }],
  });
  assert.equal(
    passengers.content,
    "Error: 1 validation error for Passenger\ndob\n  Field required [type=missing, input_value={'first_name': 'A', 'last_name': 'B'}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.13/v/missing",
  );
  const booking = airlineDomain.runTool(w, "book_reservation", {
    user_id: "ethan_martin_2396",
    origin: "JFK",
    destination: "MIA",
    flight_type: "one",
    cabin: "first",
    flights: [],
    passengers: [],
    payment_methods: [{ payment_id: "credit_card_5447957", amount: 10.5 }],
    total_baggages: 0,
    nonfree_baggages: 0,
    insurance: "no",
  });
  assert.match(
    booking.content,
    /^Error: 1 validation error for Payment\namount\n {2}Input should be a valid integer, got a number with a fractional part \[type=int_from_float, input_value=10\.5, input_type=float\]/,
  );
  const literal = airlineDomain.runTool(w, "book_reservation", {
    user_id: "ethan_martin_2396",
    origin: "JFK",
    destination: "MIA",
    flight_type: "one",
    cabin: "first",
    flights: [],
    passengers: [],
    payment_methods: [],
    total_baggages: 0,
    nonfree_baggages: 0,
    insurance: "no",
  });
  assert.match(
    literal.content,
    /^Error: 2 validation errors for Reservation\nflight_type\n {2}Input should be 'round_trip' or 'one_way' .*\ncabin\n {2}Input should be 'business', 'economy' or 'basic_economy' \[type=literal_error, input_value='first', input_type=str\]/s,
  );
});

test("an airline task plays offline: the gold calls meet DB, a wrong cabin does not", async () => {
  const env = createTau2RetailEnvironment();
  const tasks = await env.loadTasks!(DIR);
  assert.ok(tasks.every((t) => t.id.startsWith("tau2-airline-") && t.tags.includes("airline")));
  const task = tasks.find((t) => t.data.actions.some((a) => a.name === "book_reservation"))!;
  const play = async (change: (args: Record<string, unknown>) => Record<string, unknown>) => {
    const ep = env.createEpisode(task, { seed: 1, llm, maxTurns: 20 });
    const opening = await ep.reset();
    assert.match(opening[0].content, /customer service agent of an airline/);
    for (const a of task.data.actions) {
      const args = a.name === "book_reservation" ? change(a.arguments) : a.arguments;
      await ep.step(`<tool_call>${JSON.stringify({ name: a.name, arguments: args })}</tool_call>`, 0);
    }
    return (await ep.evaluate("user_done")).components.db;
  };
  assert.equal(await play((a) => a), 1);
  assert.equal(await play((a) => ({ ...a, insurance: a.insurance === "yes" ? "no" : "yes" })), 0);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { createToolMocker, parameterOverlap } from "./tool-mocker";
import { normalizeSlotValue } from "./normalize-slot-value";
import type { SgdService } from "./sgd-format";
import type { RecordedCall } from "./sgd-task";

const services: SgdService[] = [
  {
    name: "Restaurants_1",
    description: "",
    slots: [],
    intents: [
      {
        name: "FindRestaurants",
        description: "",
        isTransactional: false,
        requiredSlots: ["city", "cuisine"],
        optionalSlots: { price_range: "dontcare" },
        resultSlots: [],
      },
      {
        name: "ReserveRestaurant",
        description: "",
        isTransactional: true,
        requiredSlots: ["restaurant_name", "city", "time"],
        optionalSlots: { date: "2019-03-01", party_size: "2" },
        resultSlots: [],
      },
    ],
  },
];
const rows = [
  { restaurant_name: "A", city: "San Jose", cuisine: "American", price_range: "moderate" },
  { restaurant_name: "B", city: "San Jose", cuisine: "American", price_range: "expensive" },
];
const recordings: RecordedCall[] = [
  { service: "Restaurants_1", method: "FindRestaurants", parameters: { city: "San Jose", cuisine: "American" }, results: rows },
  {
    service: "Restaurants_1",
    method: "ReserveRestaurant",
    parameters: { restaurant_name: "A", city: "San Jose", time: "17:30", party_size: "2" },
    results: [{ ok: "yes" }],
  },
];
/** This project's earlier matcher, kept as `matching: "tolerant"`. */
const mocker = createToolMocker(services, recordings, [], { matching: "tolerant" });

test("values written differently still match: case, spacing, 12-hour times, spoken dates, numbers", () => {
  assert.equal(normalizeSlotValue(" San  JOSE "), "san jose");
  assert.equal(normalizeSlotValue("5:30 pm"), "17:30");
  assert.equal(normalizeSlotValue("12 am"), "00:00");
  assert.equal(normalizeSlotValue("March 2nd"), "2019-03-02");
  assert.equal(normalizeSlotValue("2nd of March"), "2019-03-02");
  assert.equal(normalizeSlotValue("$1,200.00"), "1200");
  assert.equal(normalizeSlotValue("two"), "2");
  assert.equal(normalizeSlotValue("3"), "3");
});

test("tolerant: a call matches its recording regardless of argument order, formatting and explicit defaults", async () => {
  const r = await mocker.call("Restaurants_1.FindRestaurants", { cuisine: "american", city: "san jose ", price_range: "dontcare" });
  assert.ok(r.ok && r.match === "exact" && r.results.length === 2);
  const b = await mocker.call("ReserveRestaurant", {
    time: "5:30 PM",
    city: "San Jose",
    restaurant_name: "a",
    date: "March 1st",
    party_size: 2,
  });
  assert.ok(b.ok && b.match === "exact");
});

test("tolerant: a narrower search is answered by filtering recorded rows", async () => {
  const r = await mocker.call("FindRestaurants", { city: "San Jose", cuisine: "American", price_range: "expensive" });
  assert.ok(r.ok && r.match === "filtered");
  assert.deepEqual(
    r.results.map((x) => x.restaurant_name),
    ["B"],
  );
});

test("tolerant: the recording overlapping at least half answers, scored as agent_gym scores it", async () => {
  // Recorded {restaurant_name A, city San Jose, time 17:30, party_size 2}; asked {A, San Jose, 18:00}: names in
  // the union 4, equal values 2 (restaurant_name, city) → 2/4 = 0.5, just enough.
  const b = await mocker.call("ReserveRestaurant", { restaurant_name: "A", city: "San Jose", time: "18:00" });
  assert.ok(b.ok && b.match === "fuzzy", JSON.stringify(b));
  assert.equal(b.score, 0.5);
  assert.equal(
    parameterOverlap({ city: "san jose", name: "chop" }, { city: "san jose", name: "chop bar" }),
    0.75,
    "a contained value counts half",
  );
  // Less than half in common: the LLM mocker is asked, shown the method's recordings; then the first recording answers.
  const asked: number[] = [];
  const far = await mocker.call("ReserveRestaurant", { restaurant_name: "Z", city: "Oakland", time: "18:00" }, async (c) => {
    asked.push(c.examples.length);
    return { rows: null, callId: "llm-1" };
  });
  assert.deepEqual(asked, [1]);
  assert.ok(far.ok && far.match === "first" && far.llmCallIds?.[0] === "llm-1", JSON.stringify(far));
  // Without the fallbacks a transaction must match its recording exactly.
  const strict = createToolMocker(
    services,
    [
      {
        service: "Restaurants_1",
        method: "ReserveRestaurant",
        parameters: { restaurant_name: "A", city: "San Jose", time: "17:30" },
        results: [{ ok: "yes" }],
      },
    ],
    [],
    { matching: "tolerant", fuzzy: false, anyRecording: false },
  );
  const refused = await strict.call("ReserveRestaurant", { restaurant_name: "A", city: "San Jose", time: "18:00" });
  assert.ok(!refused.ok && /no recorded transaction for ReserveRestaurant/.test(refused.error));
});

test("tolerant: unknown functions, unknown parameters and missing required slots are clear tool errors", async () => {
  const u = await mocker.call("BookFlight", {});
  assert.ok(!u.ok && /unknown function "BookFlight"; available functions: FindRestaurants, ReserveRestaurant/.test(u.error));
  const p = await mocker.call("FindRestaurants", { city: "San Jose", cuisine: "American", stars: "5" });
  assert.ok(!p.ok && /has no parameter stars/.test(p.error));
  const m = await mocker.call("FindRestaurants", { city: "San Jose" });
  assert.ok(!m.ok && /missing required cuisine/.test(m.error));
});

test("the dialogue's own recording wins over another dialogue's recording of the same call, whatever the order", async () => {
  const call = {
    service: "Restaurants_1",
    method: "ReserveRestaurant",
    parameters: { restaurant_name: "A", city: "San Jose", time: "17:30" },
  };
  const mine = { ...call, results: [{ restaurant_name: "A", confirmation: "mine" }] };
  const theirs = { ...call, results: [{ restaurant_name: "A", confirmation: "another dialogue's" }] };
  const m = createToolMocker(services, [mine], [theirs, { ...theirs, results: [{ confirmation: "a third" }] }]);
  const r = await m.call("ReserveRestaurant", { restaurant_name: "A", city: "San Jose", time: "17:30" });
  assert.ok(r.ok);
  assert.equal(r.results[0].confirmation, "mine");
  // Without a recording of its own, the first corpus recording answers (never a later one overwriting it).
  const corpusOnly = createToolMocker(services, [], [theirs, { ...theirs, results: [{ confirmation: "a third" }] }]);
  const c = await corpusOnly.call("ReserveRestaurant", { restaurant_name: "A", city: "San Jose", time: "17:30" });
  assert.ok(c.ok);
  assert.equal(c.results[0].confirmation, "another dialogue's");
});

test("agent_gym's order by default: exact as given, fuzzy ≥ 0.8, the LLM mocker, fuzzy ≥ 0.5, the first recording", async () => {
  const agentGym = createToolMocker(services, recordings);
  const llmCalls: string[] = [];
  const noLlm = async (c: { intent: { name: string } }) => {
    llmCalls.push(c.intent.name);
    return { rows: null, callId: `llm-${llmCalls.length}` };
  };
  // Values are compared as given: lower case is not exact, but agent_gym's lower-cased overlap is 1.
  const lower = await agentGym.call("FindRestaurants", { city: "san jose", cuisine: "american" }, noLlm);
  assert.ok(lower.ok && lower.match === "fuzzy" && lower.score === 1);
  // An unknown parameter is not refused: it lowers the overlap (2 of 3 names equal → 0.67 < 0.8: the LLM is asked first).
  const extra = await agentGym.call("FindRestaurants", { city: "San Jose", cuisine: "American", stars: "5" }, noLlm);
  assert.ok(extra.ok && extra.match === "fuzzy" && Math.abs((extra.score ?? 0) - 2 / 3) < 1e-9);
  assert.deepEqual(llmCalls, ["FindRestaurants"]);
  // Rows the LLM invents are used when it has some.
  const invented = await agentGym.call("FindRestaurants", { city: "Oakland", cuisine: "Thai" }, async () => ({
    rows: [{ restaurant_name: "Invented", city: "Oakland" }],
    callId: "llm-x",
  }));
  assert.ok(invented.ok && invented.match === "llm" && invented.results[0].restaurant_name === "Invented");
  // Nothing in common: the method's first recording, as agent_gym answers when its LLM has nothing.
  const unseen = await agentGym.call("ReserveRestaurant", { restaurant_name: "zz1", city: "zz2", time: "zz3" }, noLlm);
  assert.ok(unseen.ok && unseen.match === "first" && unseen.results[0].ok === "yes");
  // The 12-hour time agent_gym does not read: no longer an exact match.
  const spoken = await agentGym.call("ReserveRestaurant", { restaurant_name: "A", city: "San Jose", time: "5:30 pm", party_size: "2" });
  assert.ok(spoken.ok && spoken.match === "fuzzy");
  // Kept on purpose: an unknown function is a tool error naming the functions (agent_gym answers []).
  const unknown = await agentGym.call("BookFlight", {});
  assert.ok(!unknown.ok && /available functions: FindRestaurants, ReserveRestaurant/.test(unknown.error));
});

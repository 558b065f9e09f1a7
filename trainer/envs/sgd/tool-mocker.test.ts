import { test } from "node:test";
import assert from "node:assert/strict";
import { createToolMocker, parameterOverlap } from "./tool-mocker";
import { normalizeSlotValue } from "./normalize-slot-value";
import type { SgdService } from "./sgd-format";

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
const mocker = createToolMocker(services, [
  { service: "Restaurants_1", method: "FindRestaurants", parameters: { city: "San Jose", cuisine: "American" }, results: rows },
  {
    service: "Restaurants_1",
    method: "ReserveRestaurant",
    parameters: { restaurant_name: "A", city: "San Jose", time: "17:30", party_size: "2" },
    results: [{ ok: "yes" }],
  },
]);

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

test("a call matches its recording regardless of argument order, formatting and explicit defaults", () => {
  const r = mocker.call("Restaurants_1.FindRestaurants", { cuisine: "american", city: "san jose ", price_range: "dontcare" });
  assert.ok(r.ok && r.match === "exact" && r.results.length === 2);
  const b = mocker.call("ReserveRestaurant", { time: "5:30 PM", city: "San Jose", restaurant_name: "a", date: "March 1st", party_size: 2 });
  assert.ok(b.ok && b.match === "exact");
});

test("a narrower search is answered by filtering recorded rows", () => {
  const r = mocker.call("FindRestaurants", { city: "San Jose", cuisine: "American", price_range: "expensive" });
  assert.ok(r.ok && r.match === "filtered");
  assert.deepEqual(
    r.results.map((x) => x.restaurant_name),
    ["B"],
  );
});

test("agent_gym's fuzzy fallback: the recording overlapping at least half answers, scored as agent_gym scores it", () => {
  // Recorded {restaurant_name A, city San Jose, time 17:30, party_size 2}; asked {A, San Jose, 18:00}: names in
  // the union 4, equal values 2 (restaurant_name, city) → 2/4 = 0.5, just enough.
  const b = mocker.call("ReserveRestaurant", { restaurant_name: "A", city: "San Jose", time: "18:00" });
  assert.ok(b.ok && b.match === "fuzzy", JSON.stringify(b));
  assert.equal(b.score, 0.5);
  assert.equal(
    parameterOverlap({ city: "san jose", name: "chop" }, { city: "san jose", name: "chop bar" }),
    0.75,
    "a contained value counts half",
  );
  // Less than half in common: nothing answers, and the call is marked for the LLM mocker with the method's recordings.
  const far = mocker.call("ReserveRestaurant", { restaurant_name: "Z", city: "Oakland", time: "18:00" });
  assert.ok(!far.ok && far.unmatched?.examples.length === 1);
  assert.match(far.error, /no recorded transaction for ReserveRestaurant/);
  // Without the fuzzy fallback a transaction must match its recording exactly.
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
    { fuzzy: false },
  );
  assert.ok(!strict.call("ReserveRestaurant", { restaurant_name: "A", city: "San Jose", time: "18:00" }).ok);
});

test("unknown functions, unknown parameters and missing required slots are clear tool errors", () => {
  const u = mocker.call("BookFlight", {});
  assert.ok(!u.ok && /unknown function "BookFlight"; available functions: FindRestaurants, ReserveRestaurant/.test(u.error));
  const p = mocker.call("FindRestaurants", { city: "San Jose", cuisine: "American", stars: "5" });
  assert.ok(!p.ok && /has no parameter stars/.test(p.error));
  const m = mocker.call("FindRestaurants", { city: "San Jose" });
  assert.ok(!m.ok && /missing required cuisine/.test(m.error));
});

test("the dialogue's own recording wins over another dialogue's recording of the same call, whatever the order", () => {
  const call = {
    service: "Restaurants_1",
    method: "ReserveRestaurant",
    parameters: { restaurant_name: "A", city: "San Jose", time: "17:30" },
  };
  const mine = { ...call, results: [{ restaurant_name: "A", confirmation: "mine" }] };
  const theirs = { ...call, results: [{ restaurant_name: "A", confirmation: "another dialogue's" }] };
  const m = createToolMocker(services, [mine], [theirs, { ...theirs, results: [{ confirmation: "a third" }] }]);
  const r = m.call("ReserveRestaurant", { restaurant_name: "A", city: "San Jose", time: "17:30" });
  assert.ok(r.ok);
  assert.equal(r.results[0].confirmation, "mine");
  // Without a recording of its own, the first corpus recording answers (never a later one overwriting it).
  const corpusOnly = createToolMocker(services, [], [theirs, { ...theirs, results: [{ confirmation: "a third" }] }]);
  const c = corpusOnly.call("ReserveRestaurant", { restaurant_name: "A", city: "San Jose", time: "17:30" });
  assert.ok(c.ok);
  assert.equal(c.results[0].confirmation, "another dialogue's");
});

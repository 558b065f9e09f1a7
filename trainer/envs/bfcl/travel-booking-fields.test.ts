/**
 * Initial booking records without `travel_date` or `card_id` (44 of BFCL's data) answer as gorilla's TravelAPI does:
 * its `self.booking_record[booking_id]["travel_date"]` raises KeyError, which the executor reports as
 * "Error during execution: 'travel_date'" — not an invoice holding undefined, not a refund to no card.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { BfclRuntime } from "./runtime";
import { parsePythonCalls } from "./call-syntax";

const config = {
  TravelAPI: {
    access_token: "tok",
    token_expires_in: 5,
    credit_card_list: { card1: { card_number: "1", balance: 100 } },
    booking_record: {
      b1: { card_id: "card1", travel_from: "SFO", travel_to: "LAX", travel_class: "economy", travel_cost: 50, transaction_id: "t1" },
      b2: {
        travel_date: "2024-11-15",
        travel_from: "SFO",
        travel_to: "LAX",
        travel_class: "economy",
        travel_cost: 50,
        transaction_id: "t2",
      },
    },
  },
};

test("a booking missing travel_date or card_id raises Python's KeyError text, under gorilla's and EnvTuning's classes", () => {
  for (const messages of ["gorilla", "envtuning"] as const) {
    const run = (call: string) =>
      new BfclRuntime(["TravelAPI"], structuredClone(config), { longContext: false, messages }).execute(parsePythonCalls(call)[0]);
    assert.equal(run("retrieve_invoice(access_token='tok', booking_id='b1')").result, "Error during execution: 'travel_date'", messages);
    assert.equal(run("cancel_booking(access_token='tok', booking_id='b2')").result, "Error during execution: 'card_id'", messages);
    assert.match(
      run("retrieve_invoice(access_token='tok', booking_id='b2')").result,
      /^\{"invoice": \{"booking_id": "b2", "travel_date": "2024-11-15"/,
    );
  }
});

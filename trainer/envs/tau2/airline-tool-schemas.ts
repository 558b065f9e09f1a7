/**
 * JSON-Schema descriptions of the airline tools shown to the policy (written for this project from the tools'
 * behaviour; names and argument names match τ²-bench so gold actions compare argument for argument).
 */
import type { ToolSchema } from "../parse";

const str = (description: string) => ({ type: "string", description });
const int = (description: string) => ({ type: "integer", description });
const RESERVATION_ID = str("Six-character reservation id, e.g. 'ZFA04Y'.");
const PAYMENT_ID = str("Payment method id from the user's profile, e.g. 'credit_card_0000000' or 'gift_card_0000000'.");
const CABIN = { type: "string", enum: ["basic_economy", "economy", "business"], description: "Cabin class." };
const AIRPORT = (which: string) => str(`${which} airport's IATA code, e.g. 'JFK'.`);
const DATE = str("Date as YYYY-MM-DD, e.g. '2024-05-01'.");
const FLIGHTS = {
  type: "array",
  items: { type: "object", properties: { flight_number: str("e.g. 'HAT001'."), date: DATE }, required: ["flight_number", "date"] },
};
const PASSENGERS = {
  type: "array",
  items: {
    type: "object",
    properties: { first_name: str("First name."), last_name: str("Last name."), dob: str("Date of birth, YYYY-MM-DD.") },
    required: ["first_name", "last_name", "dob"],
  },
  description: "Every passenger on the reservation.",
};

function tool(name: string, description: string, properties: Record<string, unknown>, required = Object.keys(properties)): ToolSchema {
  return { name, description, parameters: { type: "object", properties, required } };
}

export const AIRLINE_TOOL_SCHEMAS: readonly ToolSchema[] = [
  tool(
    "book_reservation",
    "Book a new reservation for a user and charge it. The payments must add up to the price exactly: each flight's cabin price per passenger, $30 per passenger with insurance, $50 per non-free bag.",
    {
      user_id: str("The booking user's id, e.g. 'sara_doe_496'."),
      origin: AIRPORT("Trip origin"),
      destination: AIRPORT("Trip destination"),
      flight_type: { type: "string", enum: ["one_way", "round_trip"], description: "Trip type." },
      cabin: CABIN,
      flights: { ...FLIGHTS, description: "Every flight segment of the trip, in order." },
      passengers: PASSENGERS,
      payment_methods: {
        type: "array",
        items: {
          type: "object",
          properties: { payment_id: PAYMENT_ID, amount: int("Dollars charged to this method.") },
          required: ["payment_id", "amount"],
        },
        description: "How the price is split across the user's payment methods.",
      },
      total_baggages: int("Checked bags in total."),
      nonfree_baggages: int("Checked bags that are paid for."),
      insurance: { type: "string", enum: ["yes", "no"], description: "Whether travel insurance is bought." },
    },
  ),
  tool("calculate", "Evaluate an arithmetic expression (numbers, + - * /, parentheses); the result is rounded to 2 decimals.", {
    expression: str("e.g. '(120 + 30) * 2'."),
  }),
  tool("cancel_reservation", "Cancel a whole reservation; every payment on it is refunded to its method.", {
    reservation_id: RESERVATION_ID,
  }),
  tool("get_reservation_details", "A reservation's flights, passengers, cabin, bags, insurance and payment history.", {
    reservation_id: RESERVATION_ID,
  }),
  tool(
    "get_user_details",
    "A user's profile: name, contact, membership, payment methods (with balances), saved passengers and reservation ids.",
    { user_id: str("The user's id, e.g. 'sara_doe_496'.") },
  ),
  tool("list_all_airports", "Every airport served, with its city.", {}),
  tool(
    "search_direct_flight",
    "Direct flights between two airports on a date that can still be booked, with seats left and prices per cabin.",
    { origin: AIRPORT("Departure"), destination: AIRPORT("Arrival"), date: DATE },
  ),
  tool(
    "search_onestop_flight",
    "Pairs of connecting flights (one stop) between two airports departing on a date, with seats and prices per cabin.",
    { origin: AIRPORT("Departure"), destination: AIRPORT("Arrival"), date: DATE },
  ),
  tool(
    "send_certificate",
    "Add a travel certificate of the given amount to a user's payment methods (compensation; only where the policy allows it).",
    { user_id: str("The user's id."), amount: int("Certificate value in dollars.") },
  ),
  tool(
    "transfer_to_human_agents",
    "Hand the conversation to a human agent, with a summary, when the user asks for one or the tools and policy cannot solve the request.",
    { summary: str("Summary of the user's issue.") },
  ),
  tool("update_reservation_baggages", "Change a reservation's bag counts; added paid bags are charged $50 each to the payment method.", {
    reservation_id: RESERVATION_ID,
    total_baggages: int("New total number of checked bags."),
    nonfree_baggages: int("New number of paid bags."),
    payment_id: PAYMENT_ID,
  }),
  tool(
    "update_reservation_flights",
    "Replace a reservation's flights and/or cabin; the price difference is charged to (or refunded to) the payment method. List every segment of the new itinerary, unchanged ones too.",
    {
      reservation_id: RESERVATION_ID,
      cabin: CABIN,
      flights: { ...FLIGHTS, description: "All segments of the new itinerary." },
      payment_id: PAYMENT_ID,
    },
  ),
  tool("update_reservation_passengers", "Replace the passengers' details on a reservation (the number of passengers cannot change).", {
    reservation_id: RESERVATION_ID,
    passengers: PASSENGERS,
  }),
  tool("get_flight_status", "A flight's status on a date (available, on time, delayed, flying, landed or cancelled).", {
    flight_number: str("e.g. 'HAT001'."),
    date: DATE,
  }),
];

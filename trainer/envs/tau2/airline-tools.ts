/**
 * τ²-bench's airline tools (`domains/airline/tools.py`), behaving as τ²'s do, quirks included: checks in the same
 * order with the same messages (pydantic's validation text where τ² builds a model from the arguments), prices and
 * payments as ints, balances as floats, the fixed new ids (reservations HATHAT/HATHAU/HATHAV, certificates
 * certificate_3221322..4), no seats released on cancellation or flight changes, refunds as negative payments, and
 * one-stop searches that look for a next-day connection on `2024-05-<day+1>` unpadded (which would miss connections
 * from early-May dates, all of them past and unbookable in τ²'s data). tests/fixtures/parity/tau2-airline.json holds τ²'s own outputs and hashes; airline-parity.test.ts replays them.
 */
import { pythonJsonDumps, pythonRepr, type PyType } from "../../../lib/python-json";
import { PydanticValidationError, pythonTypeName, validateFlat, type FlatModel } from "../../../lib/pydantic-validation";
import { tau2CalculateTool } from "../../../lib/python-arithmetic";
import { pythonSignatureError, type ToolOutcome } from "./domain";
import {
  CABINS,
  DirectFlightModel,
  ReservationModel,
  UserModel,
  type AirlineTable,
  type AirlineUser,
  type Flight,
  type FlightDate,
  type FlightDb,
  type Passenger,
  type Payment,
  type Reservation,
  type ReservationFlight,
} from "./airline-models";

/** One episode's database: tables copied shallowly, a record cloned the first time a tool writes to it. */
export interface AirlineWork {
  db: FlightDb;
  owned: Record<AirlineTable, Set<string>>;
}

class AirlineToolError extends Error {}
const fail = (message: string): never => {
  throw new AirlineToolError(message);
};

const FlightInfoModel: FlatModel = {
  name: "FlightInfo",
  fields: [
    ["flight_number", "str"],
    ["date", "str"],
  ],
};
const PassengerFlat: FlatModel = {
  name: "Passenger",
  fields: [
    ["first_name", "str"],
    ["last_name", "str"],
    ["dob", "str"],
  ],
};
const PaymentFlat: FlatModel = {
  name: "Payment",
  fields: [
    ["payment_id", "str"],
    ["amount", "int"],
  ],
};
const ReservationFlat: FlatModel = {
  name: "Reservation",
  fields: [
    ["reservation_id", "str"],
    ["user_id", "str"],
    ["origin", "str"],
    ["destination", "str"],
    ["flight_type", { literal: ["round_trip", "one_way"] }],
    ["cabin", { literal: CABINS }],
    ["flights", { any: true }],
    ["passengers", { any: true }],
    ["payment_history", { any: true }],
    ["created_at", "str"],
    ["total_baggages", "int"],
    ["nonfree_baggages", "int"],
    ["insurance", { literal: ["yes", "no"] }],
  ],
};

/** Python's str() of an argument, as τ²'s f-string messages print it. */
const pyStr = (v: unknown): string => (typeof v === "string" ? v : pythonRepr(v));

/** `key in dict` in Python: a list or dict argument is unhashable (TypeError). */
function lookupKey(v: unknown): string | null {
  if (typeof v === "object" && v !== null) fail(`unhashable type: '${pythonTypeName(v)}'`);
  return typeof v === "string" ? v : null;
}

/** `[Model(**x) for x in items]` when every item is a dict, as τ²'s tools convert their list arguments. */
function modelsFrom<T>(items: unknown, model: FlatModel, argument: string): T[] {
  if (!Array.isArray(items)) return fail(`Invalid argument "${argument}": expected a list, got ${JSON.stringify(items)}`);
  if (!items.every((x) => typeof x === "object" && x !== null && !Array.isArray(x))) {
    const odd = items.find((x) => typeof x !== "object" || x === null || Array.isArray(x));
    return fail(`'${pythonTypeName(odd)}' object has no attribute '${model.fields[0][0]}'`);
  }
  return items.map((x) => validateFlat(model, x as Record<string, unknown>) as T);
}

class AirlineState {
  constructor(private readonly w: AirlineWork) {}

  private own<T>(table: AirlineTable, id: string): T {
    const rows = this.w.db[table] as Record<string, unknown>;
    if (!this.w.owned[table].has(id)) {
      rows[id] = structuredClone(rows[id]);
      this.w.owned[table].add(id);
    }
    return rows[id] as T;
  }
  user(id: unknown, write = false): AirlineUser {
    const key = lookupKey(id);
    if (key === null || !(key in this.w.db.users)) return fail(`User ${pyStr(id)} not found`);
    return write ? this.own("users", key) : this.w.db.users[key];
  }
  reservation(id: unknown, write = false): Reservation {
    const key = lookupKey(id);
    if (key === null || !(key in this.w.db.reservations)) return fail(`Reservation ${pyStr(id)} not found`);
    return write ? this.own("reservations", key) : this.w.db.reservations[key];
  }
  flight(number: unknown, write = false): Flight {
    const key = lookupKey(number);
    if (key === null || !(key in this.w.db.flights)) return fail(`Flight ${pyStr(number)} not found`);
    return write ? this.own("flights", key) : this.w.db.flights[key];
  }
  flightDate(number: unknown, date: unknown, write = false): FlightDate {
    const flight = this.flight(number, write);
    const key = lookupKey(date);
    if (key === null || !(key in flight.dates)) return fail(`Flight ${pyStr(number)} not found on date ${pyStr(date)}`);
    return flight.dates[key];
  }
  flights(): Flight[] {
    return Object.values(this.w.db.flights);
  }
  addReservation(r: Reservation): void {
    this.w.db.reservations[r.reservation_id] = r;
    this.w.owned.reservations.add(r.reservation_id);
  }
  isReservation(id: string): boolean {
    return id in this.w.db.reservations;
  }
}

interface DirectFlight {
  flight_number: string;
  origin: string;
  destination: string;
  status: "available";
  scheduled_departure_time_est: string;
  scheduled_arrival_time_est: string;
  date: string | null;
  available_seats: Record<string, number>;
  prices: Record<string, number>;
}

function searchDirect(s: AirlineState, date: unknown, origin: unknown, destination: unknown, leaveAfter?: string): DirectFlight[] {
  const results: DirectFlight[] = [];
  const key = lookupKey(date);
  for (const f of s.flights()) {
    const day = key === null ? undefined : f.dates[key];
    if (
      (origin === null || f.origin === origin) &&
      (destination === null || f.destination === destination) &&
      day?.status === "available"
    ) {
      // String comparison, as τ²'s: an arrival "01:30:00+1" sorts before any later departure that day.
      if (leaveAfter !== undefined && !(f.scheduled_departure_time_est >= leaveAfter)) continue;
      results.push({
        flight_number: f.flight_number,
        origin: f.origin,
        destination: f.destination,
        status: "available",
        scheduled_departure_time_est: f.scheduled_departure_time_est,
        scheduled_arrival_time_est: f.scheduled_arrival_time_est,
        date: null,
        available_seats: day.available_seats!,
        prices: day.prices!,
      });
    }
  }
  return results;
}

/** τ²'s payment for a change: no certificates, a gift card must cover it (and is charged, or credited if negative). */
function paymentForUpdate(user: AirlineUser, paymentId: unknown, total: number): Payment | null {
  const key = lookupKey(paymentId);
  const method = key === null ? undefined : user.payment_methods[key];
  if (!method || key === null) return fail("Payment method not found");
  if (method.source === "certificate") fail("Certificate cannot be used to update reservation");
  if (method.source === "gift_card" && (method.amount ?? 0) < total) fail("Gift card balance is not enough");
  if (method.source === "gift_card") method.amount = (method.amount ?? 0) - total;
  return total !== 0 ? { payment_id: key, amount: total } : null;
}

/** Python's int() of a string: optional sign and surrounding spaces, digits only, or ValueError. */
function pythonInt(text: string): number {
  return /^\s*[+-]?\d+\s*$/.test(text) ? Number.parseInt(text, 10) : fail(`invalid literal for int() with base 10: ${pythonRepr(text)}`);
}

function asNumber(v: unknown, other: number, op: string): number {
  if (typeof v === "number") return v;
  return fail(`unsupported operand type(s) for ${op}: '${pythonTypeName(v)}' and '${pythonTypeName(other)}'`);
}

/** Python's `d[key]` on a cabin-keyed dict: a KeyError prints as the key's repr. */
function byCabin(table: Record<string, number> | undefined, cabin: unknown): number {
  const key = lookupKey(cabin);
  if (key === null || !table || !(key in table)) return fail(pythonRepr(cabin));
  return table[key];
}

type Kind = "read" | "write" | "generic";
interface AirlineTool {
  kind: Kind;
  params: readonly string[];
  returns?: PyType;
  run: (s: AirlineState, a: Record<string, unknown>) => unknown;
}

const NEW_RESERVATION_IDS = ["HATHAT", "HATHAU", "HATHAV"];
const NEW_CERTIFICATE_IDS = [3221322, 3221323, 3221324].map((n) => `certificate_${n}`);
const NOW = "2024-05-15T15:00:00";

/** The airports (code, city) both τ-benches list, in their order. */
export const AIRLINE_AIRPORTS: [string, string][] = [
  ["SFO", "San Francisco"],
  ["JFK", "New York"],
  ["LAX", "Los Angeles"],
  ["ORD", "Chicago"],
  ["DFW", "Dallas"],
  ["DEN", "Denver"],
  ["SEA", "Seattle"],
  ["ATL", "Atlanta"],
  ["MIA", "Miami"],
  ["BOS", "Boston"],
  ["PHX", "Phoenix"],
  ["IAH", "Houston"],
  ["LAS", "Las Vegas"],
  ["MCO", "Orlando"],
  ["EWR", "Newark"],
  ["CLT", "Charlotte"],
  ["MSP", "Minneapolis"],
  ["DTW", "Detroit"],
  ["PHL", "Philadelphia"],
  ["LGA", "LaGuardia"],
];

function bookReservation(s: AirlineState, a: Record<string, unknown>): Reservation {
  const flights = modelsFrom<{ flight_number: string; date: string }>(a.flights, FlightInfoModel, "flights");
  const passengers = modelsFrom<Passenger>(a.passengers, PassengerFlat, "passengers");
  const payments = modelsFrom<Payment>(a.payment_methods, PaymentFlat, "payment_methods");
  const user = s.user(a.user_id, true);
  const reservationId = NEW_RESERVATION_IDS.find((id) => !s.isReservation(id)) ?? fail("Too many reservations");
  const valid = validateFlat(ReservationFlat, {
    reservation_id: reservationId,
    user_id: a.user_id,
    origin: a.origin,
    destination: a.destination,
    flight_type: a.flight_type,
    cabin: a.cabin,
    flights: [],
    passengers,
    payment_history: payments,
    created_at: NOW,
    total_baggages: a.total_baggages,
    nonfree_baggages: a.nonfree_baggages,
    insurance: a.insurance,
  });
  const reservation = { ...valid, status: null } as unknown as Reservation;
  const cabin = reservation.cabin;
  let total = 0;
  const seatsTaken: FlightDate[] = [];
  for (const info of flights) {
    const flight = s.flight(info.flight_number, true);
    const day = s.flightDate(info.flight_number, info.date, true);
    if (day.status !== "available") fail(`Flight ${info.flight_number} not available on date ${info.date}`);
    if (byCabin(day.available_seats, cabin) < passengers.length) fail(`Not enough seats on flight ${info.flight_number}`);
    const price = byCabin(day.prices, cabin);
    reservation.flights.push({
      flight_number: info.flight_number,
      origin: flight.origin,
      destination: flight.destination,
      date: info.date,
      price,
    });
    seatsTaken.push(day);
    total += price * passengers.length;
  }
  if (reservation.insurance === "yes") total += 30 * passengers.length;
  total += 50 * (reservation.nonfree_baggages as number);
  for (const p of payments) {
    const method = user.payment_methods[p.payment_id] ?? fail(`Payment method ${p.payment_id} not found`);
    if ((method.source === "gift_card" || method.source === "certificate") && (method.amount ?? 0) < p.amount) {
      fail(`Not enough balance in payment method ${p.payment_id}`);
    }
  }
  const paid = payments.reduce((sum, p) => sum + p.amount, 0);
  if (paid !== total) fail(`Payment amount does not add up, total price is ${total}, but paid ${paid}`);
  for (const p of payments) {
    const method = user.payment_methods[p.payment_id];
    if (method.source === "gift_card") method.amount = (method.amount ?? 0) - p.amount;
    // A certificate is spent whole, whatever part of it paid.
    else if (method.source === "certificate") delete user.payment_methods[p.payment_id];
  }
  for (const day of seatsTaken) day.available_seats![cabin] -= passengers.length;
  s.addReservation(reservation);
  user.reservations.push(reservation.reservation_id);
  return reservation;
}

function updateFlights(s: AirlineState, a: Record<string, unknown>): Reservation {
  const infos = modelsFrom<{ flight_number: string; date: string }>(a.flights, FlightInfoModel, "flights");
  const reservation = s.reservation(a.reservation_id, true);
  const user = s.user(reservation.user_id, true);
  const cabin = a.cabin;
  const n = reservation.passengers.length;
  let total = 0;
  const kept: ReservationFlight[] = [];
  for (const info of infos) {
    // A segment already booked in the same cabin keeps the price paid.
    const same = reservation.flights.find(
      (f) => f.flight_number === info.flight_number && f.date === info.date && cabin === reservation.cabin,
    );
    if (same) {
      total += same.price * n;
      kept.push(same);
      continue;
    }
    const flight = s.flight(info.flight_number);
    const day = s.flightDate(info.flight_number, info.date);
    if (day.status !== "available") fail(`Flight ${info.flight_number} not available on date ${info.date}`);
    if (byCabin(day.available_seats, cabin) < n) fail(`Not enough seats on flight ${info.flight_number}`);
    const price = byCabin(day.prices, cabin);
    kept.push({ flight_number: info.flight_number, origin: flight.origin, destination: flight.destination, date: info.date, price });
    total += price * n;
  }
  total -= reservation.flights.reduce((sum, f) => sum + f.price, 0) * n;
  const payment = paymentForUpdate(user, a.payment_id, total);
  if (payment) reservation.payment_history.push(payment);
  reservation.flights = kept;
  // τ² assigns the cabin unvalidated and, like tau-bench, leaves the flights' seat counts as they were.
  reservation.cabin = cabin as string;
  return reservation;
}

const TOOLS: Record<string, AirlineTool> = {
  book_reservation: {
    kind: "write",
    params: [
      "user_id",
      "origin",
      "destination",
      "flight_type",
      "cabin",
      "flights",
      "passengers",
      "payment_methods",
      "total_baggages",
      "nonfree_baggages",
      "insurance",
    ],
    returns: ReservationModel,
    run: bookReservation,
  },
  calculate: {
    kind: "generic",
    params: ["expression"],
    run: (_s, a) =>
      tau2CalculateTool(
        typeof a.expression === "string" ? a.expression : fail(`'${pythonTypeName(a.expression)}' object is not iterable`),
        fail,
      ),
  },
  cancel_reservation: {
    kind: "write",
    params: ["reservation_id"],
    returns: ReservationModel,
    run: (s, a) => {
      const r = s.reservation(a.reservation_id, true);
      // Every payment so far is reversed, refunds included (a second cancel reverses the refunds); no seats freed.
      r.payment_history.push(...r.payment_history.map((p) => ({ payment_id: p.payment_id, amount: -p.amount })));
      r.status = "cancelled";
      return r;
    },
  },
  get_reservation_details: {
    kind: "read",
    params: ["reservation_id"],
    returns: ReservationModel,
    run: (s, a) => s.reservation(a.reservation_id),
  },
  get_user_details: { kind: "read", params: ["user_id"], returns: UserModel, run: (s, a) => s.user(a.user_id) },
  list_all_airports: {
    kind: "read",
    params: [],
    returns: {
      list: {
        model: {
          name: "AirportCode",
          fields: [
            ["iata", "str"],
            ["city", "str"],
          ],
        },
      },
    },
    run: () => AIRLINE_AIRPORTS.map(([iata, city]) => ({ iata, city })),
  },
  search_direct_flight: {
    kind: "read",
    params: ["origin", "destination", "date"],
    returns: { list: DirectFlightModel },
    run: (s, a) => searchDirect(s, a.date, a.origin, a.destination),
  },
  search_onestop_flight: {
    kind: "read",
    params: ["origin", "destination", "date"],
    returns: { list: { list: DirectFlightModel } },
    run: (s, a) => {
      const date = a.date;
      const pairs: DirectFlight[][] = [];
      // Only a string date can match a flight date, so `date` is a string inside the loop.
      for (const first of searchDirect(s, date, a.origin, null)) {
        first.date = date as string;
        const date2 = first.scheduled_arrival_time_est.includes("+1")
          ? `2024-05-${pythonInt((date as string).slice(-2)) + 1}`
          : (date as string);
        for (const second of searchDirect(s, date2, first.destination, a.destination, first.scheduled_arrival_time_est)) {
          second.date = date2;
          pairs.push([first, second]);
        }
      }
      return pairs;
    },
  },
  send_certificate: {
    kind: "write",
    params: ["user_id", "amount"],
    run: (s, a) => {
      const user = s.user(a.user_id, true);
      const id = NEW_CERTIFICATE_IDS.find((c) => !(c in user.payment_methods)) ?? fail("Too many certificates");
      const { amount } = validateFlat({ name: "Certificate", fields: [["amount", "float"]] }, { amount: a.amount });
      user.payment_methods[id] = { source: "certificate", id, amount: amount as number };
      return `Certificate ${id} added to user ${pyStr(a.user_id)} with amount ${pyStr(a.amount)}.`;
    },
  },
  transfer_to_human_agents: { kind: "generic", params: ["summary"], run: () => "Transfer successful" },
  update_reservation_baggages: {
    kind: "write",
    params: ["reservation_id", "total_baggages", "nonfree_baggages", "payment_id"],
    returns: ReservationModel,
    run: (s, a) => {
      const r = s.reservation(a.reservation_id, true);
      const user = s.user(r.user_id, true);
      const extra = asNumber(a.nonfree_baggages, r.nonfree_baggages as number, "-") - (r.nonfree_baggages as number);
      const payment = paymentForUpdate(user, a.payment_id, 50 * Math.max(0, extra));
      if (payment) r.payment_history.push(payment);
      // Assigned as given: τ²'s models do not validate on assignment.
      r.total_baggages = a.total_baggages;
      r.nonfree_baggages = a.nonfree_baggages;
      return r;
    },
  },
  update_reservation_flights: {
    kind: "write",
    params: ["reservation_id", "cabin", "flights", "payment_id"],
    returns: ReservationModel,
    run: updateFlights,
  },
  update_reservation_passengers: {
    kind: "write",
    params: ["reservation_id", "passengers"],
    returns: ReservationModel,
    run: (s, a) => {
      const passengers = modelsFrom<Passenger>(a.passengers, PassengerFlat, "passengers");
      const r = s.reservation(a.reservation_id, true);
      if (passengers.length !== r.passengers.length) fail("Number of passengers does not match");
      r.passengers = passengers;
      return r;
    },
  },
  get_flight_status: { kind: "read", params: ["flight_number", "date"], run: (s, a) => s.flightDate(a.flight_number, a.date).status },
};

export function airlineToolKind(name: string): Kind | undefined {
  return TOOLS[name]?.kind;
}

/** Runs one tool call against the episode's copy (write tools mutate it). Never throws for agent mistakes. */
export function runAirlineTool(w: AirlineWork, name: string, args: Record<string, unknown>): ToolOutcome {
  const tool = TOOLS[name];
  if (!tool) return { ok: false, content: `Error: Tool '${name}' not found.`, wrote: false };
  const badCall = pythonSignatureError(`AirlineTools.${name}()`, tool.params, args);
  if (badCall) return { ok: false, content: `Error: ${badCall}`, wrote: false };
  try {
    const result = tool.run(new AirlineState(w), args);
    return { ok: true, content: tool.returns ? pythonJsonDumps(result, tool.returns) : String(result), wrote: tool.kind === "write" };
  } catch (e) {
    if (e instanceof AirlineToolError || e instanceof PydanticValidationError)
      return { ok: false, content: `Error: ${e.message}`, wrote: false };
    throw e;
  }
}

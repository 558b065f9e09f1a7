/**
 * τ²-bench's airline database (`domains/airline/data_model.py`): its records as TypeScript types, its pydantic
 * models as Python-JSON schemas (field order, which numbers are floats, which status model a flight date is), the
 * validation of a db.json, and τ²'s database hash. Reservations print and hash as τ²'s do only with these schemas:
 * gift-card and certificate balances are floats (`71.0`), prices and payments ints.
 */
import { createHash } from "node:crypto";
import { pythonJsonDumps, type PyModel, type PyType } from "../../../lib/python-json";
import { DatasetError } from "../types";
import { isObject } from "./domain";

export const CABINS = ["business", "economy", "basic_economy"] as const;
export type Cabin = (typeof CABINS)[number];

export interface FlightDate {
  status: string;
  available_seats?: Record<string, number>;
  prices?: Record<string, number>;
  [time: string]: unknown;
}
export interface Flight {
  flight_number: string;
  origin: string;
  destination: string;
  scheduled_departure_time_est: string;
  scheduled_arrival_time_est: string;
  dates: Record<string, FlightDate>;
}
export interface PaymentMethod {
  source: string;
  id: string;
  amount?: number;
  brand?: string;
  last_four?: string;
}
export interface Passenger {
  first_name: string;
  last_name: string;
  dob: string;
}
export interface AirlineUser {
  user_id: string;
  payment_methods: Record<string, PaymentMethod>;
  saved_passengers: Passenger[];
  membership: string;
  reservations: string[];
  [field: string]: unknown;
}
export interface ReservationFlight {
  flight_number: string;
  origin: string;
  destination: string;
  date: string;
  price: number;
}
export interface Payment {
  payment_id: string;
  amount: number;
}
export interface Reservation {
  reservation_id: string;
  user_id: string;
  origin: string;
  destination: string;
  flight_type: string;
  cabin: string;
  flights: ReservationFlight[];
  passengers: Passenger[];
  payment_history: Payment[];
  created_at: string;
  total_baggages: unknown;
  nonfree_baggages: unknown;
  insurance: string;
  status: string | null;
}
export interface FlightDb {
  flights: Record<string, Flight>;
  users: Record<string, AirlineUser>;
  reservations: Record<string, Reservation>;
}

export const AIRLINE_TABLES = ["flights", "users", "reservations"] as const;
export type AirlineTable = (typeof AIRLINE_TABLES)[number];

const model = (name: string, fields: PyModel["fields"]): { model: PyModel } => ({ model: { name, fields } });
const times = (...names: string[]) => names.map((n) => [n, "str"] as const);

// A flight date's model is the union member its status names (pydantic picks it by the status literal).
const DATE_MODELS: Record<string, PyModel> = {
  available: {
    name: "FlightDateStatusAvailable",
    fields: [
      ["status", "str"],
      ["available_seats", { dict: "int" }],
      ["prices", { dict: "int" }],
    ],
  },
  landed: { name: "FlightDateStatusLanded", fields: [["status", "str"], ...times("actual_departure_time_est", "actual_arrival_time_est")] },
  cancelled: { name: "FlightDateStatusCancelled", fields: [["status", "str"]] },
  delayed: {
    name: "FlightDateStatusDelayed",
    fields: [["status", "str"], ...times("estimated_departure_time_est", "estimated_arrival_time_est")],
  },
  flying: {
    name: "FlightDataStatusFlying",
    fields: [["status", "str"], ...times("actual_departure_time_est", "estimated_arrival_time_est")],
  },
  "on time": {
    name: "FlightDataStatusOnTime",
    fields: [["status", "str"], ...times("estimated_departure_time_est", "estimated_arrival_time_est")],
  },
};
const FlightDateStatus: PyType = { union: (v) => DATE_MODELS[String(v.status)] };

const FlightModel = model("Flight", [
  ["flight_number", "str"],
  ["origin", "str"],
  ["destination", "str"],
  ["scheduled_departure_time_est", "str"],
  ["scheduled_arrival_time_est", "str"],
  ["dates", { dict: FlightDateStatus }],
]);

export const PassengerModel = model("Passenger", [
  ["first_name", "str"],
  ["last_name", "str"],
  ["dob", "str"],
]);

// Subclasses list the base class's fields (source, id) first; a redeclared field keeps its place.
const PAYMENT_METHODS: Record<string, PyModel> = {
  credit_card: {
    name: "CreditCard",
    fields: [
      ["source", "str"],
      ["id", "str"],
      ["brand", "str"],
      ["last_four", "str"],
    ],
  },
  gift_card: {
    name: "GiftCard",
    fields: [
      ["source", "str"],
      ["id", "str"],
      ["amount", "float"],
    ],
  },
  certificate: {
    name: "Certificate",
    fields: [
      ["source", "str"],
      ["id", "str"],
      ["amount", "float"],
    ],
  },
};

export const UserModel = model("User", [
  ["user_id", "str"],
  [
    "name",
    model("Name", [
      ["first_name", "str"],
      ["last_name", "str"],
    ]),
  ],
  [
    "address",
    model("Address", [
      ["address1", "str"],
      ["address2", { optional: "str" }],
      ["city", "str"],
      ["country", "str"],
      ["state", "str"],
      ["zip", "str"],
    ]),
  ],
  ["email", "str"],
  ["dob", "str"],
  ["payment_methods", { dict: { union: (v) => PAYMENT_METHODS[String(v.source)] } }],
  ["saved_passengers", { list: PassengerModel }],
  ["membership", "str"],
  ["reservations", { list: "str" }],
]);

export const ReservationModel = model("Reservation", [
  ["reservation_id", "str"],
  ["user_id", "str"],
  ["origin", "str"],
  ["destination", "str"],
  ["flight_type", "str"],
  ["cabin", "str"],
  [
    "flights",
    {
      list: model("ReservationFlight", [
        ["flight_number", "str"],
        ["origin", "str"],
        ["destination", "str"],
        ["date", "str"],
        ["price", "int"],
      ]),
    },
  ],
  ["passengers", { list: PassengerModel }],
  [
    "payment_history",
    {
      list: model("Payment", [
        ["payment_id", "str"],
        ["amount", "int"],
      ]),
    },
  ],
  ["created_at", "str"],
  ["total_baggages", "int"],
  ["nonfree_baggages", "int"],
  ["insurance", "str"],
  ["status", { optional: "str" }],
]);

/** A search result: τ²'s DirectFlight (the flight, one date's seats and prices, the date only in one-stop pairs). */
export const DirectFlightModel = model("DirectFlight", [
  ["flight_number", "str"],
  ["origin", "str"],
  ["destination", "str"],
  ["status", "str"],
  ["scheduled_departure_time_est", "str"],
  ["scheduled_arrival_time_est", "str"],
  ["date", { optional: "str" }],
  ["available_seats", { dict: "int" }],
  ["prices", { dict: "int" }],
]);

export const RECORD_MODELS: Record<AirlineTable, PyType> = { flights: FlightModel, users: UserModel, reservations: ReservationModel };

const FlightDbModel: PyType = model("FlightDB", [
  ["flights", { dict: FlightModel }],
  ["users", { dict: UserModel }],
  ["reservations", { dict: ReservationModel }],
]);

/** τ²'s `get_db_hash()`: sha256 of `json.dumps(db.model_dump(), sort_keys=True)`. */
export function airlineDbHash(db: FlightDb): string {
  return createHash("sha256")
    .update(pythonJsonDumps(db, FlightDbModel, { sortKeys: true }))
    .digest("hex");
}

function need(ok: boolean, file: string, record: string, what: string): void {
  if (!ok) throw new DatasetError(file, record, what);
}

/** The checks τ²'s FlightDB.model_validate makes that the tools rely on, each naming the record that fails. */
export function validateFlightDb(raw: unknown, file: string): FlightDb {
  need(
    isObject(raw) && AIRLINE_TABLES.every((t) => isObject((raw as Record<string, unknown>)[t])),
    file,
    "",
    'the airline database needs "flights", "users" and "reservations" tables',
  );
  const db = raw as unknown as FlightDb;
  for (const [id, f] of Object.entries(db.flights)) {
    need(
      isObject(f) && typeof f.flight_number === "string" && typeof f.origin === "string" && isObject(f.dates),
      file,
      `flights.${id}`,
      "a flight needs flight_number, origin, destination, scheduled times and dates",
    );
    for (const [date, s] of Object.entries(f.dates)) {
      need(
        isObject(s) && typeof s.status === "string" && s.status in DATE_MODELS,
        file,
        `flights.${id}.dates.${date}`,
        `a flight date's status must be one of ${Object.keys(DATE_MODELS).join(", ")}`,
      );
      if (s.status === "available")
        need(
          isObject(s.available_seats) && isObject(s.prices),
          file,
          `flights.${id}.dates.${date}`,
          "an available flight date needs available_seats and prices",
        );
    }
  }
  for (const [id, u] of Object.entries(db.users)) {
    need(
      isObject(u) && typeof u.user_id === "string" && isObject(u.payment_methods) && Array.isArray(u.reservations),
      file,
      `users.${id}`,
      "a user needs user_id (tau-bench's users.json lacks it: add each key as user_id), payment_methods and reservations",
    );
    for (const [pid, p] of Object.entries(u.payment_methods)) {
      need(
        isObject(p) && typeof p.source === "string" && p.source in PAYMENT_METHODS,
        file,
        `users.${id}.payment_methods.${pid}`,
        "a payment method's source must be credit_card, gift_card or certificate",
      );
    }
  }
  for (const [id, r] of Object.entries(db.reservations)) {
    need(
      isObject(r) &&
        typeof r.user_id === "string" &&
        Array.isArray(r.flights) &&
        Array.isArray(r.passengers) &&
        Array.isArray(r.payment_history),
      file,
      `reservations.${id}`,
      "a reservation needs user_id, flights, passengers and payment_history",
    );
    if (r.status === undefined) r.status = null;
  }
  return db;
}

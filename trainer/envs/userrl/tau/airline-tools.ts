/**
 * The airline tools of tau-bench (sierra-research/tau-bench), which UserRL's TauGym runs for its airline tasks: plain
 * functions over flights, reservations and users, each returning a string. Ported with their quirks, since TauGym's
 * reward compares the data they leave: a new reservation is HATHAT (then HATHAU, HATHAV); a one-stop search builds
 * the second leg's date without zero padding ("2024-05-7") and reads the second flight's data at the first leg's
 * date (a KeyError when it has none); the passengers and payments given are stored as given; flight changes never
 * update seat counts; `send_certificate` gives nothing back when a user already has three certificates.
 */
import { AIRLINE_AIRPORTS } from "../../tau2/airline-tools";
import { calculate, dumps, float, insert, isFloat, n, own, pyAdd, PyKeyError, type Rec, type ToolSpec, type Work } from "./tool-core";

const flightsOf = (w: Work) => w.tables.flights;
const methods = (user: Rec) => user.payment_methods as Record<string, Rec>;
/** Python's sum() of numbers: an int unless a float is among them. */
const pySum = (xs: unknown[]): unknown => xs.reduce<unknown>((acc, x) => pyAdd(acc, x), 0);
/** Python's `a != b` for numbers (1 == 1.0). */
const differs = (a: unknown, b: unknown) => n(a) !== n(b);
/** Python's `x * k` for an int k. */
const times = (x: unknown, k: number): unknown => (isFloat(x) ? float(n(x) * k) : n(x) * k);
/** Python's str() of a number or string, as an f-string prints it. */
const pyStr = (v: unknown): string => (typeof v === "string" ? v : dumps(v));

/** The flight's bookable data on `date`, or the error book_reservation and update_reservation_flights give. */
function bookable(w: Work, flight: Rec, cabin: string, seats: number): Rec | string {
  const number = flight.flight_number as string;
  const data = flightsOf(w)[number];
  if (!data) return `Error: flight ${number} not found`;
  const dates = data.dates as Record<string, Rec>;
  if (!(String(flight.date) in dates)) return `Error: flight ${number} not found on date ${String(flight.date)}`;
  const onDate = dates[String(flight.date)];
  if (onDate.status !== "available") return `Error: flight ${number} not available on date ${String(flight.date)}`;
  if (n((onDate.available_seats as Rec)[cabin]) < seats) return `Error: not enough seats on flight ${number}`;
  return { price: (onDate.prices as Rec)[cabin], origin: data.origin, destination: data.destination };
}

/** A flight without its dates, with one date's data merged in (what the searches list). */
function listing(flight: Rec, onDate: Rec): Rec {
  return { ...Object.fromEntries(Object.entries(flight).filter(([k]) => k !== "dates")), ...onDate };
}

/** The payment checks of the two update tools: the method exists, is no certificate, and a gift card covers `price`. */
function updatePaymentProblem(w: Work, reservation: Rec, paymentId: unknown, price: unknown): string | null {
  const method = methods(w.tables.users[reservation.user_id as string])[paymentId as string];
  if (!method) return "Error: payment method not found";
  if (method.source === "certificate") return "Error: certificate cannot be used to update reservation";
  if (method.source === "gift_card" && n(method.amount) < n(price)) return "Error: gift card balance is not enough";
  return null;
}

/** Charges `price` to a gift card (other methods are charged outside the data). */
function chargeGiftCard(w: Work, reservation: Rec, paymentId: unknown, price: unknown): void {
  const userId = reservation.user_id as string;
  if (methods(w.tables.users[userId])[paymentId as string].source !== "gift_card") return;
  const owned = methods(own(w, "users", userId))[paymentId as string];
  owned.amount = pyAdd(owned.amount, price, -1);
}

export const AIRLINE_TOOLS: Record<string, ToolSpec> = {
  book_reservation: {
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
    run: (w, a) => {
      const userId = a.user_id as string;
      if (!(userId in w.tables.users)) return "Error: user not found";
      let id = "HATHAT";
      if (id in w.tables.reservations) id = "HATHAU";
      if (id in w.tables.reservations) id = "HATHAV";
      const flights = structuredClone(a.flights as Rec[]);
      const passengers = a.passengers as unknown[];
      const reservation: Rec = {
        reservation_id: id,
        user_id: userId,
        origin: a.origin,
        destination: a.destination,
        flight_type: a.flight_type,
        cabin: a.cabin,
        flights,
        passengers,
        payment_history: a.payment_methods,
        created_at: "2024-05-15T15:00:00",
        total_baggages: a.total_baggages,
        nonfree_baggages: a.nonfree_baggages,
        insurance: a.insurance,
      };
      let total: unknown = 0;
      for (const flight of flights) {
        const found = bookable(w, flight, a.cabin as string, passengers.length);
        if (typeof found === "string") return found;
        Object.assign(flight, found);
        total = pyAdd(total, times(flight.price, passengers.length));
      }
      if (a.insurance === "yes") total = pyAdd(total, 30 * passengers.length);
      total = pyAdd(total, times(a.nonfree_baggages, 50));
      const user = w.tables.users[userId];
      const payments = a.payment_methods as Rec[];
      for (const p of payments) {
        const method = methods(user)[p.payment_id as string];
        if (!method) return `Error: payment method ${String(p.payment_id)} not found`;
        if ((method.source === "gift_card" || method.source === "certificate") && n(method.amount) < n(p.amount))
          return `Error: not enough balance in payment method ${String(p.payment_id)}`;
      }
      const paid = pySum(payments.map((p) => p.amount));
      if (differs(paid, total)) return `Error: payment amount does not add up, total price is ${pyStr(total)}, but paid ${pyStr(paid)}`;
      const owned = own(w, "users", userId);
      for (const p of payments) {
        const method = methods(owned)[p.payment_id as string];
        if (method.source === "gift_card") method.amount = pyAdd(method.amount, p.amount, -1);
        else if (method.source === "certificate") delete methods(owned)[p.payment_id as string];
      }
      insert(w, "reservations", id, reservation);
      (owned.reservations as string[]).push(id);
      return dumps(reservation);
    },
  },
  calculate: { params: ["expression"], run: (_w, a) => calculate(String(a.expression)) },
  cancel_reservation: {
    params: ["reservation_id"],
    run: (w, a) => {
      const id = a.reservation_id as string;
      if (!(id in w.tables.reservations)) return "Error: reservation not found";
      const reservation = own(w, "reservations", id);
      const history = reservation.payment_history as Rec[];
      const refunds = history.map((p) => ({ payment_id: p.payment_id, amount: isFloat(p.amount) ? float(-n(p.amount)) : -n(p.amount) }));
      history.push(...refunds);
      reservation.status = "cancelled";
      return dumps(reservation);
    },
  },
  get_reservation_details: {
    params: ["reservation_id"],
    // tau-bench says "user not found" here.
    run: (w, a) =>
      (a.reservation_id as string) in w.tables.reservations
        ? dumps(w.tables.reservations[a.reservation_id as string])
        : "Error: user not found",
  },
  get_user_details: {
    params: ["user_id"],
    run: (w, a) => ((a.user_id as string) in w.tables.users ? dumps(w.tables.users[a.user_id as string]) : "Error: user not found"),
  },
  list_all_airports: { params: [], run: () => dumps(Object.fromEntries(AIRLINE_AIRPORTS)) },
  search_direct_flight: {
    params: ["origin", "destination", "date"],
    run: (w, a) => {
      const results = Object.values(flightsOf(w)).flatMap((f) => {
        const onDate = (f.dates as Record<string, Rec>)[a.date as string];
        return f.origin === a.origin && f.destination === a.destination && onDate?.status === "available" ? [listing(f, onDate)] : [];
      });
      return dumps(results);
    },
  },
  search_onestop_flight: {
    params: ["origin", "destination", "date"],
    run: (w, a) => {
      const date = a.date as string;
      const results: Rec[][] = [];
      for (const f1 of Object.values(flightsOf(w))) {
        if (f1.origin !== a.origin) continue;
        for (const f2 of Object.values(flightsOf(w))) {
          if (f2.destination !== a.destination || f1.destination !== f2.origin) continue;
          const date2 = String(f1.scheduled_arrival_time_est).includes("+1") ? `2024-05-${Number.parseInt(date.slice(-2), 10) + 1}` : date;
          if ((f1.scheduled_arrival_time_est as string) > (f2.scheduled_departure_time_est as string)) continue;
          const [d1, d2] = [f1.dates as Record<string, Rec>, f2.dates as Record<string, Rec>];
          if (!(date in d1 && date2 in d2) || d1[date].status !== "available" || d2[date2].status !== "available") continue;
          if (!(date in d2)) throw new PyKeyError(date);
          results.push([
            { ...listing(f1, d1[date]), date },
            { ...listing(f2, d2[date]), date: date2 },
          ]);
        }
      }
      return dumps(results);
    },
  },
  send_certificate: {
    params: ["user_id", "amount"],
    run: (w, a) => {
      const userId = a.user_id as string;
      if (!(userId in w.tables.users)) return "Error: user not found";
      for (const number of [3221322, 3221323, 3221324]) {
        const id = `certificate_${number}`;
        if (id in methods(w.tables.users[userId])) continue;
        methods(own(w, "users", userId))[id] = { source: "certificate", amount: a.amount, id };
        return `Certificate ${id} added to user ${userId} with amount ${pyStr(a.amount)}.`;
      }
      // The Python function falls off its loop and returns None.
      return "None";
    },
  },
  think: { params: ["thought"], run: () => "" },
  transfer_to_human_agents: { params: ["summary"], run: () => "Transfer successful" },
  update_reservation_baggages: {
    params: ["reservation_id", "total_baggages", "nonfree_baggages", "payment_id"],
    run: (w, a) => {
      const id = a.reservation_id as string;
      if (!(id in w.tables.reservations)) return "Error: reservation not found";
      const current = w.tables.reservations[id];
      const price = 50 * Math.max(0, n(a.nonfree_baggages) - n(current.nonfree_baggages));
      const problem = updatePaymentProblem(w, current, a.payment_id, price);
      if (problem) return problem;
      const reservation = own(w, "reservations", id);
      reservation.total_baggages = a.total_baggages;
      reservation.nonfree_baggages = a.nonfree_baggages;
      chargeGiftCard(w, current, a.payment_id, price);
      if (price !== 0) (reservation.payment_history as Rec[]).push({ payment_id: a.payment_id, amount: price });
      return dumps(reservation);
    },
  },
  update_reservation_flights: {
    params: ["reservation_id", "cabin", "flights", "payment_id"],
    run: (w, a) => {
      const id = a.reservation_id as string;
      if (!(id in w.tables.reservations)) return "Error: reservation not found";
      const current = w.tables.reservations[id];
      const seats = (current.passengers as unknown[]).length;
      const flights = structuredClone(a.flights as Rec[]);
      let total: unknown = 0;
      for (const flight of flights) {
        const kept = (current.flights as Rec[]).find(
          (f) => f.flight_number === flight.flight_number && f.date === flight.date && a.cabin === current.cabin,
        );
        if (kept) {
          total = pyAdd(total, times(kept.price, seats));
          Object.assign(flight, { price: kept.price, origin: kept.origin, destination: kept.destination });
          continue;
        }
        const found = bookable(w, flight, a.cabin as string, seats);
        if (typeof found === "string") return found;
        Object.assign(flight, found);
        total = pyAdd(total, times(flight.price, seats));
      }
      total = pyAdd(total, times(pySum((current.flights as Rec[]).map((f) => f.price)), seats), -1);
      const problem = updatePaymentProblem(w, current, a.payment_id, total);
      if (problem) return problem;
      chargeGiftCard(w, current, a.payment_id, total);
      const reservation = own(w, "reservations", id);
      reservation.flights = flights;
      if (n(total) !== 0) (reservation.payment_history as Rec[]).push({ payment_id: a.payment_id, amount: total });
      return dumps(reservation);
    },
  },
  update_reservation_passengers: {
    params: ["reservation_id", "passengers"],
    run: (w, a) => {
      const id = a.reservation_id as string;
      if (!(id in w.tables.reservations)) return "Error: reservation not found";
      if ((a.passengers as unknown[]).length !== (w.tables.reservations[id].passengers as unknown[]).length)
        return "Error: number of passengers does not match";
      const reservation = own(w, "reservations", id);
      reservation.passengers = a.passengers;
      return dumps(reservation);
    },
  },
};

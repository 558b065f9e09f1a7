/**
 * TravelAPI: token login, credit cards, flight quotes and bookings, insurance, budget limit (BFCL func_doc
 * `travel_booking.json`). Fares come from BFCL's route table (travel-routes.json, base USD per route) times a class
 * factor (economy 1, business 2, first 5) times 2 when the travel date's digit sum is even. Tokens, card and
 * booking ids come from Python's random.Random(seed) (PyRandom) because ground-truth calls quote them.
 */
import { readFileSync } from "node:fs";
import { PyRandom } from "../py-random";
import { longContextData, type ApiOptions } from "./long-context";
import { setInInsertionOrder } from "../../../../lib/ordered-json";
import { pythonFloatRepr } from "../../../../lib/python-json";
import { ApiError, initial, method, num, str, type ApiInstance } from "./api-types";

/** [from, to, base fare] in gorilla's base_costs order (long_context lists every fare in that order). */
const ROUTE_LIST = JSON.parse(readFileSync(new URL("./travel-routes.json", import.meta.url), "utf8")) as [string, string, number][];
const ROUTES = new Map(ROUTE_LIST.map(([from, to, base]) => [`${from}|${to}`, base]));
const AIRPORTS = [
  "RMS",
  "SBK",
  "MPC",
  "SVP",
  "SHD",
  "CDG",
  "LHR",
  "SSV",
  "OKD",
  "WLB",
  "PEK",
  "HND",
  "HKG",
  "CIA",
  "CRH",
  "ATV",
  "PHV",
  "GFD",
  "SFO",
  "LAX",
  "JFK",
  "ORD",
  "BOS",
];
const CITY_AIRPORT: Record<string, string> = {
  Rivermist: "RMS",
  Stonebrook: "SBK",
  Maplecrest: "MPC",
  Silverpine: "SVP",
  Shadowridge: "SHD",
  London: "LHR",
  Paris: "CDG",
  "Sunset Valley": "SSV",
  Oakendale: "OKD",
  Willowbend: "WLB",
  "Crescent Hollow": "CRH",
  Autumnville: "ATV",
  Pinehaven: "PHV",
  Greenfield: "GFD",
  "San Francisco": "SFO",
  "Los Angeles": "LAX",
  "New York": "JFK",
  Chicago: "ORD",
  Boston: "BOS",
  Beijing: "PEK",
  "Hong Kong": "HKG",
  Rome: "CIA",
  Tokyo: "HND",
};
const USD_RATES: Record<string, number> = { RMB: 7, EUR: 0.8, JPY: 110, GBP: 0.7, CAD: 1.3, AUD: 1.4, INR: 70, RUB: 60, BRL: 3.8, MXN: 20 };
const CLASS_FACTOR: Record<string, number> = { economy: 1, business: 2, first: 5 };

type Card = { card_number: string; expiration_date: string; cardholder_name: string; card_verification_number: number; balance: number };
type Booking = {
  card_id: string;
  travel_date: string;
  travel_from: string;
  travel_to: string;
  travel_class: string;
  travel_cost: number;
  transaction_id: string;
};

/** The fare multiplier of a class and date (gorilla: class factor × 2 when the date's digits sum to an even number). */
function fareMultiplier(date: string, travelClass: string): number {
  const factor = CLASS_FACTOR[travelClass];
  if (factor === undefined) throw new ApiError("Invalid travel class. Options are: economy, business, first.");
  const digitSum = [...date].filter((c) => c >= "0" && c <= "9").reduce((acc, c) => acc + Number(c), 0);
  return factor * (digitSum % 2 === 0 ? 2 : 1);
}

/** Routes BFCL v4 added after the version EnvTuning forked. */
const NEWER_ROUTES = new Set(["LAX|HND", "CRH|HKG", "CRH|JFK"]);
const FORK_ROUTE_LIST = ROUTE_LIST.filter(([from, to]) => !NEWER_ROUTES.has(`${from}|${to}`));

/**
 * A booking's field as gorilla reads it (`self.booking_record[booking_id]["travel_date"]`): a record without it — 44
 * of the data's initial bookings lack `travel_date` or `card_id` — raises Python's KeyError, `'travel_date'`.
 */
function bookingField(b: Booking, key: keyof Booking): unknown {
  if (!Object.hasOwn(b, key)) throw new ApiError(`'${key}'`);
  return b[key];
}

export function flightCost(from: string, to: string, date: string, travelClass: string, fork = false): number {
  const base = fork && NEWER_ROUTES.has(`${from}|${to}`) ? undefined : ROUTES.get(`${from}|${to}`);
  if (base === undefined) throw new ApiError("No available route for the given airports.");
  return base * fareMultiplier(date, travelClass);
}

function validDate(d: string): boolean {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(d);
  if (!m) return false;
  const dt = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return dt.getUTCMonth() === Number(m[2]) - 1 && dt.getUTCDate() === Number(m[3]);
}

export function createTravelApi(config: Record<string, unknown>, options: ApiOptions): ApiInstance {
  const rng = new PyRandom(typeof config.random_seed === "number" ? config.random_seed : 141053);
  const s = {
    credit_card_list: initial<Record<string, Card>>(config, "credit_card_list", {}),
    booking_record: initial<Record<string, Booking>>(config, "booking_record", {}),
    access_token: initial<string | null>(config, "access_token", null),
    token_type: initial<string | null>(config, "token_type", null),
    token_expires_in: initial<number | null>(config, "token_expires_in", null),
    token_scope: initial<string | null>(config, "token_scope", null),
    user_first_name: initial<string | null>(config, "user_first_name", null),
    user_last_name: initial<string | null>(config, "user_last_name", null),
    budget_limit: initial<number | null>(config, "budget_limit", null),
  };
  if (options.longContext) {
    // gorilla adds its long-context cards and bookings, never replacing the scenario's own.
    const long = structuredClone(longContextData());
    for (const [id, card] of Object.entries(long.CREDIT_CARD_EXTENSION)) s.credit_card_list[id] ??= card as Card;
    for (const [id, booking] of Object.entries(long.BOOKING_RECORD_EXTENSION)) s.booking_record[id] ??= booking as Booking;
  }
  const fork = options.fork === "envtuning";
  /**
   * The token checks every authenticated call makes; `extra` carries the call's own failure flag. EnvTuning's fork
   * also spends one of the token's uses on a wrong token (on a token never issued, None - 1 raises there).
   */
  const tokenError = (token: unknown, extra: Record<string, unknown> = {}) => {
    if (s.token_expires_in === 0) return { ...extra, error: "Token expired" };
    if (token !== s.access_token) {
      if (fork && s.token_expires_in === null) throw new ApiError("unsupported operand type(s) for -=: 'NoneType' and 'int'");
      if (fork) s.token_expires_in = (s.token_expires_in as number) - 1;
      return { ...extra, error: "Invalid access token" };
    }
    return null;
  };

  const methods: ApiInstance["methods"] = {
    authenticate_travel: method(["client_id", "client_secret", "refresh_token", "grant_type", "user_first_name", "user_last_name"], (a) => {
      s.token_expires_in = 2;
      s.access_token = String(rng.randint(100000, 999999));
      s.token_type = "Bearer";
      s.token_scope = str(a.grant_type, "grant_type");
      s.user_first_name = str(a.user_first_name, "user_first_name");
      s.user_last_name = str(a.user_last_name, "user_last_name");
      return { expires_in: 2, access_token: s.access_token, token_type: "Bearer", scope: s.token_scope };
    }),
    travel_get_login_status: method([], () => ({ status: !(s.token_expires_in === null || s.token_expires_in === 0) })),
    get_budget_fiscal_year: method(
      [
        ["lastModifiedAfter", null],
        ["includeRemoved", null],
      ],
      () => ({ budget_fiscal_year: "2018" }),
    ),
    register_credit_card: method(["access_token", "card_number", "expiration_date", "cardholder_name", "card_verification_number"], (a) => {
      if (s.token_expires_in === null) return { error: "Token not initialized" };
      if (fork && s.token_expires_in !== 0 && a.access_token !== s.access_token) {
        s.token_expires_in -= 1;
        return { error: "Invalid access token" };
      }
      const denied = tokenError(a.access_token);
      if (denied) return denied;
      const number = str(a.card_number, "card_number");
      if (number in s.credit_card_list) return { error: "Card already registered" };
      const id = String(rng.randint(100000000000, 999999999999));
      s.credit_card_list[id] = {
        card_number: number,
        expiration_date: str(a.expiration_date, "expiration_date"),
        cardholder_name: str(a.cardholder_name, "cardholder_name"),
        card_verification_number: num(a.card_verification_number, "card_verification_number"),
        balance: rng.randint(10000, 99999),
      };
      return { card_id: id };
    }),
    get_flight_cost: method(["travel_from", "travel_to", "travel_date", "travel_class"], (a) => {
      const [date, cls] = [str(a.travel_date, "travel_date"), str(a.travel_class, "travel_class")];
      const cost = flightCost(str(a.travel_from, "travel_from"), str(a.travel_to, "travel_to"), date, cls, fork);
      // long_context: gorilla lists the fare of every route (the asked one among them), not just the one asked for;
      // EnvTuning's fork describes each in a sentence.
      if (options.longContext && fork) {
        const line = ([from, to, base]: [string, string, number]) =>
          `From: ${from} To: ${to} Cost: ${pythonFloatRepr(base * fareMultiplier(date, cls))} USD. This is a domestica flight with a travel class of ${cls} and a travel date of ${date}.`;
        return { travel_cost_list: FORK_ROUTE_LIST.map(line) };
      }
      if (options.longContext) return { travel_cost_list: ROUTE_LIST.map(([, , base]) => base * fareMultiplier(date, cls)) };
      return { travel_cost_list: [cost] };
    }),
    get_credit_card_balance: method(["access_token", "card_id"], (a) => {
      const denied = tokenError(a.access_token);
      if (denied) return denied;
      const card = s.credit_card_list[String(a.card_id)];
      if (!card)
        return {
          error: `Card not registered. Here are a list of card_id's: [${Object.keys(s.credit_card_list)
            .map((k) => `'${k}'`)
            .join(", ")}]`,
        };
      return { card_balance: card.balance };
    }),
    book_flight: method(["access_token", "card_id", "travel_date", "travel_from", "travel_to", "travel_class"], (a) => {
      const denied = tokenError(a.access_token, { booking_status: false });
      if (denied) return denied;
      const cardId = String(a.card_id);
      const card = s.credit_card_list[cardId];
      if (!card) return { booking_status: false, error: "Card not registered" };
      if (!("balance" in card)) return { booking_status: false, error: "Balance not found" };
      const from = String(a.travel_from);
      const to = String(a.travel_to);
      const date = String(a.travel_date);
      const cls = String(a.travel_class);
      if (!AIRPORTS.includes(from)) return { booking_status: false, error: `Invalid departure airport code: ${from}` };
      if (!AIRPORTS.includes(to)) return { booking_status: false, error: `Invalid destination airport code: ${to}` };
      if (!validDate(date)) return { booking_status: false, error: "Invalid date format. Use YYYY-MM-DD." };
      if (!(cls in CLASS_FACTOR))
        return { booking_status: false, error: "Invalid travel class. Must be one of {'economy', 'business', 'first'}" };
      let cost: number;
      try {
        cost = flightCost(from, to, date, cls);
      } catch (e) {
        return { booking_status: false, error: e instanceof Error ? e.message : String(e) };
      }
      if (card.balance < cost) return { booking_status: false, error: "Insufficient funds" };
      if (s.budget_limit !== null && card.balance < s.budget_limit)
        return { booking_status: false, error: "Balance is less than budget limit" };
      card.balance -= cost;
      const bookingId = String(rng.randint(1000000, 9999999));
      const transactionId = String(rng.randint(10000000, 99999999));
      // Python keeps a dict in insertion order; JavaScript would list a numeric booking id first.
      setInInsertionOrder(s.booking_record, bookingId, {
        card_id: cardId,
        travel_date: date,
        travel_from: from,
        travel_to: to,
        travel_class: cls,
        travel_cost: cost,
        transaction_id: transactionId,
      });
      const history = options.longContext ? s.booking_record : {};
      return { booking_id: bookingId, transaction_id: transactionId, booking_status: true, booking_history: history };
    }),
    retrieve_invoice: method(["access_token", ["booking_id", null], ["insurance_id", null]], (a) => {
      const denied = tokenError(a.access_token);
      if (denied) return denied;
      const b = s.booking_record[String(a.booking_id)];
      if (!b) return { error: "Booking not found" };
      // gorilla's invoice: these fields in this order, whatever else the booking record holds (no insurance).
      return {
        invoice: {
          booking_id: String(a.booking_id),
          travel_date: bookingField(b, "travel_date"),
          travel_from: bookingField(b, "travel_from"),
          travel_to: bookingField(b, "travel_to"),
          travel_class: bookingField(b, "travel_class"),
          travel_cost: bookingField(b, "travel_cost"),
          transaction_id: bookingField(b, "transaction_id"),
        },
      };
    }),
    get_booking_history: method(
      ["access_token"],
      // The live record, as gorilla returns it: formatted at once, and a copy would lose its key order.
      (a) => tokenError(a.access_token) ?? { booking_history: s.booking_record },
    ),
    list_all_airports: method([], () => [...AIRPORTS]),
    cancel_booking: method(["access_token", "booking_id"], (a) => {
      const denied = tokenError(a.access_token, { cancel_status: false });
      if (denied) return denied;
      const b = s.booking_record[String(a.booking_id)];
      if (!b) return { cancel_status: false, error: "Booking not found" };
      const cardId = bookingField(b, "card_id") as string;
      const cost = bookingField(b, "travel_cost") as number;
      const card = s.credit_card_list[cardId];
      if (!card) throw new ApiError(`'${cardId}'`);
      card.balance += cost;
      delete s.booking_record[String(a.booking_id)];
      return { cancel_status: true };
    }),
    compute_exchange_rate: method(["base_currency", "target_currency", "value"], (a) => {
      const base = String(a.base_currency);
      const target = String(a.target_currency);
      const value = num(a.value, "value");
      if (base === "USD" && target in USD_RATES) return { exchanged_value: value * USD_RATES[target] };
      if (target === "USD" && base in USD_RATES) return { exchanged_value: Math.round((value / USD_RATES[base]) * 100) / 100 };
      throw new ApiError("No available exchange rate for the given currencies.");
    }),
    verify_traveler_information: method(["first_name", "last_name", "date_of_birth", "passport_number"], (a) => {
      if (s.user_first_name !== a.first_name || s.user_last_name !== a.last_name) {
        return {
          verification_status: false,
          verification_failure: `Cannot book flight information for another user.Expected ${String(s.user_first_name)} ${String(s.user_last_name)}, got ${String(a.first_name)} ${String(a.last_name)}`,
        };
      }
      const dob = String(a.date_of_birth);
      if (!validDate(dob))
        return { verification_status: false, verification_failure: "Invalid date of birth format. Please use YYYY-MM-DD." };
      const [y, m, d] = dob.split("-").map(Number);
      const now = new Date();
      const age = now.getFullYear() - y - (now.getMonth() + 1 < m || (now.getMonth() + 1 === m && now.getDate() < d) ? 1 : 0);
      if (age < 18) return { verification_status: false, verification_failure: "Traveler must be at least 18 years old." };
      if (!String(a.passport_number).startsWith("US"))
        return { verification_status: false, verification_failure: "Passport must be issued by the United States." };
      return { verification_status: true };
    }),
    set_budget_limit: method(["access_token", "budget_limit"], (a) => {
      const denied = tokenError(a.access_token);
      if (denied) return denied;
      s.budget_limit = num(a.budget_limit, "budget_limit");
      return { budget_limit: s.budget_limit };
    }),
    get_nearest_airport_by_city: method(["location"], (a) => ({ nearest_airport: CITY_AIRPORT[String(a.location)] ?? "Unknown" })),
    purchase_insurance: method(["access_token", "insurance_type", "booking_id", "insurance_cost", "card_id"], (a) => {
      const denied = tokenError(a.access_token, { insurance_status: false });
      if (denied) return denied;
      const cost = num(a.insurance_cost, "insurance_cost");
      if (s.budget_limit !== null && s.budget_limit < cost) return { insurance_status: false, error: "Exceeded budget limit" };
      if (!(String(a.booking_id) in s.booking_record)) return { insurance_status: false, error: "Booking not found" };
      const card = s.credit_card_list[String(a.card_id)];
      if (!card) return { insurance_status: false, error: "Credit card not registered" };
      card.balance -= cost;
      return { insurance_id: String(rng.randint(100000000, 999999999)), insurance_status: true };
    }),
    contact_customer_support: method(["booking_id", "message"], (a) =>
      String(a.booking_id) in s.booking_record
        ? {
            customer_support_message: fork
              ? `Thank you for contacting customer support. We will get back to you shortly. ${str(a.message, "message")}`
              : "Thank you for contacting customer support. Your message has been received and we will get back to you shortly.",
          }
        : { error: "Booking not found" },
    ),
    get_all_credit_cards: method([], () => ({ credit_card_list: s.credit_card_list })),
  };
  if (fork) {
    // EnvTuning's fork: a booking costs what the caller says it costs, unchecked; no booking history.
    delete methods.get_booking_history;
    methods.book_flight = method(
      ["access_token", "card_id", "travel_date", "travel_from", "travel_to", "travel_class", "travel_cost"],
      (a) => {
        const denied = tokenError(a.access_token, { booking_status: false });
        if (denied) return denied;
        const cardId = String(a.card_id);
        const card = Object.hasOwn(s.credit_card_list, cardId) ? s.credit_card_list[cardId] : undefined;
        if (!card) return { booking_status: false, error: "Card not registered" };
        if (!("balance" in card)) return { booking_status: false, error: "Balance not found" };
        const cost = num(a.travel_cost, "travel_cost");
        if (card.balance < cost) return { booking_status: false, error: "Insufficient funds" };
        if (s.budget_limit !== null && card.balance < s.budget_limit)
          return { booking_status: false, error: "Balance is less than budget limit" };
        card.balance -= cost;
        const bookingId = String(rng.randint(1000000, 9999999));
        const transactionId = String(rng.randint(10000000, 99999999));
        setInInsertionOrder(s.booking_record, bookingId, {
          card_id: cardId,
          travel_date: a.travel_date as string,
          travel_from: a.travel_from as string,
          travel_to: a.travel_to as string,
          travel_class: a.travel_class as string,
          travel_cost: cost,
          transaction_id: transactionId,
        });
        const history = options.longContext ? s.booking_record : {};
        return { booking_id: bookingId, transaction_id: transactionId, booking_status: true, booking_history: history };
      },
    );
  }
  return { className: "TravelAPI", state: () => s, methods };
}

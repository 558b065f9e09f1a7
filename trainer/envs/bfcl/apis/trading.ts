/**
 * TradingBot: stock quotes, orders, a watchlist and a funded account behind a login (BFCL func_doc
 * `trading_bot.json`). Market time is fixed at 2024-09-01 10:30; deposit/withdrawal timestamps are drawn within the
 * following day from Python's random.Random(seed), reproduced by PyRandom.
 */
import { longContextData, type ApiOptions } from "./long-context";
import { PyRandom } from "../py-random";
import { ApiError, initial, list, method, num, str, type ApiInstance } from "./api-types";
import { pyStr, pyTypeName } from "./py-values";
import { pythonKeyOrder, setInInsertionOrder } from "../../../../lib/ordered-json";
import { pythonRepr } from "../../../../lib/python-json";

type Order = { id: number; order_type: string; symbol: string; price: number; amount: number; status: string };
/** The public attributes gorilla's state checker compares. */
interface TradingState {
  orders: Record<string, Order>;
  account_info: { account_id: number; balance: number; binding_card: number };
  authenticated: boolean;
  market_status: string;
  order_counter: number;
  stocks: Record<string, Stock>;
  watch_list: string[];
  transaction_history: { type: string; amount: number; timestamp: string }[];
}
type Stock = { price: number; percent_change: number; volume: number; "MA(5)": number; "MA(20)": number };

const q = (price: number, percent_change: number, volume: number, ma5: number, ma20: number): Stock => ({
  price,
  percent_change,
  volume,
  "MA(5)": ma5,
  "MA(20)": ma20,
});
/** BFCL's default market, used when a task's config leaves `stocks` out. */
const DEFAULT_STOCKS: Record<string, Stock> = {
  AAPL: q(227.16, 0.17, 2.552, 227.11, 227.09),
  GOOG: q(2840.34, 0.24, 1.123, 2835.67, 2842.15),
  TSLA: q(667.92, -0.12, 1.654, 671.15, 668.2),
  MSFT: q(310.23, 0.09, 3.234, 309.88, 310.11),
  NVDA: q(220.34, 0.34, 1.234, 220.45, 220.67),
  ALPH: q(1320.45, -0.08, 1.567, 1321.12, 1325.78),
  OMEG: q(457.23, 0.12, 2.345, 456.78, 458.12),
  QUAS: q(725.89, -0.03, 1.789, 726.45, 728.0),
  NEPT: q(88.34, 0.19, 0.654, 88.21, 88.67),
  SYNX: q(345.67, 0.11, 2.112, 345.34, 346.12),
  ZETA: q(22.09, -0.05, 0.789, 22.12, 22.34),
};
const DEFAULT_ORDERS: Record<string, Order> = {
  "12345": { id: 12345, order_type: "Buy", symbol: "AAPL", price: 210.65, amount: 10, status: "Completed" },
  "12446": { id: 12446, order_type: "Sell", symbol: "GOOG", price: 2840.56, amount: 5, status: "Pending" },
};
const SYMBOLS: Record<string, string> = {
  Apple: "AAPL",
  Google: "GOOG",
  Tesla: "TSLA",
  Microsoft: "MSFT",
  Nvidia: "NVDA",
  "Zeta Corp": "ZETA",
  "Alpha Tech": "ALPH",
  "Omega Industries": "OMEG",
  "Quasar Ltd.": "QUAS",
  "Neptune Systems": "NEPT",
  "Synex Solutions": "SYNX",
  Amazon: "AMZN",
  Gorilla: "GORI",
};
const SECTORS: Record<string, string[]> = { Technology: ["AAPL", "GOOG", "MSFT", "NVDA"], Automobile: ["TSLA", "F", "GM"] };
const MARKET_TIME_UTC = Date.UTC(2024, 8, 1, 10, 30);

/** gorilla's TradingBot turns an order key that str.isdigit() accepts into an int; other keys stay strings. */
const DIGITS = /^\d+$/;

/** The orders as gorilla keys them (digit keys as ints, written here as their decimal text), in their source order. */
function pythonOrderKeys(raw: Record<string, Order>): Record<string, Order> {
  const orders: Record<string, Order> = {};
  for (const k of pythonKeyOrder(raw)) setInInsertionOrder(orders, DIGITS.test(k) ? String(Number(k)) : k, raw[k]);
  return orders;
}

/** The key `order_id in self.orders` finds: an int (or integral float) finds an int key, a str a str key. */
function orderKey(orders: Record<string, Order>, id: unknown): string | undefined {
  if (Array.isArray(id) || (id !== null && typeof id === "object")) throw new ApiError(`unhashable type: '${pyTypeName(id)}'`);
  const key =
    typeof id === "number" || typeof id === "boolean" ? String(Number(id)) : typeof id === "string" && !DIGITS.test(id) ? id : undefined;
  return key !== undefined && key in orders && DIGITS.test(key) === (typeof id !== "string") ? key : undefined;
}

/** How Python prints a key in a list: an int bare, a str quoted. */
const keyRepr = (k: string) => (DIGITS.test(k) ? k : pythonRepr(k));

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}

export function createTradingBot(config: Record<string, unknown>, options: ApiOptions): ApiInstance {
  const fork = options.fork === "envtuning";
  // long_context: gorilla pads these answers with long lists (moving averages, watch list, history, sectors).
  const long = options.longContext ? longContextData() : null;
  const rng = new PyRandom(typeof config.random_seed === "number" ? config.random_seed : 1053520);
  const s: TradingState = {
    orders: pythonOrderKeys(initial<Record<string, Order>>(config, "orders", DEFAULT_ORDERS)),
    account_info: initial(config, "account_info", { account_id: 12345, balance: 10000.0, binding_card: 1974202140965533 }),
    authenticated: initial(config, "authenticated", false),
    market_status: initial(config, "market_status", "Closed"),
    order_counter: initial(config, "order_counter", 12446),
    stocks: initial<Record<string, Stock>>(config, "stocks", DEFAULT_STOCKS),
    watch_list: initial<string[]>(config, "watch_list", ["NVDA"]),
    transaction_history: initial<TradingState["transaction_history"]>(config, "transaction_history", []),
  };
  // Python: randint(start, start + 1 day) seconds; only the offset matters once formatted back in the same zone.
  const txTime = () => stamp(MARKET_TIME_UTC + rng.randint(0, 86400) * 1000);
  const needAuth = (what: string) => (s.authenticated ? null : { error: `User not authenticated. Please log in to ${what}.` });
  const parseDay = (d: string) => {
    const t = Date.parse(`${d}T00:00:00Z`);
    if (Number.isNaN(t)) throw new Error(`time data '${d}' does not match format '%Y-%m-%d'`);
    return t;
  };

  const methods: ApiInstance["methods"] = {
    get_current_time: method([], () => ({ current_time: "10:30 AM" })),
    get_symbol_by_name: method(["name"], (a) => {
      const name = String(a.name);
      // EnvTuning's fork predates gorilla's "Gorilla" entry.
      const known = Object.hasOwn(SYMBOLS, name) && !(fork && name === "Gorilla");
      return { symbol: known ? SYMBOLS[name] : "Stock not found" };
    }),
    get_stock_info: method(["symbol"], (a) => {
      const stock = s.stocks[String(a.symbol)];
      if (!stock) return { error: `Stock with symbol '${String(a.symbol)}' not found.` };
      return long ? { ...stock, "MA(5)": long.MA_5_EXTENSION, "MA(20)": long.MA_20_EXTENSION } : stock;
    }),
    get_order_details: method(["order_id"], (a) => {
      const key = orderKey(s.orders, a.order_id);
      const order = key === undefined ? undefined : s.orders[key];
      if (!order)
        return {
          error: `Order with ID ${pyStr(a.order_id)} not found.Here is the list of orders_id: [${pythonKeyOrder(s.orders).map(keyRepr).join(", ")}]`,
        };
      if (!long) return order;
      const metadata = Object.fromEntries(
        Object.entries(long.ORDER_DETAIL_EXTENSION).map(([k, text]) => [k, text.replaceAll("{symbol}", order.symbol)]),
      );
      return { ...order, metadata };
    }),
    cancel_order: method(["order_id"], (a) => {
      const key = orderKey(s.orders, a.order_id);
      const o = key === undefined ? undefined : s.orders[key];
      if (!o) return { error: `Order with ID ${pyStr(a.order_id)} not found.` };
      if (o.status === "Completed") return { error: `Can't cancel order ${pyStr(a.order_id)}. Order is already completed.` };
      o.status = "Cancelled";
      return { order_id: a.order_id, status: "Cancelled" };
    }),
    place_order: method(["order_type", "symbol", "price", "amount"], (a) => {
      const denied = needAuth("place an order");
      if (denied) return denied;
      const symbol = str(a.symbol, "symbol");
      if (!(symbol in s.stocks)) return { error: `Invalid stock symbol: ${symbol}` };
      const price = num(a.price, "price");
      const amount = num(a.amount, "amount");
      if (price <= 0 || amount <= 0) return { error: "Price and amount must be positive values." };
      const type = str(a.order_type, "order_type");
      // BFCL v4's funds check; EnvTuning's fork places the order whatever the balance.
      if (!fork && type.toLowerCase() === "buy" && price * Math.trunc(amount) > s.account_info.balance) {
        return {
          error: `Insufficient funds: required $${(price * Math.trunc(amount)).toFixed(2)} but only $${s.account_info.balance.toFixed(2)} available.`,
        };
      }
      const id = s.order_counter;
      setInInsertionOrder(s.orders, String(id), { id, order_type: type, symbol, price, amount, status: "Open" });
      s.order_counter += 1;
      return { order_id: id, order_type: type, status: "Pending", price, amount };
    }),
    withdraw_funds: method(["amount"], (a) => {
      const denied = needAuth("make a transaction");
      if (denied) return denied;
      if (s.market_status !== "Open") return { error: "Market is closed. Transactions are not allowed." };
      const amount = num(a.amount, "amount");
      if (amount <= 0) return { error: "Transaction amount must be positive." };
      if (amount > s.account_info.balance) return { error: "Insufficient funds for withdrawal." };
      s.account_info.balance -= amount;
      s.transaction_history.push({ type: "withdrawal", amount, timestamp: txTime() });
      return { status: "Withdrawal successful", new_balance: s.account_info.balance };
    }),
    get_account_info: method([], () => needAuth("view account information") ?? s.account_info),
    trading_login: method(["username", "password"], () => {
      if (s.authenticated) return { status: "Already logged in" };
      s.authenticated = true;
      return { status: "Logged in successfully" };
    }),
    trading_get_login_status: method([], () => ({ status: Boolean(s.authenticated) })),
    trading_logout: method([], () => {
      if (!s.authenticated) return { status: "No user is currently logged in" };
      s.authenticated = false;
      return { status: "Logged out successfully" };
    }),
    fund_account: method(["amount"], (a) => {
      const denied = needAuth("fund the account");
      if (denied) return denied;
      const amount = num(a.amount, "amount");
      if (amount <= 0) return { error: "Funding amount must be positive." };
      s.account_info.balance += amount;
      s.transaction_history.push({ type: "deposit", amount, timestamp: txTime() });
      return { status: "Account funded successfully", new_balance: s.account_info.balance };
    }),
    remove_stock_from_watchlist: method(["symbol"], (a) => {
      const denied = needAuth("modify the watchlist");
      if (denied) return denied;
      const i = s.watch_list.indexOf(String(a.symbol));
      if (i < 0) return { error: `Stock ${String(a.symbol)} not found in watchlist.` };
      s.watch_list.splice(i, 1);
      return { status: `Stock ${String(a.symbol)} removed from watchlist successfully.` };
    }),
    get_watchlist: method([], () => {
      if (!s.authenticated) return ["Error: User not authenticated. Please log in to view the watchlist."];
      // gorilla returns a bare list here in long_context, a dict otherwise.
      return long ? [...s.watch_list, ...long.WATCH_LIST_EXTENSION] : { watchlist: s.watch_list };
    }),
    get_order_history: method([], () =>
      s.authenticated
        ? { history: pythonKeyOrder(s.orders).map((k) => (DIGITS.test(k) ? Number(k) : k)) }
        : [{ error: "User not authenticated. Please log in to view order history." }],
    ),
    get_transaction_history: method(
      [
        ["start_date", null],
        ["end_date", null],
      ],
      (a) => {
        if (!s.authenticated) return [{ error: "User not authenticated. Please log in to view transaction history." }];
        const start = a.start_date ? parseDay(String(a.start_date)) : -Infinity;
        const end = a.end_date ? parseDay(String(a.end_date)) : Infinity;
        const inRange = s.transaction_history.filter((t) => {
          const at = Date.parse(`${t.timestamp.replace(" ", "T")}Z`);
          return start <= at && at <= end;
        });
        return { transaction_history: long ? [...inRange, ...long.TRANSACTION_HISTORY_EXTENSION] : inRange };
      },
    ),
    get_available_stocks: method(["sector"], (a) => {
      const sectors: Record<string, string[]> = long
        ? {
            Technology: [...SECTORS.Technology, ...long.TECHNOLOGY_EXTENSION],
            Automobile: [...SECTORS.Automobile, ...long.AUTOMOBILE_EXTENSION],
          }
        : SECTORS;
      return { stock_list: sectors[String(a.sector)] ?? [] };
    }),
    filter_stocks_by_price: method(["stocks", "min_price", "max_price"], (a) => {
      const price = (sym: string) => s.stocks[sym]?.price ?? 0;
      return {
        filtered_stocks: list<string>(a.stocks, "stocks").filter(
          (x) => price(x) >= num(a.min_price, "min_price") && price(x) <= num(a.max_price, "max_price"),
        ),
      };
    }),
    add_to_watchlist: method(["stock"], (a) => {
      const sym = String(a.stock);
      if (!s.watch_list.includes(sym) && sym in s.stocks) s.watch_list.push(sym);
      return fork ? { symbol: s.watch_list } : { watchlist: s.watch_list };
    }),
    notify_price_change: method(["stocks", "threshold"], (a) => {
      const changed = list<string>(a.stocks, "stocks").filter(
        (x) => x in s.stocks && Math.abs(s.stocks[x].percent_change) >= num(a.threshold, "threshold"),
      );
      return {
        notification: changed.length
          ? `Stocks ${changed.join(", ")} have significant price changes.`
          : "No significant price changes in the selected stocks.",
      };
    }),
  };
  if (fork) {
    delete methods.withdraw_funds;
    Object.assign(methods, envTuningTradingMethods(s, needAuth, txTime));
  }
  return { className: "TradingBot", state: () => s, methods };
}

/**
 * The functions EnvTuning's fork has in place of BFCL v4's withdraw_funds: make_transaction (a deposit or a withdrawal,
 * on the logged-in account's id), and update_stock_price / update_market_status, which BFCL v4 dropped.
 */
function envTuningTradingMethods(
  s: TradingState,
  needAuth: (what: string) => { error: string } | null,
  txTime: () => string,
): ApiInstance["methods"] {
  return {
    make_transaction: method(["account_id", "xact_type", "amount"], (a) => {
      const denied = needAuth("make a transaction");
      if (denied) return denied;
      if (s.market_status !== "Open") return { error: "Market is closed. Transactions are not allowed." };
      if (a.account_id !== s.account_info.account_id) return { error: `Account with ID ${pyStr(a.account_id)} not found.` };
      const amount = num(a.amount, "amount");
      if (amount <= 0) return { error: "Transaction amount must be positive." };
      if (a.xact_type === "deposit") {
        s.account_info.balance += amount;
        s.transaction_history.push({ type: "deposit", amount, timestamp: txTime() });
        return { status: "Deposit successful", new_balance: s.account_info.balance };
      }
      if (a.xact_type === "withdrawal") {
        if (amount > s.account_info.balance) return { error: "Insufficient funds for withdrawal." };
        s.account_info.balance -= amount;
        s.transaction_history.push({ type: "withdrawal", amount, timestamp: txTime() });
        return { status: "Withdrawal successful", new_balance: s.account_info.balance };
      }
      return { error: "Invalid transaction type. Use 'deposit' or 'withdrawal'." };
    }),
    update_stock_price: method(["symbol", "new_price"], (a) => {
      const stock = Object.hasOwn(s.stocks, String(a.symbol)) ? s.stocks[String(a.symbol)] : undefined;
      if (!stock) return { error: `Stock with symbol '${pyStr(a.symbol)}' not found.` };
      const price = num(a.new_price, "new_price");
      if (price <= 0) return { error: "New price must be a positive value." };
      const old = stock.price;
      stock.price = price;
      stock.percent_change = ((price - old) / old) * 100;
      return { symbol: a.symbol, old_price: old, new_price: price };
    }),
    update_market_status: method(["current_time_str"], (a) => {
      const text = str(a.current_time_str, "current_time_str");
      // datetime.strptime(text, "%I:%M %p"): a 12-hour clock, AM / PM in either case.
      const m = /^(\d{1,2}):(\d{1,2}) (AM|PM)$/i.exec(text);
      const [hour, minute] = m ? [Number(m[1]), Number(m[2])] : [0, -1];
      if (!m || hour < 1 || hour > 12 || minute > 59) throw new ApiError(`time data ${pythonRepr(text)} does not match format '%I:%M %p'`);
      const minutes = ((hour % 12) + (m[3].toUpperCase() === "PM" ? 12 : 0)) * 60 + minute;
      s.market_status = minutes >= 9 * 60 + 30 && minutes <= 16 * 60 ? "Open" : "Closed";
      return { status: s.market_status };
    }),
  };
}

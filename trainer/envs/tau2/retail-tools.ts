/**
 * The τ²-bench retail tools (tau2-bench `domains/retail/tools.py`), behaving as τ²'s do, quirks included, because a
 * policy trained here is evaluated there: the same checks in the same order, the same error messages (the agent
 * sees "Error: ..."), money rounded where τ² rounds it (and left unrounded where it does not), and results printed
 * as τ² prints them (Python's json.dumps of the pydantic model). tests/fixtures/parity/tau2-retail.json holds τ²'s
 * own outputs and database hashes for every retail task's gold actions; retail-parity.test.ts replays them here.
 * Write tools mutate the episode's private database.
 */
import type { PyType } from "../../../lib/python-json";
import { pythonJsonDumps, pythonRound } from "../../../lib/python-json";
import {
  ownRecord,
  type Address,
  type PaymentMethod,
  type Product,
  type RetailDb,
  type RetailOrder,
  type RetailUser,
  type Variant,
  type WorkingDb,
} from "./retail-db";
import { Order, Product as ProductModel, User, Variant as VariantModel } from "./retail-models";
import { tau2CalculateTool } from "../../../lib/python-arithmetic";
import { pythonSignatureError, type ToolOutcome } from "./domain";

export class RetailToolError extends Error {}

export type ToolKind = "read" | "write" | "generic";

function fail(message: string): never {
  throw new RetailToolError(message);
}

/** Python's round(x, 2), which τ² applies to gift-card balances and exchange differences (not to payments). */
const cents = (x: number): number => pythonRound(x, 2);

// τ² passes arguments to Python untyped; a wrong JSON type is a clear error here (τ² would fail further in).
function asString(args: Record<string, unknown>, key: string): string {
  const v = args[key];
  if (typeof v === "string") return v;
  return fail(`Invalid argument "${key}": expected a string, got ${JSON.stringify(v)}`);
}

function asStringList(args: Record<string, unknown>, key: string): string[] {
  const v = args[key];
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
    return fail(`Invalid argument "${key}": expected a list of id strings, got ${JSON.stringify(v)}`);
  }
  return v as string[];
}

function countOf(list: string[], x: string): number {
  return list.filter((y) => y === x).length;
}

/** Record access for one tool call; write tools get records owned by the episode's copy (safe to mutate). */
class RetailState {
  readonly db: RetailDb;
  constructor(
    private readonly w: WorkingDb,
    private readonly writable: boolean,
  ) {
    this.db = w.db;
  }

  order(id: string): RetailOrder {
    const rec = this.writable ? ownRecord(this.w, "orders", id) : this.db.orders[id];
    return rec ?? fail("Order not found");
  }
  user(id: string): RetailUser {
    const rec = this.writable ? ownRecord(this.w, "users", id) : this.db.users[id];
    return rec ?? fail("User not found");
  }
  product(id: string): Product {
    return this.db.products[id] ?? fail("Product not found");
  }
  variant(productId: string, itemId: string): Variant {
    return this.product(productId).variants[itemId] ?? fail("Variant not found");
  }
  item(itemId: string): Variant {
    for (const p of Object.values(this.db.products)) if (p.variants[itemId]) return p.variants[itemId];
    return fail("Item not found");
  }
  payment(userId: string, paymentId: string): PaymentMethod {
    return this.user(userId).payment_methods[paymentId] ?? fail("Payment method not found");
  }
}

function address(args: Record<string, unknown>): Address {
  return {
    address1: asString(args, "address1"),
    address2: typeof args.address2 === "string" ? args.address2 : "",
    city: asString(args, "city"),
    state: asString(args, "state"),
    country: asString(args, "country"),
    zip: asString(args, "zip"),
  };
}

/** Each old item must be in the order as many times as it is listed (duplicates allowed). */
function checkItemsInOrder(order: RetailOrder, itemIds: string[], message: (id: string) => string): void {
  const inOrder = order.items.map((i) => i.item_id);
  for (const id of itemIds) if (countOf(itemIds, id) > countOf(inOrder, id)) fail(message(id));
}

/**
 * τ²'s price difference of swapping items for variants of the same product: each old item is the order's first
 * item with that id, each new one must be an available variant. Summed unrounded, left to right, as τ² sums it.
 * Returns the last variant too: τ²'s item modification gives every swapped item that variant's price and options.
 */
function priceDifference(s: RetailState, order: RetailOrder, itemIds: string[], newItemIds: string[], forbidSame: boolean) {
  let diff = 0;
  let lastVariant: Variant | undefined;
  itemIds.forEach((id, k) => {
    const newId = newItemIds[k];
    if (forbidSame && id === newId) fail("The new item id should be different from the old item id");
    const item = order.items.find((i) => i.item_id === id) ?? fail(`Item ${id} not found`);
    const variant = s.variant(item.product_id, newId);
    if (!variant.available) fail(`New item ${newId} not found or available`);
    diff += variant.price - item.price;
    lastVariant = variant;
  });
  return { diff, lastVariant };
}

type ToolFn = (s: RetailState, args: Record<string, unknown>) => unknown;

interface RetailTool {
  kind: ToolKind;
  /** The Python signature's parameters, in order (for Python's missing/unexpected-argument errors). */
  params: readonly string[];
  /** The pydantic model τ² returns; results without one are strings, shown as they are. */
  returns?: PyType;
  run: ToolFn;
}

const ADDRESS_PARAMS = ["address1", "address2", "city", "state", "country", "zip"] as const;

const TOOLS: Record<string, RetailTool> = {
  calculate: {
    kind: "generic",
    params: ["expression"],
    run: (_s, a) => tau2CalculateTool(asString(a, "expression"), fail),
  },
  find_user_id_by_email: {
    kind: "read",
    params: ["email"],
    run: (s, a) => {
      const email = asString(a, "email").toLowerCase();
      const u = Object.values(s.db.users).find((x) => x.email.toLowerCase() === email);
      return u ? u.user_id : fail("User not found");
    },
  },
  find_user_id_by_name_zip: {
    kind: "read",
    params: ["first_name", "last_name", "zip"],
    run: (s, a) => {
      const first = asString(a, "first_name").toLowerCase();
      const last = asString(a, "last_name").toLowerCase();
      const zip = asString(a, "zip");
      const u = Object.values(s.db.users).find(
        (x) => x.name.first_name.toLowerCase() === first && x.name.last_name.toLowerCase() === last && x.address.zip === zip,
      );
      return u ? u.user_id : fail("User not found");
    },
  },
  get_user_details: { kind: "read", params: ["user_id"], returns: User, run: (s, a) => s.user(asString(a, "user_id")) },
  get_order_details: { kind: "read", params: ["order_id"], returns: Order, run: (s, a) => s.order(asString(a, "order_id")) },
  get_product_details: { kind: "read", params: ["product_id"], returns: ProductModel, run: (s, a) => s.product(asString(a, "product_id")) },
  get_item_details: { kind: "read", params: ["item_id"], returns: VariantModel, run: (s, a) => s.item(asString(a, "item_id")) },
  list_all_product_types: {
    kind: "read",
    params: [],
    // τ² returns this one already as a string: json.dumps({name: product_id}, sort_keys=True).
    run: (s) => {
      const byName: Record<string, string> = {};
      for (const p of Object.values(s.db.products)) byName[p.name] = p.product_id;
      return pythonJsonDumps(byName, { dict: "str" }, { sortKeys: true });
    },
  },
  cancel_pending_order: {
    kind: "write",
    params: ["order_id", "reason"],
    returns: Order,
    run: (s, a) => {
      const order = s.order(asString(a, "order_id"));
      if (order.status !== "pending") fail("Non-pending order cannot be cancelled");
      const reason = asString(a, "reason");
      if (reason !== "no longer needed" && reason !== "ordered by mistake") fail("Invalid reason");
      const refunds = order.payment_history.map((p) => ({
        transaction_type: "refund" as const,
        amount: p.amount,
        payment_method_id: p.payment_method_id,
      }));
      for (const p of order.payment_history) {
        const method = s.payment(order.user_id, p.payment_method_id);
        // Gift cards are refunded at once; cards and PayPal in 5-7 business days (outside the database).
        if (method.source === "gift_card") method.balance = cents((method.balance ?? 0) + p.amount);
      }
      order.status = "cancelled";
      order.cancel_reason = reason;
      order.payment_history.push(...refunds);
      return order;
    },
  },
  modify_pending_order_address: {
    kind: "write",
    params: ["order_id", ...ADDRESS_PARAMS],
    returns: Order,
    run: (s, a) => {
      const order = s.order(asString(a, "order_id"));
      if (!order.status.includes("pending")) fail("Non-pending order cannot be modified");
      order.address = address(a);
      return order;
    },
  },
  modify_pending_order_payment: {
    kind: "write",
    params: ["order_id", "payment_method_id"],
    returns: Order,
    run: (s, a) => {
      const order = s.order(asString(a, "order_id"));
      if (!order.status.includes("pending")) fail("Non-pending order cannot be modified");
      const newId = asString(a, "payment_method_id");
      const method = s.payment(order.user_id, newId);
      if (order.payment_history.length !== 1 || order.payment_history[0].transaction_type !== "payment") {
        fail("There should be exactly one payment for a pending order");
      }
      const first = order.payment_history[0];
      if (first.payment_method_id === newId) fail("The new payment method should be different from the current one");
      const amount = first.amount;
      if (method.source === "gift_card" && (method.balance ?? 0) < amount) fail("Insufficient gift card balance to pay for the order");
      order.payment_history.push(
        { transaction_type: "payment", amount, payment_method_id: newId },
        { transaction_type: "refund", amount, payment_method_id: first.payment_method_id },
      );
      if (method.source === "gift_card") method.balance = cents((method.balance ?? 0) - amount);
      const old = s.payment(order.user_id, first.payment_method_id);
      if (old.source === "gift_card") old.balance = cents((old.balance ?? 0) + amount);
      return order;
    },
  },
  modify_pending_order_items: {
    kind: "write",
    params: ["order_id", "item_ids", "new_item_ids", "payment_method_id"],
    returns: Order,
    run: (s, a) => {
      const order = s.order(asString(a, "order_id"));
      // Strict: an order whose items were already modified ("pending (item modified)") cannot be modified again.
      if (order.status !== "pending") fail("Non-pending order cannot be modified");
      const itemIds = asStringList(a, "item_ids");
      const newItemIds = asStringList(a, "new_item_ids");
      checkItemsInOrder(order, itemIds, (id) => `${id} not found`);
      if (itemIds.length !== newItemIds.length) fail("The number of items to be exchanged should match");
      const { diff, lastVariant } = priceDifference(s, order, itemIds, newItemIds, true);
      const payId = asString(a, "payment_method_id");
      const method = s.payment(order.user_id, payId);
      if (method.source === "gift_card" && (method.balance ?? 0) < diff) fail("Insufficient gift card balance to pay for the new item");
      // τ² records the payment unrounded (only the gift-card balance is rounded).
      order.payment_history.push({ transaction_type: diff > 0 ? "payment" : "refund", amount: Math.abs(diff), payment_method_id: payId });
      if (method.source === "gift_card") method.balance = cents((method.balance ?? 0) - diff);
      // As τ²: each pair rewrites the order's first item still carrying the old id, with the new id but the price
      // and options of the last pair's variant (so with several items the listed order changes the result).
      for (const [k, id] of itemIds.entries()) {
        const item = order.items.find((i) => i.item_id === id) ?? fail(`Item ${id} not found`);
        item.item_id = newItemIds[k];
        item.price = lastVariant!.price;
        item.options = { ...lastVariant!.options };
      }
      order.status = "pending (item modified)";
      return order;
    },
  },
  modify_user_address: {
    kind: "write",
    params: ["user_id", ...ADDRESS_PARAMS],
    returns: User,
    run: (s, a) => {
      const user = s.user(asString(a, "user_id"));
      user.address = address(a);
      return user;
    },
  },
  exchange_delivered_order_items: {
    kind: "write",
    params: ["order_id", "item_ids", "new_item_ids", "payment_method_id"],
    returns: Order,
    run: (s, a) => {
      const order = s.order(asString(a, "order_id"));
      if (order.status !== "delivered") fail("Non-delivered order cannot be exchanged");
      const itemIds = asStringList(a, "item_ids");
      const newItemIds = asStringList(a, "new_item_ids");
      checkItemsInOrder(order, itemIds, (id) => `Number of ${id} not found.`);
      if (itemIds.length !== newItemIds.length) fail("The number of items to be exchanged should match.");
      const diff = cents(priceDifference(s, order, itemIds, newItemIds, false).diff);
      const payId = asString(a, "payment_method_id");
      const method = s.payment(order.user_id, payId);
      if (method.source === "gift_card" && (method.balance ?? 0) < diff)
        fail("Insufficient gift card balance to pay for the price difference");
      order.status = "exchange requested";
      order.exchange_items = [...itemIds].sort();
      order.exchange_new_items = [...newItemIds].sort();
      order.exchange_payment_method_id = payId;
      order.exchange_price_difference = diff;
      return order;
    },
  },
  return_delivered_order_items: {
    kind: "write",
    params: ["order_id", "item_ids", "payment_method_id"],
    returns: Order,
    run: (s, a) => {
      const order = s.order(asString(a, "order_id"));
      if (order.status !== "delivered") fail("Non-delivered order cannot be returned");
      const payId = asString(a, "payment_method_id");
      const method = s.payment(order.user_id, payId);
      if (method.source !== "gift_card" && payId !== order.payment_history[0]?.payment_method_id) {
        fail("Payment method should be the original payment method");
      }
      const itemIds = asStringList(a, "item_ids");
      checkItemsInOrder(order, itemIds, () => "Some item not found");
      order.status = "return requested";
      order.return_items = [...itemIds].sort();
      order.return_payment_method_id = payId;
      return order;
    },
  },
  transfer_to_human_agents: {
    kind: "generic",
    params: ["summary"],
    run: () => "Transfer successful",
  },
};

export const RETAIL_TOOL_NAMES: readonly string[] = Object.keys(TOOLS);

export function retailToolKind(name: string): ToolKind | undefined {
  return TOOLS[name]?.kind;
}

/** Runs one tool call against the episode's copy (write tools mutate it). Never throws for agent mistakes. */
export function runRetailTool(w: WorkingDb, name: string, args: Record<string, unknown>): ToolOutcome {
  const tool = TOOLS[name];
  if (!tool) return { ok: false, content: `Error: Tool '${name}' not found.`, wrote: false };
  const badCall = pythonSignatureError(`RetailTools.${name}()`, tool.params, args);
  if (badCall) return { ok: false, content: `Error: ${badCall}`, wrote: false };
  const state = new RetailState(w, tool.kind === "write");
  // As in τ², a call that fails after it has started writing keeps what it wrote (only an odd item swap can).
  try {
    const result = tool.run(state, args);
    const content = tool.returns ? pythonJsonDumps(result, tool.returns) : String(result);
    return { ok: true, content, wrote: tool.kind === "write" };
  } catch (e) {
    if (e instanceof RetailToolError) return { ok: false, content: `Error: ${e.message}`, wrote: false };
    throw e;
  }
}

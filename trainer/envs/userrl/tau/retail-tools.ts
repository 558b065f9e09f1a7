/**
 * The retail tools of tau-bench (sierra-research/tau-bench, the first τ-bench), which UserRL's TauGym runs: plain
 * functions over the retail data (users, orders, products), each returning a string — a record as `json.dumps`
 * prints it, an id, or "Error: ...". They differ from τ²-bench's tools (trainer/envs/tau2): other checks, other
 * messages, other refund rules; TauGym's reward compares databases these tools produced, so it needs these.
 */
import { pythonRound } from "../../../../lib/python-json";
import { calculate, dumps, float, isFloat, n, own, type Rec, type ToolSpec, type Work } from "./tool-core";

/** `round(balance ± amount, 2)`: a float when either is, an int otherwise (Python's round keeps ints ints). */
const roundedSum = (balance: unknown, amount: unknown, sign: 1 | -1, amountIsFloat = isFloat(amount)): unknown => {
  const value = pythonRound(n(balance) + sign * n(amount), 2);
  return isFloat(balance) || amountIsFloat ? float(value) : value;
};
const countOf = (list: unknown[], x: unknown) => list.filter((y) => y === x).length;
const items = (order: Rec) => order.items as Rec[];
const payments = (order: Rec) => order.payment_history as Rec[];
const methodsOf = (w: Work, order: Rec) => w.tables.users[order.user_id as string].payment_methods as Record<string, Rec>;
const addressOf = (a: Rec) => ({
  address1: a.address1,
  address2: a.address2,
  city: a.city,
  state: a.state,
  country: a.country,
  zip: a.zip,
});

/** `for item_id in item_ids: if item_ids.count(id) > all_item_ids.count(id)` — the first item id not in the order. */
function missingItem(order: Rec, itemIds: unknown[]): unknown {
  const all = items(order).map((i) => i.item_id);
  return itemIds.find((id) => countOf(itemIds, id) > countOf(all, id));
}

/** The price difference of swapping items for new ones, or the first new item that cannot be had. */
function priceDifference(w: Work, order: Rec, itemIds: unknown[], newItemIds: unknown[]): { diff: number; isFloat: boolean } | string {
  let diff = 0;
  let anyFloat = false;
  for (let k = 0; k < itemIds.length; k++) {
    const item = items(order).find((i) => i.item_id === itemIds[k])!;
    const variants = w.tables.products[item.product_id as string].variants as Record<string, Rec>;
    const variant = variants[newItemIds[k] as string];
    if (!(variant && variant.available)) return `Error: new item ${String(newItemIds[k])} not found or available`;
    diff += n(variant.price) - n(item.price);
    anyFloat ||= isFloat(variant.price) || isFloat(item.price);
  }
  // Python starts from the int 0: the sum is a float once a float price was added.
  return { diff, isFloat: anyFloat };
}

/**
 * The checks exchange_delivered_order_items and modify_pending_order_items share, in their order: the order exists
 * and has the status, the items are in it, the counts match, every new item can be had. Returns the order and the
 * price difference, or the error text.
 */
function swapChecks(
  w: Work,
  a: Rec,
  status: string,
  statusError: string,
): { id: string; current: Rec; itemIds: unknown[]; newItemIds: unknown[]; price: { diff: number; isFloat: boolean } } | string {
  const id = a.order_id as string;
  if (!(id in w.tables.orders)) return "Error: order not found";
  const current = w.tables.orders[id];
  if (current.status !== status) return statusError;
  const [itemIds, newItemIds] = [a.item_ids as unknown[], a.new_item_ids as unknown[]];
  const missing = missingItem(current, itemIds);
  if (missing !== undefined) return `Error: ${String(missing)} not found`;
  if (itemIds.length !== newItemIds.length) return "Error: the number of items to be exchanged should match";
  const price = priceDifference(w, current, itemIds, newItemIds);
  if (typeof price === "string") return price;
  return { id, current, itemIds, newItemIds, price };
}

export const RETAIL_TOOLS: Record<string, ToolSpec> = {
  calculate: { params: ["expression"], run: (_w, a) => calculate(String(a.expression)) },
  cancel_pending_order: {
    params: ["order_id", "reason"],
    run: (w, a) => {
      const id = a.order_id as string;
      if (!(id in w.tables.orders)) return "Error: order not found";
      if (w.tables.orders[id].status !== "pending") return "Error: non-pending order cannot be cancelled";
      if (!["no longer needed", "ordered by mistake"].includes(a.reason as string)) return "Error: invalid reason";
      const order = own(w, "orders", id);
      const refunds = payments(order).map((p) => ({
        transaction_type: "refund",
        amount: p.amount,
        payment_method_id: p.payment_method_id,
      }));
      for (const p of payments(order)) {
        if (!String(p.payment_method_id).includes("gift_card")) continue;
        const user = own(w, "users", order.user_id as string);
        const method = (user.payment_methods as Record<string, Rec>)[p.payment_method_id as string];
        method.balance = roundedSum(method.balance, p.amount, 1);
      }
      order.status = "cancelled";
      order.cancel_reason = a.reason;
      payments(order).push(...refunds);
      return dumps(order);
    },
  },
  exchange_delivered_order_items: {
    params: ["order_id", "item_ids", "new_item_ids", "payment_method_id"],
    run: (w, a) => {
      const checked = swapChecks(w, a, "delivered", "Error: non-delivered order cannot be exchanged");
      if (typeof checked === "string") return checked;
      const { id, current, itemIds, newItemIds, price } = checked;
      const diff = pythonRound(price.diff, 2);
      const method = methodsOf(w, current)[a.payment_method_id as string];
      if (!method) return "Error: payment method not found";
      if (method.source === "gift_card" && n(method.balance) < diff)
        return "Error: insufficient gift card balance to pay for the price difference";
      const order = own(w, "orders", id);
      order.status = "exchange requested";
      order.exchange_items = [...(itemIds as string[])].sort();
      order.exchange_new_items = [...(newItemIds as string[])].sort();
      order.exchange_payment_method_id = a.payment_method_id;
      order.exchange_price_difference = price.isFloat ? float(diff) : diff;
      return dumps(order);
    },
  },
  find_user_id_by_email: {
    params: ["email"],
    run: (w, a) => {
      const email = String(a.email).toLowerCase();
      return Object.entries(w.tables.users).find(([, u]) => String(u.email).toLowerCase() === email)?.[0] ?? "Error: user not found";
    },
  },
  find_user_id_by_name_zip: {
    params: ["first_name", "last_name", "zip"],
    run: (w, a) => {
      const hit = Object.entries(w.tables.users).find(([, u]) => {
        const name = u.name as Rec;
        return (
          String(name.first_name).toLowerCase() === String(a.first_name).toLowerCase() &&
          String(name.last_name).toLowerCase() === String(a.last_name).toLowerCase() &&
          (u.address as Rec).zip === a.zip
        );
      });
      return hit?.[0] ?? "Error: user not found";
    },
  },
  get_order_details: {
    params: ["order_id"],
    run: (w, a) => ((a.order_id as string) in w.tables.orders ? dumps(w.tables.orders[a.order_id as string]) : "Error: order not found"),
  },
  get_product_details: {
    params: ["product_id"],
    run: (w, a) =>
      (a.product_id as string) in w.tables.products ? dumps(w.tables.products[a.product_id as string]) : "Error: product not found",
  },
  get_user_details: {
    params: ["user_id"],
    run: (w, a) => ((a.user_id as string) in w.tables.users ? dumps(w.tables.users[a.user_id as string]) : "Error: user not found"),
  },
  list_all_product_types: {
    params: [],
    run: (w) => {
      const byName = new Map<string, unknown>();
      for (const p of Object.values(w.tables.products)) byName.set(p.name as string, p.product_id);
      // dict(sorted(items)): by name, code point order.
      const sorted = [...byName].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
      return dumps(Object.fromEntries(sorted));
    },
  },
  modify_pending_order_address: {
    params: ["order_id", "address1", "address2", "city", "state", "country", "zip"],
    run: (w, a) => {
      const id = a.order_id as string;
      if (!(id in w.tables.orders)) return "Error: order not found";
      if (w.tables.orders[id].status !== "pending") return "Error: non-pending order cannot be modified";
      const order = own(w, "orders", id);
      order.address = addressOf(a);
      return dumps(order);
    },
  },
  modify_pending_order_items: {
    params: ["order_id", "item_ids", "new_item_ids", "payment_method_id"],
    run: (w, a) => {
      const checked = swapChecks(w, a, "pending", "Error: non-pending order cannot be modified");
      if (typeof checked === "string") return checked;
      const { id, current, itemIds, newItemIds, price } = checked;
      const methodId = a.payment_method_id as string;
      if (!(methodId in methodsOf(w, current))) return "Error: payment method not found";
      if (methodsOf(w, current)[methodId].source === "gift_card" && n(methodsOf(w, current)[methodId].balance) < price.diff)
        return "Error: insufficient gift card balance to pay for the new item";
      const order = own(w, "orders", id);
      const amount = Math.abs(price.diff);
      payments(order).push({
        transaction_type: price.diff > 0 ? "payment" : "refund",
        amount: price.isFloat ? float(amount) : amount,
        payment_method_id: methodId,
      });
      if (methodsOf(w, order)[methodId].source === "gift_card") {
        const method = (own(w, "users", order.user_id as string).payment_methods as Record<string, Rec>)[methodId];
        method.balance = roundedSum(method.balance, price.diff, -1, price.isFloat);
      }
      for (let k = 0; k < itemIds.length; k++) {
        // Python finds the first item with the old id each time, so a swapped item can be found again.
        const item = items(order).find((i) => i.item_id === itemIds[k])!;
        const variant = (w.tables.products[item.product_id as string].variants as Record<string, Rec>)[newItemIds[k] as string];
        item.item_id = newItemIds[k];
        item.price = variant.price;
        item.options = variant.options;
      }
      order.status = "pending (item modified)";
      return dumps(order);
    },
  },
  modify_pending_order_payment: {
    params: ["order_id", "payment_method_id"],
    run: (w, a) => {
      const id = a.order_id as string;
      if (!(id in w.tables.orders)) return "Error: order not found";
      const current = w.tables.orders[id];
      if (current.status !== "pending") return "Error: non-pending order cannot be modified";
      const methodId = a.payment_method_id as string;
      if (!(methodId in methodsOf(w, current))) return "Error: payment method not found";
      const history = payments(current);
      if (history.length > 1 || history[0].transaction_type !== "payment")
        return "Error: there should be exactly one payment for a pending order";
      if (history[0].payment_method_id === methodId) return "Error: the new payment method should be different from the current one";
      const amount = history[0].amount;
      if (methodsOf(w, current)[methodId].source === "gift_card" && n(methodsOf(w, current)[methodId].balance) < n(amount))
        return "Error: insufficient gift card balance to pay for the order";
      const order = own(w, "orders", id);
      const oldMethodId = payments(order)[0].payment_method_id as string;
      payments(order).push(
        { transaction_type: "payment", amount, payment_method_id: methodId },
        { transaction_type: "refund", amount, payment_method_id: oldMethodId },
      );
      const methods = own(w, "users", order.user_id as string).payment_methods as Record<string, Rec>;
      if (methods[methodId].source === "gift_card") methods[methodId].balance = roundedSum(methods[methodId].balance, amount, -1);
      if (oldMethodId.includes("gift_card")) methods[oldMethodId].balance = roundedSum(methods[oldMethodId].balance, amount, 1);
      return dumps(order);
    },
  },
  modify_user_address: {
    params: ["user_id", "address1", "address2", "city", "state", "country", "zip"],
    run: (w, a) => {
      if (!((a.user_id as string) in w.tables.users)) return "Error: user not found";
      const user = own(w, "users", a.user_id as string);
      user.address = addressOf(a);
      return dumps(user);
    },
  },
  return_delivered_order_items: {
    params: ["order_id", "item_ids", "payment_method_id"],
    run: (w, a) => {
      const id = a.order_id as string;
      if (!(id in w.tables.orders)) return "Error: order not found";
      const current = w.tables.orders[id];
      if (current.status !== "delivered") return "Error: non-delivered order cannot be returned";
      const methodId = a.payment_method_id as string;
      if (!(methodId in methodsOf(w, current))) return "Error: payment method not found";
      if (!methodId.includes("gift_card") && methodId !== payments(current)[0].payment_method_id)
        return "Error: payment method should be either the original payment method or a gift card";
      if (missingItem(current, a.item_ids as unknown[]) !== undefined) return "Error: some item not found";
      const order = own(w, "orders", id);
      order.status = "return requested";
      order.return_items = [...(a.item_ids as string[])].sort();
      order.return_payment_method_id = methodId;
      return dumps(order);
    },
  },
  think: { params: ["thought"], run: () => "" },
  transfer_to_human_agents: { params: ["summary"], run: () => "Transfer successful" },
};

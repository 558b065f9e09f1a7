/**
 * τ²-bench's retail pydantic models (`domains/retail/data_model.py`) as Python-JSON schemas: field order, which
 * numbers are floats, which fields are optional. With them, a tool result reads exactly as τ² shows it to the
 * agent, and a database hashes exactly as τ²'s `get_db_hash` does (sha256 of the sorted-key dump).
 */
import { createHash } from "node:crypto";
import { pythonJsonDumps, type PyModel, type PyType } from "../../../lib/python-json";
import type { RetailDb } from "./retail-db";

const model = (name: string, fields: PyModel["fields"]): { model: PyModel } => ({ model: { name, fields } });
const optional = (t: PyType): PyType => ({ optional: t });

const Address = model("UserAddress", [
  ["address1", "str"],
  ["address2", "str"],
  ["city", "str"],
  ["country", "str"],
  ["state", "str"],
  ["zip", "str"],
]);

export const Variant = model("Variant", [
  ["item_id", "str"],
  ["options", { dict: "str" }],
  ["available", "bool"],
  ["price", "float"],
]);

export const Product = model("Product", [
  ["name", "str"],
  ["product_id", "str"],
  ["variants", { dict: Variant }],
]);

// Subclasses keep the base class's fields first (source, id), then their own.
const CreditCard: PyModel = {
  name: "CreditCard",
  fields: [
    ["source", "str"],
    ["id", "str"],
    ["brand", "str"],
    ["last_four", "str"],
  ],
};
const GiftCard: PyModel = {
  name: "GiftCard",
  fields: [
    ["source", "str"],
    ["id", "str"],
    ["balance", "float"],
  ],
};
const Paypal: PyModel = {
  name: "Paypal",
  fields: [
    ["source", "str"],
    ["id", "str"],
  ],
};
const PaymentMethod: PyType = {
  union: (v) => (v.source === "gift_card" ? GiftCard : v.source === "credit_card" ? CreditCard : Paypal),
};

export const User = model("User", [
  ["user_id", "str"],
  [
    "name",
    model("UserName", [
      ["first_name", "str"],
      ["last_name", "str"],
    ]),
  ],
  ["address", Address],
  ["email", "str"],
  ["payment_methods", { dict: PaymentMethod }],
  ["orders", { list: "str" }],
]);

const OrderItem = model("OrderItem", [
  ["name", "str"],
  ["product_id", "str"],
  ["item_id", "str"],
  ["price", "float"],
  ["options", { dict: "str" }],
]);

export const Order = model("Order", [
  ["order_id", "str"],
  ["user_id", "str"],
  ["address", Address],
  ["items", { list: OrderItem }],
  ["status", "str"],
  [
    "fulfillments",
    {
      list: model("OrderFullfilment", [
        ["tracking_id", { list: "str" }],
        ["item_ids", { list: "str" }],
      ]),
    },
  ],
  [
    "payment_history",
    {
      list: model("OrderPayment", [
        ["transaction_type", "str"],
        ["amount", "float"],
        ["payment_method_id", "str"],
      ]),
    },
  ],
  ["cancel_reason", optional("str")],
  ["exchange_items", optional({ list: "str" })],
  ["exchange_new_items", optional({ list: "str" })],
  ["exchange_payment_method_id", optional("str")],
  ["exchange_price_difference", optional("float")],
  ["return_items", optional({ list: "str" })],
  ["return_payment_method_id", optional("str")],
]);

const RetailDbModel = model("RetailDB", [
  ["products", { dict: Product }],
  ["users", { dict: User }],
  ["orders", { dict: Order }],
]);

/** τ²'s `get_db_hash()`: sha256 of `json.dumps(db.model_dump(), sort_keys=True)`. */
export function tau2DbHash(db: RetailDb): string {
  return createHash("sha256")
    .update(pythonJsonDumps(db, RetailDbModel, { sortKeys: true }))
    .digest("hex");
}

/** What τ²'s environment shows the agent for a tool's return value of the given model (`json.dumps(model_dump())`). */
export function tau2ToolJson(value: unknown, type: PyType): string {
  return pythonJsonDumps(value, type);
}

/**
 * JSON-Schema descriptions of the retail tools shown to the policy (descriptions written for this project from the
 * tools' behaviour; argument names match τ²-bench so gold actions compare argument-for-argument).
 */
import type { ToolSchema } from "../parse";

const str = (description: string) => ({ type: "string", description });
const ids = (description: string) => ({ type: "array", items: { type: "string" }, description });
const ORDER_ID = str("Order id including the leading '#', e.g. '#W0000000'.");
const PAYMENT_ID = str("Payment method id from the user's profile, e.g. 'gift_card_0000000' or 'credit_card_0000000'.");
const ADDRESS = {
  address1: str("First address line, e.g. '123 Main St'."),
  address2: str("Second address line, e.g. 'Apt 1', or ''."),
  city: str("City."),
  state: str("State code, e.g. 'CA'."),
  country: str("Country, e.g. 'USA'."),
  zip: str("Zip code, e.g. '12345'."),
};
const ADDRESS_KEYS = Object.keys(ADDRESS);

function tool(name: string, description: string, properties: Record<string, unknown>, required = Object.keys(properties)): ToolSchema {
  return { name, description, parameters: { type: "object", properties, required } };
}

export const RETAIL_TOOL_SCHEMAS: readonly ToolSchema[] = [
  tool("find_user_id_by_email", "Look up a user id from the user's email address. Errors if no user has that email.", {
    email: str("Email address, e.g. 'someone@example.com'."),
  }),
  tool(
    "find_user_id_by_name_zip",
    "Look up a user id from first name, last name and zip code. Use it when the user cannot give an email that matches.",
    { first_name: str("First name."), last_name: str("Last name."), zip: str("Zip code of the default address.") },
  ),
  tool("get_user_details", "Profile of a user: name, default address, email, payment methods (with gift card balances), order ids.", {
    user_id: str("User id, e.g. 'sara_doe_496'."),
  }),
  tool("get_order_details", "Status, items (with item ids and prices), address, fulfillments and payment history of an order.", {
    order_id: ORDER_ID,
  }),
  tool("get_product_details", "A product type and all its variant items (options, availability, price). Product ids are not item ids.", {
    product_id: str("Product id, e.g. '6086499569'."),
  }),
  tool("get_item_details", "Options, availability and price of one variant item.", { item_id: str("Item id, e.g. '1008292230'.") }),
  tool("list_all_product_types", "Names and product ids of all product types in the store (50 types).", {}),
  tool(
    "cancel_pending_order",
    "Cancel an order whose status is 'pending'. Refunds every payment (gift cards at once, other methods in 5-7 business days). Requires explicit user confirmation first.",
    {
      order_id: ORDER_ID,
      reason: { type: "string", enum: ["no longer needed", "ordered by mistake"], description: "Cancellation reason." },
    },
  ),
  tool(
    "modify_pending_order_address",
    "Change the shipping address of a pending order. Requires explicit user confirmation first.",
    {
      order_id: ORDER_ID,
      ...ADDRESS,
    },
    ["order_id", ...ADDRESS_KEYS],
  ),
  tool(
    "modify_pending_order_payment",
    "Pay a pending order with a different single payment method; the original one is refunded. A gift card must cover the total. Requires explicit user confirmation first.",
    { order_id: ORDER_ID, payment_method_id: PAYMENT_ID },
  ),
  tool(
    "modify_pending_order_items",
    "Swap items of a pending order for other available variants of the same product (one call per order; the order then cannot be modified or cancelled again). The payment method pays or receives the price difference. Requires explicit user confirmation first.",
    {
      order_id: ORDER_ID,
      item_ids: ids("Item ids to replace (duplicates allowed)."),
      new_item_ids: ids("Replacement item ids, position by position, same product as the old item."),
      payment_method_id: PAYMENT_ID,
    },
  ),
  tool(
    "modify_user_address",
    "Change a user's default address. Requires explicit user confirmation first.",
    {
      user_id: str("User id."),
      ...ADDRESS,
    },
    ["user_id", ...ADDRESS_KEYS],
  ),
  tool(
    "exchange_delivered_order_items",
    "Exchange items of a delivered order for available variants of the same product (once per order). The payment method pays or receives the price difference. Requires explicit user confirmation first.",
    {
      order_id: ORDER_ID,
      item_ids: ids("Item ids to exchange (duplicates allowed)."),
      new_item_ids: ids("New item ids, position by position, same product as the old item."),
      payment_method_id: PAYMENT_ID,
    },
  ),
  tool(
    "return_delivered_order_items",
    "Request the return of items of a delivered order. The refund goes to the original payment method or an existing gift card. Requires explicit user confirmation first.",
    { order_id: ORDER_ID, item_ids: ids("Item ids to return (duplicates allowed)."), payment_method_id: PAYMENT_ID },
  ),
  tool("calculate", "Evaluate an arithmetic expression (numbers, + - * /, parentheses); the result is rounded to 2 decimals.", {
    expression: str("E.g. '(12.5 + 3) * 2'."),
  }),
  tool(
    "transfer_to_human_agents",
    "Hand the conversation to a human agent, with a summary. Only when the user asks for one or the request is outside what the tools and policy allow.",
    { summary: str("Summary of the user's issue.") },
  ),
];

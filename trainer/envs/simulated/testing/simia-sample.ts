/** One Simia-RL training sample (ShareGPT `from`/`value`, tools in the system prompt), shared by the tests. */
export const simiaSample = {
  system:
    "You are a retail agent. Verify the user before any change.\n<tools>\n" +
    '{"type": "function", "function": {"name": "get_order", "description": "Look up an order", "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}}\n</tools>',
  conversations: [
    { from: "human", value: "Where is order #W100?" },
    { from: "gpt", value: '<tool_call>\n{"name": "get_order", "arguments": {"order_id": "#W100"}}\n</tool_call>' },
    { from: "human", value: '<tool_response>\n{"status": "shipped", "eta": "Friday"}\n</tool_response>' },
    { from: "gpt", value: "It has shipped and arrives Friday." },
    { from: "human", value: "Great, thanks!" },
  ],
};

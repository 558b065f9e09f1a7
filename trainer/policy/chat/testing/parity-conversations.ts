/**
 * Conversations for the chat-template parity tests (issue #28), in OpenAI's chat format — what a transformers user
 * passes to apply_chat_template: with and without a system prompt, with and without tools, single and parallel
 * calls, prose before calls, consecutive tool results, several turns, content that starts with a newline or holds
 * unicode / JSON. Seeded, so every machine renders the same ones. Each ends where the policy speaks next.
 */
import { mulberry32 } from "../../../../lib/seeded-random";
import type { TemplateMessage, TemplateTool } from "../template";

export const PARITY_TOOLS: TemplateTool[] = [
  tool("get_order_details", "Get the status and items of an order.", {
    order_id: { type: "string", description: "The order id, e.g. #W2378156." },
  }),
  tool("search_flights", "Search direct flights between two airports on a date.", {
    origin: { type: "string" },
    destination: { type: "string" },
    date: { type: "string", description: "YYYY-MM-DD" },
  }),
  tool("get_weather", "Current weather for a city.", {
    city: { type: "string" },
    unit: { type: "string", enum: ["celsius", "fahrenheit"] },
  }),
  tool("transfer_funds", "Move money between two accounts.", {
    amount: { type: "number" },
    from: { type: "string" },
    to: { type: "string" },
  }),
  tool("list_files", "List the files of a folder.", { path: { type: "string" }, recursive: { type: "boolean" } }),
];

function tool(name: string, description: string, properties: Record<string, unknown>): TemplateTool {
  return {
    type: "function",
    function: { name, description, parameters: { type: "object", properties, required: Object.keys(properties).slice(0, 1) } },
  };
}

const USER_LINES = [
  "Where is my order #W2378156?",
  "\nI need a flight from JFK to SFO on 2024-05-20, please.",
  "Quel temps fait-il à São Paulo ? Réponds en °C.",
  "Move $12.50 from checking to savings 🙏",
  "list everything under /home/user/projects   ",
  "可以帮我查一下订单吗？",
  '{"question": "is this JSON?", "n": 3}',
  "Thanks! That's all.\n\nBye",
];
const REPLIES = [
  "Sure, your order has shipped.",
  "\nHere is what I found:\n- item 1\n- item 2",
  "Il fait 23 °C et ensoleillé.",
  "Done ✅ — anything else?",
  "I could not find that folder.",
];
const PROSE = ["Let me check that for you.", "One moment.", "I'll look it up.\n"];
const ARGS: Record<string, () => Record<string, unknown>> = {
  get_order_details: () => ({ order_id: "#W2378156" }),
  search_flights: () => ({ origin: "JFK", destination: "SFO", date: "2024-05-20" }),
  get_weather: () => ({ city: "São Paulo", unit: "celsius" }),
  transfer_funds: () => ({ amount: 12.5, from: "checking", to: "savings" }),
  list_files: () => ({ path: "/home/user/projects", recursive: true }),
};
const RESULTS = ['{"status": "shipped", "items": 2}', "No flights found.", '{"temp_c": 23, "sky": "clear"}', "ok", '["a.txt", "b/c.md"]'];

export interface ParityConversation {
  messages: TemplateMessage[];
  tools: TemplateTool[] | null;
}

export interface ConversationOptions {
  count?: number;
  seed?: number;
  /** Most calls in one assistant message (Llama 3.1's template allows one). */
  maxParallelCalls?: number;
  /** Replies may open with a <think> block (Qwen3). */
  reasoning?: boolean;
  /**
   * Replies never start with a newline: Qwen3's template strips them from the reply being written (after its
   * <think> block), so a Qwen3 model never writes one there.
   */
  noLeadingNewline?: boolean;
}

export function parityConversations(opts: ConversationOptions = {}): ParityConversation[] {
  const rnd = mulberry32(opts.seed ?? 28);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const maxCalls = opts.maxParallelCalls ?? 3;
  const reply = () => (opts.noLeadingNewline ? pick(REPLIES).replace(/^\n+/, "") : pick(REPLIES));
  const out: ParityConversation[] = [];
  for (let c = 0; c < (opts.count ?? 60); c++) {
    const withTools = c % 4 !== 3;
    const tools = withTools ? PARITY_TOOLS.slice(0, 1 + (c % PARITY_TOOLS.length)) : null;
    const messages: TemplateMessage[] = [];
    if (c % 3 !== 0)
      messages.push({
        role: "system",
        content: pick(["You are a helpful support agent.", "Answer briefly.\nUse tools when needed.", "Tu es un assistant."]),
      });
    const turns = 1 + (c % 4);
    for (let t = 0; t < turns; t++) {
      messages.push({ role: "user", content: pick(USER_LINES) });
      const last = t === turns - 1;
      // the policy is about to answer the last user line, or the tool results of a call it made to it
      if (last && rnd() < 0.5) break;
      const think =
        opts.reasoning && rnd() < 0.5 ? `<think>\n${pick(["The user wants data.", "I should call a tool."])}\n</think>\n\n` : "";
      if (tools && rnd() < 0.7) {
        const n = 1 + Math.floor(rnd() * maxCalls);
        const calls = Array.from({ length: n }, (_, i) => {
          const fn = pick(tools).function.name;
          return { id: `t${t}_call_${i}`, type: "function" as const, function: { name: fn, arguments: ARGS[fn]() } };
        });
        const prose = rnd() < 0.5 ? pick(PROSE) : "";
        messages.push({ role: "assistant", content: `${think}${prose}`, tool_calls: calls });
        for (const call of calls) messages.push({ role: "tool", content: pick(RESULTS), tool_call_id: call.id, name: call.function.name });
        if (last) break;
        messages.push({ role: "assistant", content: `${think}${reply()}` });
      } else {
        messages.push({ role: "assistant", content: `${think}${reply()}` });
      }
    }
    if (messages.at(-1)?.role === "assistant") messages.push({ role: "user", content: pick(USER_LINES) });
    out.push({ messages, tools });
  }
  return out;
}

/**
 * Renders tool schemas into the policy's system prompt. The "hermes" style mirrors what Qwen2.5/Hermes chat
 * templates inject (a <tools> block of JSON schemas plus the <tool_call> reply convention), so a policy fine-tuned
 * on those templates sees the layout it was trained on; "bracket" is the UserRL/Agent Gym `[action]` convention.
 */
export interface ToolSchema {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export type ToolPromptStyle = "hermes" | "json" | "bracket";

export function formatToolsPrompt(tools: readonly ToolSchema[], style: ToolPromptStyle = "hermes"): string {
  if (tools.length === 0) return "You have no tools. Reply to the user in plain text.";
  const schemas = tools.map((t) => JSON.stringify({ type: "function", function: t }));
  switch (style) {
    case "hermes":
      return [
        "You may call one or more functions to assist with the user query.",
        "Function signatures are within <tools></tools> XML tags:",
        "<tools>",
        ...schemas,
        "</tools>",
        "For each function call, return a JSON object with the function name and arguments within <tool_call></tool_call> XML tags:",
        '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>',
        "To talk to the user, reply in plain text without tags.",
      ].join("\n");
    case "json":
      return [
        "Available functions (JSON Schema):",
        ...schemas,
        'To call a function, reply with only a JSON object {"name": ..., "arguments": {...}} (or a JSON list of them).',
        "To talk to the user, reply in plain text.",
      ].join("\n");
    case "bracket":
      return [
        "Available actions:",
        ...tools.map((t) => `- ${t.name}: ${t.description} Arguments schema: ${JSON.stringify(t.parameters)}`),
        'Reply with exactly one of: "[action] <name>({...json arguments...})", "[search] <query>", "[answer] <answer>", "[finish]".',
      ].join("\n");
  }
}

/**
 * One call written the way `formatToolsPrompt(…, style)` tells the policy to write it (gold demonstrations use it);
 * `parsePolicyAction` reads each form back as the same call.
 */
export function formatToolCallText(name: string, args: Record<string, unknown>, style: ToolPromptStyle = "hermes"): string {
  const call = JSON.stringify({ name, arguments: args });
  switch (style) {
    case "hermes":
      return `<tool_call>\n${call}\n</tool_call>`;
    case "json":
      return call;
    case "bracket":
      return `[action] ${name}(${JSON.stringify(args)})`;
  }
}

/**
 * A reply whose calls arrived as data, written as the text an environment with its own text protocol reads: the
 * prose followed by one Hermes `<tool_call>` block per call (the form `parsePolicyAction` reads first, and the one
 * EnvTuning's and Simia's protocols use). Arguments that are a JSON string are embedded as sent, so a malformed one
 * still reaches the environment's format-error path.
 */
export function textWithToolCalls(
  text: string,
  toolCalls: readonly { id?: string; name: string; arguments: unknown }[] | undefined,
): string {
  if (!toolCalls || toolCalls.length === 0) return text;
  const blocks = toolCalls.map((c) => {
    let args = c.arguments;
    if (typeof args === "string") {
      try {
        args = JSON.parse(args);
      } catch {
        // kept as the string: the parser reports it as arguments that are not valid JSON
      }
    }
    return `<tool_call>\n${JSON.stringify({ name: c.name, arguments: args ?? {} })}\n</tool_call>`;
  });
  return [text.trim(), ...blocks].filter(Boolean).join("\n");
}

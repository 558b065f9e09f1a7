/**
 * The built-in scripted agent (`policy.scripted: "gold"`): it replays each task's gold actions, turn by turn — the
 * environment's own gold demonstrations (τ²'s gold tool calls then the information the task requires, BFCL's
 * ground-truth calls, the guessing game's binary search, …). It is not a model and is labelled so wherever it
 * appears; it shows what a capable agent's trajectories and rewards look like, offline, in seconds, and gives each
 * environment's ceiling under its own scoring.
 *
 * Where the episode offers tools as schemas, a gold call goes out as structured `toolCalls`, as an API model's would.
 */
import { groundTruthAsJsonCalls } from "../envs/bfcl/bfcl-demonstrations";
import { parsePolicyAction } from "../envs/parse";
import type { Environment, StructuredToolCall, Task, ToolSchema } from "../envs/types";
import type { Policy, PolicyOutput } from "../rollout/run-episode";

/** Per task id, the gold assistant turns in order. */
export type GoldScripts = Map<string, string[]>;

export async function loadGoldScripts(env: Environment, tasks: readonly Task[]): Promise<GoldScripts> {
  const demos = env.demonstrations ? await env.demonstrations([...tasks]) : [];
  const scripts: GoldScripts = new Map();
  for (const d of demos) {
    if (!d.taskId) continue;
    scripts.set(
      d.taskId,
      d.messages.filter((m) => m.role === "assistant").map((m) => m.content),
    );
  }
  return scripts;
}

/** gorilla's Python call syntax (BFCL's gold form), e.g. `[cd(folder='docs'), ls()]`. */
const PYTHON_CALL_LIST = /^\s*\[\s*[A-Za-z_][\w.]*\(/;

/** One gold turn as a policy reply: calls as data when the episode offers tools, else the text as written. */
export function goldReply(text: string, turn: number, tools: readonly ToolSchema[] | undefined): PolicyOutput {
  if (!tools?.length) return { text };
  const parsed = parsePolicyAction(text, { idPrefix: `gold_t${turn}_` });
  if (parsed.ok && parsed.action.kind === "tool_calls") {
    const toolCalls: StructuredToolCall[] = parsed.action.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
    return { text: parsed.action.text, toolCalls };
  }
  if (PYTHON_CALL_LIST.test(text)) {
    const calls = groundTruthAsJsonCalls([text.trim()], tools);
    return { text: "", toolCalls: calls.map((c, i) => ({ id: `gold_t${turn}_${i}`, name: c.name, arguments: c.arguments })) };
  }
  return { text };
}

/**
 * The gold agent as a policy. A demonstration is laid out as the episode shows it, so assistant messages of a
 * conversation already under way (τ²'s task history) come first in its script; the policy's own turns follow them.
 * Past the end of a task's script it says it is done.
 */
export function createGoldPolicy(scripts: GoldScripts): Policy {
  return async (messages, info) => {
    const script = scripts.get(info.taskId);
    if (!script) throw new Error(`No gold demonstration for task ${info.taskId}.`);
    const history = messages.filter((m) => m.role === "assistant" && m.source !== "policy").length;
    return goldReply(script[history + info.turn] ?? "Done.", info.turn, info.tools);
  };
}

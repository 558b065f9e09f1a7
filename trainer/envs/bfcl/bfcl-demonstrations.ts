/**
 * Gold trajectories for the SFT warm-start from BFCL's ground truth: per user turn, the ground-truth calls in one
 * assistant message, their results executed on fresh API instances (the same run the reward compares against),
 * then a short closing answer. Under EnvTuning's protocol the calls are a `<tool_call>` JSON list after a
 * `<think>`, the results come back as EnvTuning's feedback message and the answer is `<answer>Done.</answer>`;
 * under gorilla's, the calls are BFCL's own Python syntax and the answer plain text. BFCL records no reply text,
 * so the answer is a fixed "Done." (format, not content).
 * Entries with a turn whose ground truth is empty (the model should ask instead of calling) are skipped: there is
 * no gold reply to imitate.
 */
import type { Demonstration, DemonstrationMessage, Task } from "../types";
import type { ToolPromptStyle, ToolSchema } from "../parse";
import type { BfclTaskData } from "./bfcl-format";
import { bfclSystemPrompt, type BfclProtocol, type GroundTruthRun } from "./bfcl-episode";
import { parsePythonCalls } from "./call-syntax";
import { executionFeedback } from "./envtuning-format";

export const TURN_CLOSING_REPLY = "Done.";

/**
 * Ground-truth calls (BFCL's Python syntax) as EnvTuning's JSON calls: arguments passed by position are named
 * after the function's parameters, in the order its doc lists them (EnvTuning passes every argument by keyword).
 */
export function groundTruthAsJsonCalls(
  calls: string[],
  tools: readonly ToolSchema[],
): { name: string; arguments: Record<string, unknown> }[] {
  return calls
    .flatMap((c) => parsePythonCalls(c))
    .map((c) => {
      const params = Object.keys(
        (tools.find((t) => t.name === c.name)?.parameters as { properties?: object } | undefined)?.properties ?? {},
      );
      const named = Object.fromEntries(c.positional.map((v, i) => [params[i] ?? `arg${i}`, v]));
      return { name: c.name, arguments: { ...named, ...c.keywords } };
    });
}

export function bfclDemonstration(
  task: Task<BfclTaskData>,
  gt: GroundTruthRun,
  toolStyle: ToolPromptStyle,
  protocol: BfclProtocol = "envtuning",
): Demonstration | null {
  const data = task.data;
  if (data.groundTruth.some((calls) => calls.length === 0)) return null;
  const messages: DemonstrationMessage[] = [{ role: "system", content: bfclSystemPrompt(data, toolStyle, protocol) }];
  for (const [t, userMessages] of data.turns.entries()) {
    for (const m of userMessages) messages.push({ role: "user", content: m.content });
    if (protocol === "envtuning") {
      const calls = JSON.stringify(groundTruthAsJsonCalls(data.groundTruth[t], data.tools));
      messages.push({
        role: "assistant",
        content: `<think>Call the functions this request needs.</think>\n<tool_call>${calls}</tool_call>`,
      });
      messages.push({ role: "user", content: executionFeedback(gt.results[t]) });
      messages.push({ role: "assistant", content: `<think>The request is fulfilled.</think>\n<answer>${TURN_CLOSING_REPLY}</answer>` });
    } else {
      messages.push({ role: "assistant", content: `[${data.groundTruth[t].join(", ")}]` });
      for (const result of gt.results[t]) messages.push({ role: "tool", content: result });
      messages.push({ role: "assistant", content: TURN_CLOSING_REPLY });
    }
  }
  return { taskId: task.id, messages };
}

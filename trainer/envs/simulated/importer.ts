/**
 * Loads simulated-environment tasks from a JSON file or a directory of them. Two record shapes are accepted:
 *  - our native task records (SimulatedTaskRecordSchema), as shipped in ./tasks;
 *  - Simia-RL training samples (`{system, conversations: [{from, value}]}`, ShareGPT style, as in its
 *    APIGen_5k_processed.json): the first human turn becomes the opening, later human turns the user's follow-ups,
 *    the reference's tool calls (with the observations after them) the expected outcome.
 * Any malformed record throws DatasetError naming the file and the record.
 */
import { readdir, stat } from "node:fs/promises";
import { jsonErrorDetail, readDataFile, readErrorDetail } from "../../data-roots";
import path from "node:path";
import { z } from "zod";
import { DatasetError, type Task } from "../types";
import { parsePolicyAction } from "../parse";
import { SimulatedTaskRecordSchema, ToolSchemaSchema, type SimulatedTaskData } from "./task-schema";

const SimiaSampleSchema = z.object({
  id: z.union([z.string(), z.number()]).optional(),
  system: z.string().default(""),
  tools: z.union([z.string(), z.array(z.unknown())]).optional(),
  conversations: z.array(z.object({ from: z.string(), value: z.string() })).min(1),
});

const TOOL_RESPONSE_FROM = new Set(["observation", "tool", "function", "function_response", "tool_response"]);
const AGENT_FROM = new Set(["gpt", "assistant", "function_call"]);

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(record)"}: ${i.message}`).join("; ");
}

function parseTools(raw: unknown, system: string, file: string, record: string): SimulatedTaskData["tools"] {
  let list: unknown = raw;
  if (typeof raw === "string") {
    try {
      list = JSON.parse(raw);
    } catch {
      throw new DatasetError(file, record, 'field "tools" is a string but not valid JSON');
    }
  }
  if (list === undefined) {
    // Hermes-style prompts carry the schemas one per line inside <tools>...</tools>.
    const block = /<tools>([\s\S]*?)<\/tools>/.exec(system);
    list = block
      ? block[1]
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean)
          .flatMap((l) => {
            try {
              return [JSON.parse(l) as unknown];
            } catch {
              return [];
            }
          })
      : [];
  }
  if (!Array.isArray(list)) throw new DatasetError(file, record, 'field "tools" must be a list of tool schemas');
  return list.map((t, i) => {
    const fn = typeof t === "object" && t !== null && "function" in t ? (t as { function: unknown }).function : t;
    const r = ToolSchemaSchema.safeParse({ description: "", ...(fn as object) });
    if (!r.success) throw new DatasetError(file, record, `tools[${i}]: ${describe(r.error)}`);
    return r.data;
  });
}

function fromSimia(sample: z.infer<typeof SimiaSampleSchema>, index: number, file: string): Task<SimulatedTaskData> {
  const record = sample.id === undefined ? String(index) : String(sample.id);
  const conv = sample.conversations;
  const humans = conv.filter((m) => m.from === "human" && !/<tool_response>/.test(m.value));
  if (humans.length === 0) throw new DatasetError(file, record, "conversations has no human message to open the episode with");
  const calls: SimulatedTaskData["expected"]["calls"] = [];
  conv.forEach((m, i) => {
    if (!AGENT_FROM.has(m.from)) return;
    const parsed = parsePolicyAction(m.value);
    if (!parsed.ok || parsed.action.kind !== "tool_calls") return;
    const next = conv[i + 1];
    const isResult = next && (TOOL_RESPONSE_FROM.has(next.from) || /<tool_response>/.test(next.value));
    let result: unknown = null;
    if (isResult) {
      const body = next.value.replace(/<\/?tool_response>/g, "").trim();
      try {
        result = JSON.parse(body);
      } catch {
        result = body;
      }
    }
    for (const c of parsed.action.calls) calls.push({ name: c.name, arguments: c.arguments, result });
  });
  const policy = sample.system.replace(/<tools>[\s\S]*?<\/tools>/, "").trim();
  return {
    id: `simia-${record}`,
    split: "train",
    tags: ["simia-import"],
    data: {
      domain: "customer service",
      instruction: `Pursue the same goal as the user in this reference conversation, starting with: "${humans[0].value}"`,
      persona: "",
      opening: humans[0].value,
      policy,
      facts: [],
      followUps: humans.slice(1).map((h) => h.value),
      tools: parseTools(sample.tools, sample.system, file, record),
      toolDefaults: {},
      expected: { calls, facts: [], forbiddenCalls: [] },
      systemPrompt: sample.system,
      reference: conv,
    },
  };
}

export function parseSimulatedTaskFile(text: string, file: string): Task<SimulatedTaskData>[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new DatasetError(file, null, jsonErrorDetail(e));
  }
  const records = Array.isArray(json)
    ? json
    : typeof json === "object" && json !== null && Array.isArray((json as { tasks?: unknown }).tasks)
      ? (json as { tasks: unknown[] }).tasks
      : null;
  if (!records) throw new DatasetError(file, null, 'expected a JSON list of tasks or an object with a "tasks" list');
  const seen = new Set<string>();
  return records.map((rec, index) => {
    const label = typeof rec === "object" && rec !== null && "id" in rec ? String((rec as { id: unknown }).id) : String(index);
    if (typeof rec !== "object" || rec === null) throw new DatasetError(file, index, "each task must be a JSON object");
    let task: Task<SimulatedTaskData>;
    if ("conversations" in rec) {
      const r = SimiaSampleSchema.safeParse(rec);
      if (!r.success) throw new DatasetError(file, label, describe(r.error));
      task = fromSimia(r.data, index, file);
    } else {
      const r = SimulatedTaskRecordSchema.safeParse(rec);
      if (!r.success) throw new DatasetError(file, label, describe(r.error));
      const { id, split, tags, ...data } = r.data;
      const unknownTools = data.expected.calls.map((c) => c.name).filter((n) => !data.tools.some((t) => t.name === n));
      if (unknownTools.length > 0) throw new DatasetError(file, label, `expected.calls use undeclared tool(s): ${unknownTools.join(", ")}`);
      task = { id, split, tags, data };
    }
    if (seen.has(task.id)) throw new DatasetError(file, label, `duplicate task id "${task.id}"`);
    seen.add(task.id);
    return task;
  });
}

/** A file, or every *.json file of a directory (sorted, so task order is stable across machines). */
export async function loadSimulatedTasks(target: string): Promise<Task<SimulatedTaskData>[]> {
  let info;
  try {
    info = await stat(target);
  } catch {
    throw new DatasetError(target, null, "file or directory not found");
  }
  const files = info.isDirectory()
    ? (await readdir(target))
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => path.join(target, f))
    : [target];
  const tasks: Task<SimulatedTaskData>[] = [];
  for (const f of files) {
    const text = await readDataFile(f).catch((e: unknown) => {
      throw new DatasetError(f, null, readErrorDetail(e));
    });
    tasks.push(...parseSimulatedTaskFile(text, f));
  }
  return tasks;
}

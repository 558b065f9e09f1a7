/**
 * Demonstrations for the SFT warm-start from a JSON Lines file in the OpenAI chat fine-tuning format, the one TRL's
 * SFTTrainer, OpenRLHF and verl's SFT datasets read as "messages":
 *
 *   {"messages": [{"role": "system", "content": "..."}, {"role": "user", "content": "..."},
 *                 {"role": "assistant", "content": "..."}, {"role": "tool", "content": "..."}]}
 *
 * Also accepted from that format: content as a list of {"type": "text", "text"} parts; an assistant message's
 * `tool_calls` (rendered as Hermes `<tool_call>` blocks after its content, as Qwen2.5's chat template does, which
 * every environment's action parser reads); `weight: 0` on an assistant message to keep it as context only. Other
 * keys (e.g. "tools") are ignored. Any problem fails with a DatasetError naming the file, the line and the fix.
 */
import { jsonErrorDetail, readDataFile, readErrorDetail } from "../data-roots";
import { DatasetError, type Demonstration, type DemonstrationMessage } from "./types";

const ROLES = ["system", "user", "assistant", "tool"] as const;
const FORMAT_HINT = 'each line must be {"messages": [{"role": "user", "content": "..."}, {"role": "assistant", "content": "..."}, ...]}';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export async function loadDemonstrationsJsonl(file: string): Promise<Demonstration[]> {
  let text: string;
  try {
    text = await readDataFile(file);
  } catch (e) {
    throw new DatasetError(file, null, `cannot read the demonstrations file: ${readErrorDetail(e)}`);
  }
  return parseDemonstrationsJsonl(text, file);
}

export function parseDemonstrationsJsonl(text: string, file: string): Demonstration[] {
  const demos: Demonstration[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    const fail = (detail: string): never => {
      throw new DatasetError(file, i + 1, detail, "line");
    };
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (e) {
      fail(`${jsonErrorDetail(e)}; ${FORMAT_HINT}`);
    }
    if (!isObj(raw) || !Array.isArray(raw.messages) || raw.messages.length === 0)
      fail(`missing a non-empty "messages" array; ${FORMAT_HINT}`);
    const messages = (raw as { messages: unknown[] }).messages.map((m, k) => parseMessage(m, (d) => fail(`message ${k}: ${d}`)));
    if (!messages.some((m) => m.role === "assistant" && m.train !== false)) {
      fail('no assistant message to learn from: the warm-start trains only on "assistant" turns');
    }
    demos.push({ messages });
  });
  if (demos.length === 0) throw new DatasetError(file, null, `no demonstrations (the file is empty); ${FORMAT_HINT}`);
  return demos;
}

function parseMessage(m: unknown, fail: (detail: string) => never): DemonstrationMessage {
  if (!isObj(m)) return fail("must be an object with role and content");
  const role = m.role;
  if (typeof role !== "string" || !(ROLES as readonly string[]).includes(role)) {
    return fail(`role ${JSON.stringify(role)} is not one of ${ROLES.join(", ")}`);
  }
  let content = contentText(m.content, fail);
  if (m.tool_calls !== undefined) {
    if (role !== "assistant") return fail("only assistant messages can have tool_calls");
    content = [content, ...toolCallBlocks(m.tool_calls, fail)].filter((s) => s !== "").join("\n");
  } else if (content === "" && m.content !== "") {
    return fail('needs "content" (a string)');
  }
  const message: DemonstrationMessage = { role: role as DemonstrationMessage["role"], content };
  if (m.weight !== undefined) {
    if (role !== "assistant" || (m.weight !== 0 && m.weight !== 1)) return fail("weight must be 0 or 1, and only on assistant messages");
    message.train = m.weight === 1;
  }
  return message;
}

/** A string, a list of text parts, or null/absent (allowed next to tool_calls) -> text. */
function contentText(content: unknown, fail: (detail: string) => never): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (Array.isArray(content)) {
    return content
      .map((p) =>
        isObj(p) && p.type === "text" && typeof p.text === "string"
          ? p.text
          : fail('content parts must be {"type": "text", "text": "..."} (images are not supported)'),
      )
      .join("");
  }
  return fail("content must be a string");
}

function toolCallBlocks(calls: unknown, fail: (detail: string) => never): string[] {
  if (!Array.isArray(calls)) return fail("tool_calls must be an array");
  return calls.map((c, j) => {
    const fn = isObj(c) && isObj(c.function) ? c.function : null;
    if (!fn || typeof fn.name !== "string") return fail(`tool_calls[${j}] needs function.name`);
    let args: unknown = fn.arguments ?? {};
    if (typeof args === "string") {
      try {
        args = JSON.parse(args);
      } catch {
        return fail(`tool_calls[${j}].function.arguments is not valid JSON`);
      }
    }
    return `<tool_call>\n${JSON.stringify({ name: fn.name, arguments: args })}\n</tool_call>`;
  });
}

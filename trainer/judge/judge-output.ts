/**
 * The judge's structured output. Simia-RL asks GPT for `{"reasoning": ..., "reward": 0 or 1}`; other judges say
 * "score". We accept either, validate with zod, and extract the JSON from fences or surrounding prose because
 * chat models wrap it. A reply that still fails is a parse failure — the caller retries, then gives up with null.
 */
import { z } from "zod";

const unitNumber = z.preprocess(
  (v) => (typeof v === "boolean" ? (v ? 1 : 0) : typeof v === "string" && v.trim() !== "" && !Number.isNaN(Number(v)) ? Number(v) : v),
  z.number().min(0).max(1),
);

export const JudgeOutputSchema = z
  .object({
    reward: unitNumber.optional(),
    score: unitNumber.optional(),
    reasoning: z.string().min(1),
    components: z.record(z.string(), z.number()).optional(),
  })
  .refine((o) => o.reward !== undefined || o.score !== undefined, { message: 'needs a numeric "reward" (or "score") between 0 and 1' });

export interface JudgeVerdict {
  reward: number;
  reasoning: string;
  components: Record<string, number>;
}

export type JudgeParse = { ok: true; verdict: JudgeVerdict } | { ok: false; error: string };

function candidates(text: string): string[] {
  const out = [text.trim()];
  for (const m of text.matchAll(/```(?:json)?\s*([\s\S]*?)```/gi)) out.push(m[1].trim());
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  if (first !== -1 && last > first) out.push(text.slice(first, last + 1));
  return out;
}

export function parseJudgeReply(text: string): JudgeParse {
  const withoutThinking = text.replace(/<think>[\s\S]*?<\/think>/gi, "");
  let lastError = "no JSON object found in the reply";
  for (const c of candidates(withoutThinking)) {
    let value: unknown;
    try {
      value = JSON.parse(c);
    } catch (e) {
      lastError = `invalid JSON: ${e instanceof Error ? e.message : String(e)}`;
      continue;
    }
    const r = JudgeOutputSchema.safeParse(value);
    if (r.success) {
      return {
        ok: true,
        verdict: { reward: (r.data.reward ?? r.data.score) as number, reasoning: r.data.reasoning, components: r.data.components ?? {} },
      };
    }
    lastError = r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
  }
  return { ok: false, error: lastError };
}

/**
 * Runs an LLM judge (or the environment's offline judge through the same path). A reply that does not parse is
 * retried with the parse error fed back (each retry is its own recorded call); if it still fails the episode is
 * *unscored* (reward null), never 0 — a broken judge must not read as a bad policy (TRL's reward functions
 * likewise return None for "unscorable"). With `samples > 1` the judge is asked k times and agreement reported.
 */
import type { LlmChat, LlmChatRequest } from "../envs/types";
import { parseJudgeReply, type JudgeVerdict } from "./judge-output";

export interface JudgeOptions {
  llm: LlmChat;
  /** The rubric prompt (system + user) asking for {"reward", "reasoning", "components"?}. */
  messages: LlmChatRequest["messages"];
  turn?: number;
  /** The offline judge's reply (JSON text), used when no judge endpoint is configured. */
  offline?: () => string | Promise<string>;
  /** Calls per sample before giving up on a reply that does not parse (default 2). */
  maxAttempts?: number;
  /** Independent judgements to take (default 1). */
  samples?: number;
  /** How several samples combine: mean reward, or the majority of rounded 0/1 rewards. */
  aggregate?: "mean" | "majority";
  /**
   * A judgement whose replies never parsed: "unscored" (reward null, the default) or "zero" (reward 0, Simia-RL's
   * rule). Only unparsable replies score 0; a judge endpoint that fails leaves the episode unscored either way.
   */
  unparsable?: "unscored" | "zero";
}

export interface JudgeSample {
  reward: number | null;
  reasoning: string;
  components: Record<string, number>;
  callIds: string[];
  /** Replies that failed to parse or calls that failed, for this sample. */
  failures: string[];
}

export interface JudgeResult {
  reward: number | null;
  reasoning: string;
  components: Record<string, number>;
  samples: JudgeSample[];
  /** Share of scored samples agreeing with the majority (rounded reward); null with fewer than 2 scored samples. */
  agreement: number | null;
  callIds: string[];
}

async function judgeOnce(opts: JudgeOptions, sampleIndex: number, samples: number): Promise<JudgeSample> {
  const maxAttempts = opts.maxAttempts ?? 2;
  let messages = [...opts.messages];
  if (samples > 1) {
    // Distinguishes the k requests so a response cache does not return one answer k times.
    messages = [
      ...messages.slice(0, -1),
      {
        ...messages[messages.length - 1],
        content: `${messages[messages.length - 1].content}\n\n(Independent judgement ${sampleIndex + 1} of ${samples}.)`,
      },
    ];
  }
  const callIds: string[] = [];
  const failures: string[] = [];
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    let text: string;
    try {
      const res = await opts.llm.chat({
        role: "judge",
        messages,
        turn: opts.turn,
        offline: opts.offline,
        responseFormat: "json",
        validate: judgeReplyProblem,
      });
      callIds.push(res.callId);
      text = res.text;
    } catch (e) {
      failures.push(`judge call failed: ${e instanceof Error ? e.message : String(e)}`);
      break; // the client already retried transport errors; a further attempt here would only multiply them
    }
    const parsed = parseJudgeReply(text);
    if (parsed.ok) return { ...parsed.verdict, callIds, failures };
    failures.push(`unparseable judge reply: ${parsed.error}`);
    messages = [
      ...messages,
      { role: "assistant", content: text },
      {
        role: "user",
        content: `Your reply could not be used (${parsed.error}). Reply with only a JSON object: {"reasoning": "...", "reward": 0 or 1}.`,
      },
    ];
  }
  const onlyParseFailures = failures.length > 0 && failures.every((f) => f.startsWith("unparseable"));
  if (opts.unparsable === "zero" && onlyParseFailures) {
    return {
      reward: 0,
      reasoning: `Scored 0 because the judge's reply could not be parsed (Simia-RL's rule): ${failures.join(" | ")}`,
      components: { judge_unparsable: 1 },
      callIds,
      failures,
    };
  }
  return { reward: null, reasoning: `Unscored: ${failures.join(" | ")}`, components: {}, callIds, failures };
}

/** For the LLM client: a judge reply that does not parse is recorded as a failed call with the reason. */
function judgeReplyProblem(text: string): string | null {
  const parsed = parseJudgeReply(text);
  return parsed.ok ? null : `unparseable judge reply: ${parsed.error}`;
}

function combine(scored: JudgeVerdict[], aggregate: "mean" | "majority"): { reward: number; agreement: number | null } {
  const rounded = scored.map((s) => (s.reward >= 0.5 ? 1 : 0));
  const ones = rounded.filter((r) => r === 1).length;
  const majority = ones * 2 >= rounded.length ? 1 : 0;
  const agreement = scored.length >= 2 ? rounded.filter((r) => r === majority).length / rounded.length : null;
  const reward = aggregate === "majority" ? majority : scored.reduce((a, s) => a + s.reward, 0) / scored.length;
  return { reward, agreement };
}

export async function runJudge(opts: JudgeOptions): Promise<JudgeResult> {
  const k = Math.max(1, opts.samples ?? 1);
  const samples = await Promise.all(Array.from({ length: k }, (_, i) => judgeOnce(opts, i, k)));
  const scored = samples.filter((s): s is JudgeSample & { reward: number } => s.reward !== null);
  const callIds = samples.flatMap((s) => s.callIds);
  if (scored.length === 0) {
    return { reward: null, reasoning: samples[0].reasoning, components: {}, samples, agreement: null, callIds };
  }
  const { reward, agreement } = combine(scored, opts.aggregate ?? "mean");
  const components: Record<string, number> = {};
  for (const s of scored) for (const [key, v] of Object.entries(s.components)) components[key] = (components[key] ?? 0) + v / scored.length;
  const reasoning =
    scored.length === 1 ? scored[0].reasoning : scored.map((s, i) => `[judgement ${i + 1}: ${s.reward}] ${s.reasoning}`).join("\n");
  return { reward, reasoning, components, samples, agreement, callIds };
}

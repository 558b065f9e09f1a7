/**
 * Simia-RL's judgement, for the simulated environment's Simia mode (`judge.mode: "simia"`): what its
 * `_evaluate_final_performance` makes of the judge's reply (ragen/env/simulated_General/env.py). One call, no retry
 * with the problem fed back; the reply's text after `</think>`, stripped; the first of [whole reply, the ```json
 * fence, the ``` fence, the first `{...}` up to the first `}`] that json.loads reads as an object; then
 * `float(reward)` (0 when absent) and the reasoning as given. A reply none of those read scores 0 with Simia's
 * "Failed to parse evaluation" reasoning — Simia's rule, opted into with this mode.
 *
 * Kept on purpose: where Simia's float() raises (a reward of "yes", null or a list) its training run stops, and a
 * NaN or infinite reward would poison its batch; here those episodes are unscored, with the reason.
 */
import type { LlmChat, LlmChatRequest } from "../envs/types";
import { simiaReplyText } from "../../lib/simia-record";
import { pythonFloat, pythonJsonLoads, pythonPrefix, pythonStrip } from "../../lib/python-values";
import { pythonRepr } from "../../lib/python-json";

export interface SimiaVerdict {
  /** Simia's reward; null where Simia would stop or produce a non-finite reward. */
  reward: number | null;
  reasoning: string;
  /** The reply could not be read (Simia scores it 0). */
  unparsable: boolean;
  /** Numeric `components` the reply carried (Simia ignores them; the offline judge's show in the inspector). */
  components: Record<string, number>;
}

function candidates(response: string): string[] {
  const out = [response];
  if (response.includes("```")) {
    for (const fence of ["```json", "```"]) {
      const start = response.indexOf(fence);
      if (start === -1) continue;
      const end = response.indexOf("```", start + fence.length);
      if (end !== -1) out.push(pythonStrip(response.slice(start + fence.length, end)));
    }
  }
  const firstObject = /\{[\s\S]*?\}/.exec(response);
  if (firstObject) out.push(firstObject[0]);
  return out;
}

/** Simia's verdict on a judge reply as the API returned it (before its `</think>` cut and strip). */
export function simiaVerdict(rawReply: string): SimiaVerdict {
  const response = simiaReplyText(rawReply);
  let parsed: Record<string, unknown> | null = null;
  for (const c of candidates(response)) {
    const loaded = pythonJsonLoads(c);
    if (loaded && typeof loaded.value === "object" && loaded.value !== null && !Array.isArray(loaded.value)) {
      parsed = loaded.value as Record<string, unknown>;
      break;
    }
  }
  if (!parsed)
    return { reward: 0, reasoning: `Failed to parse evaluation: ${pythonPrefix(response, 100)}...`, unparsable: true, components: {} };
  const given = parsed.components;
  const components =
    given && typeof given === "object" && !Array.isArray(given)
      ? Object.fromEntries(Object.entries(given).filter((e): e is [string, number] => typeof e[1] === "number" && Number.isFinite(e[1])))
      : {};
  const rawReasoning = "reasoning" in parsed ? parsed.reasoning : "No evaluation reasoning provided";
  const reasoning = typeof rawReasoning === "string" ? rawReasoning : pythonRepr(rawReasoning);
  const reward = pythonFloat("reward" in parsed ? parsed.reward : 0);
  if (!reward.ok) {
    return {
      reward: null,
      reasoning: `Unscored: Simia-RL's float(reward) raises here (${reward.error}), stopping its run`,
      unparsable: false,
      components,
    };
  }
  if (!Number.isFinite(reward.value)) {
    return {
      reward: null,
      reasoning: `Unscored: Simia-RL would score ${reward.value} here, which no advantage can use`,
      unparsable: false,
      components,
    };
  }
  return { reward: reward.value, reasoning, unparsable: false, components };
}

/**
 * One judgement as Simia asks for it: a single call with Simia's sampling parameters (the client still retries
 * transport errors, as Simia's `_call_gpt` does). A judge endpoint that fails leaves the episode unscored.
 */
export async function runSimiaJudge(opts: {
  llm: LlmChat;
  messages: LlmChatRequest["messages"];
  turn: number;
  offline: () => string | Promise<string>;
  /** Simia's temperature and max_completion_tokens. */
  params: LlmChatRequest["params"];
}): Promise<SimiaVerdict & { callIds: string[] }> {
  try {
    const res = await opts.llm.chat({
      role: "judge",
      messages: opts.messages,
      turn: opts.turn,
      offline: opts.offline,
      params: opts.params,
    });
    return { ...simiaVerdict(res.text), callIds: [res.callId] };
  } catch (e) {
    return {
      reward: null,
      reasoning: `Unscored: judge call failed: ${e instanceof Error ? e.message : String(e)}`,
      unparsable: false,
      components: {},
      callIds: [],
    };
  }
}

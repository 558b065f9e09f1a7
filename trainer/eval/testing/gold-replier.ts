/**
 * A scripted model for the loopback fake OpenAI server: it replays the tasks' gold actions over the wire. Each task
 * is first played once offline by the built-in gold policy with tools as schemas, keeping, per turn, what the model
 * sees (the non-assistant messages of the request, as the endpoint policy sends them) and what it answers (content
 * and `tool_calls`, arguments as JSON text). A request is then answered by the recorded turn whose conversation it
 * matches — so a reply is right only if the endpoint policy built the request (tools, tool_calls, tool results by
 * id) the way the model needs it.
 */
import { createOfflineLlm } from "../../llm/offline-provider";
import type { FakeChatRequest, FakeReply } from "../../llm/fake-server/server";
import type { Environment, Task } from "../../envs/types";
import { runEpisode, type PolicyOutput } from "../../rollout/run-episode";
import { toWireMessages } from "../endpoint-policy";
import { createGoldPolicy, loadGoldScripts } from "../gold-policy";

export interface GoldTranscript {
  taskId: string;
  /** Per turn: the assistant messages the request holds (a task's history included) and what the model sees — "role:content" of each other non-system message. */
  turns: { assistants: number; seen: string[]; reply: FakeReply }[];
  /** The gold play's own reward (played offline). */
  reward: number | null;
}

const seenOf = (messages: readonly { role: string; content: string | null }[]) =>
  messages.filter((m) => m.role !== "assistant" && m.role !== "system").map((m) => `${m.role}:${m.content ?? ""}`);

const toFakeReply = (out: PolicyOutput): FakeReply => ({
  content: out.text,
  ...(out.toolCalls?.length
    ? {
        toolCalls: out.toolCalls.map((c, i) => ({
          id: c.id ?? `call_${i}`,
          name: c.name,
          arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
        })),
      }
    : {}),
});

export async function recordGoldTranscripts(env: Environment, tasks: readonly Task[], maxTurns: number): Promise<GoldTranscript[]> {
  const gold = createGoldPolicy(await loadGoldScripts(env, tasks));
  const out: GoldTranscript[] = [];
  for (const task of tasks) {
    const turns: GoldTranscript["turns"] = [];
    const episode = await runEpisode({
      env,
      task,
      maxTurns,
      ctx: { seed: 0, llm: createOfflineLlm(), toolPresentation: "schemas" },
      policy: async (messages, info) => {
        const wire = toWireMessages(messages);
        const reply = await gold(messages, info);
        turns.push({ assistants: wire.filter((m) => m.role === "assistant").length, seen: seenOf(wire), reply: toFakeReply(reply) });
        return reply;
      },
    });
    out.push({ taskId: task.id, turns, reward: episode.evaluation?.reward ?? null });
  }
  return out;
}

export interface ReplierOptions {
  /** Trials to spoil: given the task and the request's `seed`, true answers with a refusal instead of the gold turns. */
  spoil?: (taskId: string, seed: number | undefined) => boolean;
}

export const REFUSAL = "Sorry, I cannot help with that.";

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The fake server's reply function for these transcripts. */
export function goldReplier(transcripts: readonly GoldTranscript[], opts: ReplierOptions = {}): (req: FakeChatRequest) => FakeReply {
  return (req) => {
    const assistants = req.messages.filter((m) => m.role === "assistant").length;
    const seen = seenOf(req.messages);
    const seed = typeof req.params.seed === "number" ? req.params.seed : undefined;
    for (const t of transcripts) {
      const turn = t.turns.find((x) => x.assistants === assistants && same(x.seen, seen));
      if (turn && !opts.spoil?.(t.taskId, seed)) return turn.reply;
    }
    // A spoiled trial, or a conversation no gold play went through: the model declines, to the end.
    return { content: REFUSAL };
  };
}

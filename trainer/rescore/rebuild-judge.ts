/**
 * Rebuilding a judge's inputs from a *stored* trajectory: the prompt (a template filled from the stored task and
 * conversation) and the offline judge's reply. Re-judging must not replay the episode — the point is to score the
 * exact conversation the policy produced, with another judge.
 *
 * For the simulated environment the offline judge is the environment's own (offlineJudgeReply) over a state
 * reconstructed from the conversation, so "stricter" means exactly what it means during training. Other
 * environments get a generic checklist over the stored evidence (reward components, final vs expected state,
 * how the episode ended).
 */
import type { ConversationMessage } from "../../lib/conversation";
import type { JudgeScorer } from "../../lib/rescoring-config";
import { createSimulatedState, offlineJudgeReply, type SimulatedState } from "../envs/simulated/offline-simulators";
import { SimulatedTaskDataSchema, type SimulatedTaskData } from "../envs/simulated/task-schema";
import { renderTemplate, simiaTranscript } from "../../lib/simulated-prompts";
import { fnv1a32, mulberry32Step } from "../../lib/seeded-random";

export interface StoredTrajectory {
  id: string;
  conversation: ConversationMessage[];
  rewardComponents: Record<string, unknown>;
  finalState: unknown;
  expectedState: unknown;
  status: string;
  endReason: string | null;
}

/** The Group.task JSON the trainer stores: {id, split, tags, data}. */
export function simulatedTaskOf(task: unknown): SimulatedTaskData | null {
  const data = task && typeof task === "object" && "data" in task ? (task as { data: unknown }).data : undefined;
  const parsed = SimulatedTaskDataSchema.safeParse(data);
  return parsed.success ? parsed.data : null;
}

/** The state the simulated episode had at its end, as far as the conversation shows it. */
export function reconstructSimulatedState(conversation: ConversationMessage[]): SimulatedState {
  const state = createSimulatedState();
  const results = new Map(conversation.filter((m) => m.role === "tool" && m.toolCallId).map((m) => [m.toolCallId as string, m.content]));
  for (const m of conversation) {
    if (m.source !== "policy") continue;
    state.policyTurns++;
    if (m.formatError) state.formatErrors++;
    for (const c of m.toolCalls ?? [])
      state.calls.push({ name: c.name, arguments: c.arguments, turn: m.turn, result: results.get(c.id) ?? "" });
    if (!m.formatError) state.agentTexts.push({ turn: m.turn, text: m.content });
  }
  return state;
}

export function historyText(conversation: ConversationMessage[]): string {
  return conversation
    .filter((m) => m.role !== "system")
    .map((m) => {
      if (m.role === "tool") return `Tool ${m.name ?? ""} result: ${m.content}`;
      if (m.source === "environment") return `Environment: ${m.content}`;
      const calls = m.toolCalls?.length
        ? ` [calls: ${m.toolCalls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(", ")}]`
        : "";
      return `${m.role === "assistant" ? "Agent" : "User"}: ${m.content}${calls}`;
    })
    .join("\n");
}

/** Placeholder values for a judge prompt template. */
export function templateValues(traj: StoredTrajectory, task: unknown): Record<string, string> {
  const sim = simulatedTaskOf(task);
  const firstUser = traj.conversation.find((m) => m.role === "user")?.content ?? "(unknown)";
  const json = (v: unknown) => (v === null || v === undefined ? "(none)" : JSON.stringify(v, null, 1));
  return {
    instruction: sim?.instruction ?? firstUser,
    policy: sim?.policy || traj.conversation.find((m) => m.role === "system")?.content || "(none)",
    expected: json(sim?.expected ?? traj.expectedState),
    final_state: json(traj.finalState),
    task: json(task),
    domain: sim?.domain ?? "(unknown)",
    history: historyText(traj.conversation),
    // Simia-RL's judge inputs: the agent's system prompt and the conversation in its "Assistant:" /
    // "User/Tool response:" layout (the simulated environment's default judge template uses these).
    system_prompt: traj.conversation.find((m) => m.role === "system")?.content ?? "(none)",
    transcript: simiaTranscript(
      traj.conversation
        .filter((m) => m.role !== "system")
        .map((m) => ({ from: m.source === "policy" ? "agent" : "environment", text: m.content })),
      "No conversation history",
    ),
  };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function sameJson(a: unknown, b: unknown): boolean {
  const canon = (v: unknown): string =>
    Array.isArray(v)
      ? `[${v.map(canon).join(",")}]`
      : isPlainObject(v)
        ? `{${Object.keys(v)
            .sort()
            .map((k) => `${k}:${canon(v[k])}`)
            .join(",")}}`
        : JSON.stringify(v);
  return canon(a) === canon(b);
}

/** Offline checklist judge for environments without their own: every stored signal of success is one item. */
export function checklistJudgeReply(traj: StoredTrajectory, threshold: number): string {
  const items: { label: string; ok: boolean }[] = [];
  for (const [name, value] of Object.entries(traj.rewardComponents)) {
    if (typeof value !== "number" || name === "judge_agreement") continue;
    items.push({ label: `component ${name} = ${Number(value.toFixed(3))}`, ok: value >= 0.5 });
  }
  const f = traj.finalState;
  const e = traj.expectedState;
  if (isPlainObject(f) && isPlainObject(e) && sameJson(Object.keys(f).sort(), Object.keys(e).sort())) {
    items.push({ label: "final state matches the expected state", ok: sameJson(f, e) });
  }
  items.push({
    label: `episode ended normally (${traj.endReason ?? traj.status})`,
    ok: traj.status !== "error" && traj.endReason !== "error" && traj.endReason !== "max_sim_steps",
  });
  const score = items.filter((i) => i.ok).length / items.length;
  const passed = score >= threshold - 1e-9;
  const reasoning = `${passed ? "Success" : "Failure"}: ${Math.round(score * 100)}% of the checklist met (threshold ${Math.round(threshold * 100)}%). ${items.map((i) => `${i.ok ? "✓" : "✗"} ${i.label}`).join("; ")}.`;
  return JSON.stringify({ reasoning, reward: passed ? 1 : 0, components: { checklist: score } });
}

/** Seeded uniform in [0,1) from a string (FNV-1a then one mulberry32 round): the same job gives the same noise. */
export function seededUniform(key: string): number {
  return mulberry32Step(fnv1a32(key))[0];
}

/**
 * The offline judge's reply function for one trajectory. Each call is one judgement (k samples call it k times);
 * with `noise` > 0 a judgement's verdict is flipped with that probability, like a wavering LLM judge.
 */
export function offlineJudgeFor(traj: StoredTrajectory, task: unknown, scorer: JudgeScorer, noiseKey: string): () => string {
  const sim = simulatedTaskOf(task);
  const { threshold, argumentMatch, noise } = scorer.offline;
  let call = 0;
  return () => {
    const reply = sim
      ? offlineJudgeReply(sim, reconstructSimulatedState(traj.conversation), { threshold, argumentMatch })
      : checklistJudgeReply(traj, threshold);
    const index = call++;
    if (noise <= 0 || seededUniform(`${noiseKey}:${traj.id}:${index}`) >= noise) return reply;
    const v = JSON.parse(reply) as { reasoning: string; reward: number; components?: Record<string, number> };
    return JSON.stringify({ ...v, reward: 1 - v.reward, reasoning: `${v.reasoning} [noisy offline judge: verdict flipped]` });
  };
}

export function judgePromptFor(traj: StoredTrajectory, task: unknown, scorer: JudgeScorer): { role: "user"; content: string }[] {
  return [{ role: "user", content: renderTemplate(scorer.prompt, templateValues(traj, task)) }];
}

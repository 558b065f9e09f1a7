/**
 * Simia-RL's training records: SimulatedGeneralEnv._save_trajectory_record writes one indented JSON file per episode
 * at `training_record/sample_{sample_index}/env_{env_id}_ep{episode_count}_{timestamp}.json`:
 *
 *   {env_id, sample_index, episode_count, timestamp, reward, reasoning, num_steps, max_steps, termination_reason,
 *    system_prompt, reference_conversations: [{from, value}], conversation_history: [{role: "human"|"assistant",
 *    content}], gpt_call_history: [{timestamp, prompt, response, metadata: {step, type}, deployment, temperature,
 *    max_tokens}], config: {deployment, temperature, max_tokens, azure_endpoint}}
 *
 * Simia's GRPO plays one sample in `group_size` environments per episode round, so the episodes of one sample and
 * episode_count form a group; episode_count is the step. Simia's one simulator plays both the user and the tools,
 * so its "human" turns are attributed to the user simulator; its final_evaluation calls are the judge's.
 */
import type { TrajectoryInput } from "../ingest";
import type { ImportFile, ImportedRun, ImportProblem } from "./types";
import { rewardCurve } from "./types";

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown) => (typeof v === "string" ? v : v === null || v === undefined ? "" : JSON.stringify(v));
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

const END_REASONS: Record<string, string> = {
  gpt_decision: "user_done",
  max_steps: "max_turns",
  token_limit_exceeded_before_generation: "context_full",
};

export function importSimia(files: ImportFile[], opts: { name: string }): ImportedRun {
  const problems: ImportProblem[] = [];
  const trajectories: TrajectoryInput[] = [];
  let config: Json | null = null;
  const records = files.filter((f) => /(^|\/)env_[^/]*_ep\d+_[^/]*\.json$/.test(f.path)).sort((a, b) => a.path.localeCompare(b.path));
  if (records.length === 0)
    problems.push({
      file: files[0]?.path ?? "(none)",
      message: "no env_<id>_ep<n>_<time>.json files: point at Simia-RL's training_record folder",
    });
  for (const file of records) {
    let r: Json;
    try {
      r = obj(JSON.parse(file.text));
    } catch (err) {
      problems.push({ file: file.path, message: `not valid JSON (${(err as Error).message})` });
      continue;
    }
    const history = Array.isArray(r.conversation_history) ? r.conversation_history.map(obj) : [];
    if (history.length === 0) {
      problems.push({ file: file.path, message: "no conversation_history" });
      continue;
    }
    const sample = r.sample_index ?? /sample_([^/]+)\//.exec(file.path)?.[1];
    const step = num(r.episode_count) ?? Number(/_ep(\d+)_/.exec(file.path)?.[1] ?? 0);
    config ??= obj(r.config);
    let turn = 0;
    const conversation: TrajectoryInput["conversation"] = [];
    if (str(r.system_prompt)) conversation.push({ role: "system", source: "system", content: str(r.system_prompt), turn: 0 });
    for (const m of history) {
      const assistant = m.role === "assistant";
      conversation.push({
        role: assistant ? "assistant" : "user",
        source: assistant ? "policy" : "user_simulator",
        content: str(m.content),
        turn,
      });
      if (assistant) turn++;
    }
    const calls = (Array.isArray(r.gpt_call_history) ? r.gpt_call_history.map(obj) : []).map((c) => {
      const meta = obj(c.metadata);
      return {
        role: meta.type === "final_evaluation" ? ("judge" as const) : ("user_simulator" as const),
        model: str(c.deployment) || "unknown",
        messages: [{ role: "user", content: str(c.prompt) }],
        response: c.response === null || c.response === undefined ? null : str(c.response),
        turn: num(meta.step),
        ...(typeof c.timestamp === "string" && !Number.isNaN(Date.parse(`${c.timestamp}Z`))
          ? { startedAt: new Date(`${c.timestamp.replace(/Z$/, "")}Z`).toISOString() }
          : {}),
      };
    });
    const reward = num(r.reward);
    trajectories.push({
      id: file.path,
      step,
      group: `sample-${str(sample)}`,
      taskId: str(sample),
      task: { system: str(r.system_prompt), reference: Array.isArray(r.reference_conversations) ? r.reference_conversations : [] },
      conversation,
      reward,
      reasoning: str(r.reasoning) || null,
      endReason: END_REASONS[str(r.termination_reason)] ?? (str(r.termination_reason) || null),
      llmCalls: calls,
    });
  }
  const { azure_endpoint: _endpoint, ...settings } = config ?? {};
  void _endpoint;
  return {
    run: {
      name: opts.name,
      source: "simia",
      environment: "simulated",
      policyModel: "unknown",
      config: { importedFrom: "Simia-RL training_record", simulator: settings },
    },
    steps: rewardCurve(trajectories),
    trajectories,
    problems,
  };
}

/**
 * What a Simia-RL trajectory record (lib/simia-record.ts) takes from where an episode was played, field by field as
 * Simia's `_save_trajectory_record` fills them: env_id is the environment slot (group × group size + index in the
 * group), sample_index the dataset sample (the task), episode_count the slot's episodes so far (the step),
 * max_steps the step limit, system_prompt and reference_conversations the sample's own `system` and
 * `conversations` when the task was imported from one, and `config` the simulator's model and sampling settings
 * (its endpoint, never a key).
 */
import type { SimiaConfig, SimiaExportInput } from "../../lib/simia-record";

export interface RunFacts {
  groupSize: number;
  maxTurns: number | null;
  config: SimiaConfig;
}

/** What Simia's record takes from the run's config: group size (env slots), step limit and simulator settings. */
export function runFacts(config: unknown): RunFacts {
  const c = (config && typeof config === "object" ? config : {}) as {
    grpo?: { groupSize?: number };
    rollout?: { maxTurns?: number; temperature?: number };
    llm?: Record<string, { baseUrl?: string; model?: string; maxTokens?: number } | undefined>;
  };
  const sim = c.llm?.userSimulator ?? c.llm?.judge;
  return {
    groupSize: c.grpo?.groupSize ?? 1,
    maxTurns: c.rollout?.maxTurns ?? null,
    config: {
      deployment: sim?.model ?? "offline",
      temperature: typeof c.rollout?.temperature === "number" ? c.rollout.temperature : null,
      max_tokens: typeof sim?.maxTokens === "number" ? sim.maxTokens : null,
      azure_endpoint: sim?.baseUrl ?? "offline",
      simulator_mode: "base",
    },
  };
}

function taskData(task: unknown): { system?: string; reference?: { from: string; value: string }[] } {
  const data = task && typeof task === "object" ? (task as { data?: unknown }).data : undefined;
  return data && typeof data === "object" ? (data as { system?: string; reference?: { from: string; value: string }[] }) : {};
}

export interface PlacedTrajectory {
  taskId: string;
  indexInGroup: number;
  step: number;
  group: { task: unknown; indexInStep: number } | null;
}

export function simiaPlacement(t: PlacedTrajectory, run: RunFacts): Partial<SimiaExportInput> {
  const data = taskData(t.group?.task);
  return {
    envId: (t.group?.indexInStep ?? 0) * run.groupSize + t.indexInGroup,
    sampleIndex: /^\d+$/.test(t.taskId) ? Number(t.taskId) : t.taskId,
    episodeCount: t.step,
    maxSteps: run.maxTurns ?? undefined,
    systemPrompt: data.system,
    referenceConversations: data.reference,
    config: run.config,
  };
}

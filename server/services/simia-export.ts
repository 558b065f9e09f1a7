/**
 * What a Simia-RL trajectory record (lib/simia-record.ts) takes from where an episode was played, field by field as
 * Simia's `_save_trajectory_record` fills them: env_id is the environment slot (group × group size + index in the
 * group), sample_index the dataset sample (the task), episode_count the slot's episodes so far (the step),
 * max_steps the step limit, system_prompt and reference_conversations the sample's own `system` and
 * `conversations` when the task was imported from one, and `config` the simulator's model and sampling settings
 * (its endpoint, never a key) under Simia's four keys.
 */
import type { SimiaConfig, SimiaExportInput } from "../../lib/simia-record";
import { simulatedJudgeMode } from "../../lib/environment-options";

export interface RunFacts {
  groupSize: number;
  maxTurns: number | null;
  config: SimiaConfig;
}

/** Simia's SimulatedEnvConfig defaults, which the simulated environment's Simia mode sends (its `simiaSampling`). */
const SIMIA_DEFAULT_SAMPLING = { temperature: 1, max_completion_tokens: 60000 };

/**
 * What Simia's record takes from the run's config: group size (env slots), step limit, and the simulator's model and
 * sampling settings — in Simia's mode (simulated environment, `judge.mode: "simia"`) the ones it sends in place of
 * the endpoint's, otherwise the endpoint's own.
 */
export function runFacts(config: unknown): RunFacts {
  const c = (config && typeof config === "object" ? config : {}) as {
    grpo?: { groupSize?: number };
    rollout?: { maxTurns?: number };
    environment?: string;
    environmentOptions?: {
      simulator?: string;
      judge?: { mode?: string };
      simiaSampling?: { temperature?: number; max_completion_tokens?: number };
    };
    llm?: Record<string, { baseUrl?: string; model?: string; temperature?: number; maxTokens?: number } | undefined>;
  };
  const sim = c.llm?.userSimulator ?? c.llm?.judge;
  const simiaMode = (c.environment ?? "simulated") === "simulated" && simulatedJudgeMode(c.environmentOptions) === "simia";
  const sampling = simiaMode
    ? { ...SIMIA_DEFAULT_SAMPLING, ...c.environmentOptions?.simiaSampling }
    : { temperature: sim?.temperature, max_completion_tokens: sim?.maxTokens };
  const num = (v: unknown) => (typeof v === "number" ? v : null);
  return {
    groupSize: c.grpo?.groupSize ?? 1,
    maxTurns: c.rollout?.maxTurns ?? null,
    config: {
      deployment: sim?.model ?? "offline",
      temperature: sim || simiaMode ? num(sampling.temperature) : null,
      max_tokens: sim || simiaMode ? num(sampling.max_completion_tokens) : null,
      azure_endpoint: sim?.baseUrl ?? "offline",
    },
  };
}

function taskData(task: unknown): { systemPrompt?: string; reference?: { from: string; value: string }[] } {
  const data = task && typeof task === "object" ? (task as { data?: unknown }).data : undefined;
  return data && typeof data === "object" ? (data as { systemPrompt?: string; reference?: { from: string; value: string }[] }) : {};
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
    // Simia's env_id is the slot number as a string (its env manager passes str(env_id) into the env config).
    envId: String((t.group?.indexInStep ?? 0) * run.groupSize + t.indexInGroup),
    sampleIndex: /^\d+$/.test(t.taskId) ? Number(t.taskId) : t.taskId,
    episodeCount: t.step,
    maxSteps: run.maxTurns ?? undefined,
    systemPrompt: data.systemPrompt,
    referenceConversations: data.reference,
    config: run.config,
  };
}

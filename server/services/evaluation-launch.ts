/**
 * Launching evaluations from what a person has in front of them: a training run's checkpoint ("evaluate this
 * checkpoint on the same tasks with the same k"), and the demo's one-click evaluation by the built-in gold replay.
 */
import type { PrismaClient } from "../../db/client";
import { SCRIPTED_POLICY_LABEL } from "../../lib/eval-config";
import { parseRunConfig, type RunConfigInput } from "../../lib/run-config";
import { AppError, notFound } from "../errors";
import { createRun, INTERNAL_SOURCE, type CreatedRun, type LaunchInfo } from "./run-lifecycle";

export interface CheckpointEvaluationInput extends LaunchInfo {
  runId: string;
  /** Completed steps of the checkpoint; omitted: the latest (the final policy of a finished run). */
  step?: number;
  k: number;
  tasks?: string[];
  maxTasks?: number;
  concurrency?: number;
  name?: string;
}

/**
 * An evaluation run of a training run's checkpoint: the run's environment, options, dataset, rollout settings and
 * LLM endpoints, its policy at that checkpoint, the chosen tasks and k. createRun pins the step and copies the policy.
 */
export async function evaluateCheckpoint(db: PrismaClient, input: CheckpointEvaluationInput): Promise<CreatedRun> {
  const source = await db.run.findUnique({ where: { id: input.runId }, select: { name: true, config: true, source: true } });
  if (!source) throw notFound("Run", input.runId);
  if (source.source !== INTERNAL_SOURCE)
    throw new AppError("CONFLICT", `Run "${input.runId}" was trained by ${source.source}; its checkpoints are not here.`);
  const trained = parseRunConfig(source.config);
  const config: RunConfigInput = {
    name: input.name ?? `eval · ${source.name} · ${input.step === undefined ? "latest checkpoint" : `step ${input.step}`}`,
    tags: ["eval"],
    seed: trained.seed,
    environment: trained.environment,
    environmentOptions: trained.environmentOptions,
    dataset: trained.dataset,
    rollout: trained.rollout,
    llm: trained.llm,
    judge: trained.judge,
    policy: { ...trained.policy, checkpoint: { runId: input.runId, ...(input.step !== undefined ? { step: input.step } : {}) } },
    eval: {
      k: input.k,
      ...(input.tasks ? { tasks: input.tasks } : {}),
      ...(input.maxTasks ? { maxTasks: input.maxTasks } : {}),
      ...(input.concurrency ? { concurrency: input.concurrency } : {}),
    },
  };
  return createRun(db, { config, launchedBy: input.launchedBy, launchedByName: input.launchedByName });
}

export const DEMO_EVALUATION_NAME = `demo · tau2-retail · ${SCRIPTED_POLICY_LABEL}`;

/**
 * The built-in τ² tasks an offline evaluation can score. The fifth, hg_lamp_options_info, counts a natural-language
 * assertion, which nothing judges without a judge endpoint: offline it is unscored, so the demo leaves it out.
 */
const DEMO_TASKS = ["hg_cancel_bottle", "hg_return_lamp_gift_card", "hg_exchange_socks_size", "hg_move_lamp_address"].map(
  (id) => `tau2-builtin-${id}`,
);

/** The demo's evaluation: τ² retail's built-in tasks played twice each by the gold replay, offline, in seconds. */
export function demoEvaluationConfig(): RunConfigInput {
  return {
    name: DEMO_EVALUATION_NAME,
    tags: ["demo", "eval"],
    environment: "tau2-retail",
    rollout: { maxTurns: 30 },
    policy: { scripted: "gold" },
    eval: { k: 2, concurrency: 4, tasks: DEMO_TASKS },
  };
}

export async function queueDemoEvaluation(db: PrismaClient, launch: LaunchInfo): Promise<CreatedRun> {
  return createRun(db, { config: demoEvaluationConfig(), ...launch });
}

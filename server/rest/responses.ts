/**
 * What each REST operation answers, as zod schemas of the JSON on the wire (dates are ISO strings there). The
 * OpenAPI document declares them (openapi.ts), so a client generated from it (openapi-typescript) is typed; the API
 * tests parse every real response with them, and every object is strict, so a field a service adds without
 * declaring it here fails a test instead of drifting silently. Free-form JSON (run configs, tasks, scorer settings)
 * stays free-form.
 */
import { z } from "zod";
import { RUN_STATUSES } from "../../lib/run-status";

const timestamp = z.iso.datetime().describe("ISO 8601, UTC");
const json = z.unknown().describe("Free-form JSON, as stored");
const jsonObject = z.record(z.string(), z.unknown());
const runStatus = z.enum(RUN_STATUSES);
const trajectoryStatus = z.enum(["ok", "truncated", "unscored", "error"]);
const rescoringStatus = z.enum(["queued", "running", "succeeded", "failed"]);
const nullableNumber = z.number().nullable();

// ── ingest ──────────────────────────────────────────────────────────────────────────────────────────────────────
const attachedRun = z.strictObject({
  id: z.string(),
  url: z.string().describe("The run's dashboard URL"),
  status: runStatus,
  resumed: z.boolean().describe("true when an existing run was reattached (by runKey or /resume)"),
  step: z.number().int().describe("Steps recorded so far (the last step + 1): where a resumed trainer continues"),
  ignoredFields: z.array(z.string()).optional().describe("Fields this server does not know; they were ignored"),
});
const runByKey = attachedRun.extend({
  name: z.string(),
  createdAt: timestamp,
  finishedAt: timestamp.nullable(),
  error: z.string().nullable(),
});
const sampleCounts = {
  runId: z.string(),
  stored: z.number().int().describe("New samples"),
  updated: z.number().int().describe("Samples re-sent with new content, rewritten in place"),
  unchanged: z.number().int().describe("Samples re-sent as they were, left alone"),
  skipped: z.number().int().describe("Same as unchanged (the name clients before upserts read)"),
  ignoredFields: z.array(z.string()).optional().describe("Sample fields this server does not know; they were ignored"),
};
const finishResult = z.strictObject({ id: z.string(), status: runStatus, message: z.string() });

// ── runs ────────────────────────────────────────────────────────────────────────────────────────────────────────
const createdRun = z.strictObject({ id: z.string(), url: z.string(), status: runStatus });
const lifecycleResult = z.strictObject({ id: z.string(), status: runStatus, cancelRequested: z.boolean(), message: z.string() });
const runRow = z.strictObject({
  id: z.string(),
  name: z.string(),
  status: runStatus,
  environment: z.string(),
  policyModel: z.string(),
  seed: z.number().int(),
  totalSteps: z.number().int(),
  step: z.number().int(),
  phase: z.string().nullable(),
  tags: z.array(z.string()),
  notes: z.string().describe('Free text about the run, editable after launch ("" when none)'),
  source: z.string().describe('"rollout-lab", or the system an external run was trained by'),
  runKey: z.string().nullable(),
  lastDataAt: timestamp.nullable(),
  staleAfterSeconds: z.number().int().nullable(),
  onStale: z.string().nullable(),
  launchedBy: z.enum(["ui", "api", "cli", "seed", "import"]),
  launchedByName: z.string().nullable(),
  clonedFromId: z.string().nullable(),
  latestReward: nullableNumber,
  backend: z.string().nullable(),
  error: z.string().nullable(),
  cancelRequested: z.boolean(),
  workerId: z.string().nullable(),
  heartbeatAt: timestamp.nullable(),
  leaseExpiresAt: timestamp.nullable(),
  claims: z.number().int(),
  crashes: z.number().int(),
  createdAt: timestamp,
  startedAt: timestamp.nullable(),
  finishedAt: timestamp.nullable(),
  updatedAt: timestamp,
});
const slurmJob = z
  .strictObject({
    jobId: z.string().nullable().describe("Slurm's job id (null while submitting, or when sbatch refused the job)"),
    state: z
      .string()
      .describe("Slurm's job state: PENDING, RUNNING, COMPLETED, TIMEOUT, …; SUBMITTING or REFUSED before Slurm has the job"),
    reason: z.string().nullable().describe("Slurm's reason (Resources, Priority, …) or sbatch's error"),
    nodes: z.string().nullable(),
    queuePosition: z.number().int().nullable().describe("While PENDING: its place in its partition's queue (1 = next)"),
    requeues: z.number().int().describe("Jobs submitted after the first, each resuming from the last checkpoint"),
    active: z.boolean().describe("false once the job ended and the launcher settled the run"),
    description: z.string().describe('One line, e.g. "Slurm job 12: PENDING (Resources)"'),
  })
  .nullable()
  .describe("The run's current or last Slurm job (execution.launcher slurm, docs/slurm.md); null for runs a worker trains");
const runStatusSummary = z.strictObject({
  id: z.string(),
  name: z.string(),
  status: runStatus,
  phase: z.string().nullable(),
  step: z.number().int(),
  totalSteps: z.number().int(),
  progress: z.number(),
  latestReward: nullableNumber,
  latestMetrics: z.record(z.string(), z.strictObject({ step: z.number().int(), value: z.number() })),
  error: z.string().nullable(),
  cancelRequested: z.boolean(),
  environment: z.string(),
  policyModel: z.string(),
  seed: z.number().int(),
  tags: z.array(z.string()),
  notes: runRow.shape.notes,
  launchedBy: runRow.shape.launchedBy,
  launchedByName: z.string().nullable(),
  clonedFromId: z.string().nullable(),
  backend: z.string().nullable(),
  slurm: slurmJob,
  createdAt: timestamp,
  startedAt: timestamp.nullable(),
  finishedAt: timestamp.nullable(),
  url: z.string(),
});
const preflightResult = z.strictObject({
  environment: z.string(),
  taskId: z.string(),
  promptTokens: z.number(),
  contextLength: z.number(),
  maxNewTokens: z.number(),
  fits: z.boolean(),
  headroom: z.number(),
  promptTail: z.string(),
  prompt: z
    .string()
    .optional()
    .describe("The opening prompt exactly as the policy's chat template renders it (its last 40,000 characters)"),
  chatTemplate: z.string().optional().describe("Which template rendered it"),
  episodesPerStep: z.number(),
  tokensPerStep: z.number(),
  sampledTokensPerStep: z.number(),
  parameters: z.number(),
  memoryBytes: z.number(),
  memoryLimitBytes: z.number(),
  forwardMs: z.number(),
  backend: z.string().describe("The TF.js backend the forward pass ran on; endpoint or script for an evaluation so played"),
  stepSecondsEstimate: z.number(),
  problems: z.array(z.string()),
  evaluation: z
    .strictObject({
      tasks: z.number().int(),
      trials: z.number().int(),
      firstRequest: z.strictObject({
        endpoint: z.string(),
        model: z.string(),
        messages: z.array(z.looseObject({ role: z.string() })),
        tools: z.array(z.looseObject({ name: z.string() })),
        params: z.record(z.string(), z.unknown()),
      }),
    })
    .optional()
    .describe("Evaluations played by an endpoint or the gold replay: their size and the first request the policy gets"),
});
const preflightStatus = z.enum(["queued", "running", "done", "failed"]);
const seriesPoint = z.strictObject({ step: z.number().int(), value: z.number(), min: z.number(), max: z.number(), wallTime: timestamp });
const healthProblem = z.strictObject({
  kind: z.enum([
    "no_variance",
    "zero_advantage",
    "zero_gradient",
    "constant_reward",
    "context_full",
    "format_failure",
    "judge_only_credit",
    "unscored",
  ]),
  severity: z.enum(["error", "warning"]),
  title: z.string(),
  detail: z.string(),
  firstStep: z.number().int(),
  lastStep: z.number().int(),
  steps: z.number().int(),
  stepsChecked: z.number().int(),
});

// ── trajectories ────────────────────────────────────────────────────────────────────────────────────────────────
const toolCall = z.looseObject({ id: z.string(), name: z.string(), arguments: jsonObject });
/** Stored messages keep fields newer clients sent (e.g. reasoning_content), hence loose. */
const message = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
  source: z.enum(["system", "policy", "user_simulator", "tool", "tool_simulator", "environment"]),
  content: z.string(),
  turn: z.number().int(),
  toolCalls: z.array(toolCall).optional(),
  toolCallId: z.string().optional(),
  name: z.string().optional(),
  turnReward: z.number().optional(),
  advantage: z.number().optional(),
  formatError: z.string().optional(),
  llmCallIds: z.array(z.string()).optional(),
  tokens: z.number().optional(),
});
const llmCall = z.strictObject({
  id: z.string(),
  role: z.enum(["user_simulator", "tool_simulator", "judge", "policy"]),
  model: z.string(),
  endpoint: z.string(),
  request: z.looseObject({ messages: z.array(z.looseObject({ role: z.string(), content: z.string() })), params: jsonObject }),
  response: z.looseObject({ text: z.string(), toolCalls: z.array(toolCall).optional(), finishReason: z.string().optional() }).nullable(),
  latencyMs: z.number(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  costUsd: z.number(),
  attempt: z.number().int(),
  error: z.string().nullable(),
  cached: z.boolean(),
  turn: z.number().int().nullable(),
  startedAt: timestamp,
});
const components = z.record(z.string(), nullableNumber);
const trajectorySummary = z.strictObject({
  id: z.string(),
  groupId: z.string(),
  groupIndexInStep: z.number().int(),
  step: z.number().int(),
  split: z.string(),
  taskId: z.string(),
  indexInGroup: z.number().int(),
  reward: nullableNumber,
  advantage: nullableNumber,
  status: trajectoryStatus,
  endReason: z.string().nullable(),
  error: z.string().nullable(),
  numTurns: z.number().int(),
  responseTokens: z.number().int(),
  rewardComponents: components,
  preview: z.string().nullable(),
});
const trajectoryDetail = z.strictObject({
  id: z.string(),
  groupId: z.string(),
  runId: z.string(),
  step: z.number().int(),
  split: z.string(),
  taskId: z.string(),
  indexInGroup: z.number().int(),
  reward: nullableNumber,
  rewardComponents: components,
  advantage: nullableNumber,
  reasoning: z.string().nullable(),
  status: trajectoryStatus,
  endReason: z.string().nullable(),
  error: z.string().nullable(),
  numTurns: z.number().int(),
  promptTokens: z.number().int(),
  responseTokens: z.number().int(),
  conversation: z.array(message),
  finalState: json,
  expectedState: json,
  createdAt: timestamp,
  group: z.strictObject({
    id: z.string(),
    step: z.number().int(),
    indexInStep: z.number().int(),
    split: z.string(),
    task: json,
    rewardMean: nullableNumber,
    rewardStd: nullableNumber,
    dropped: z.boolean(),
  }),
  llmCalls: z.array(llmCall),
  run: z.strictObject({ id: z.string(), name: z.string() }),
  rewardFormula: z.strictObject({ formula: z.string(), terms: z.array(z.string()), notes: z.array(z.string()) }).nullable(),
  hasPolicyTokens: z.boolean(),
});
const policyTokens = z
  .strictObject({
    ids: z.array(z.number().int()),
    pieces: z.array(z.string()),
    sampled: z.array(z.number().int()),
    turns: z.array(z.number().int()),
    logprobs: z.array(z.number()).nullable(),
    truncatedPrompt: z.number().int(),
    contextSize: z.number().int(),
    update: z
      .strictObject({
        advantages: z.array(z.number()),
        ratio: z.array(nullableNumber).nullable(),
        clipped: z.array(z.number().int()).nullable(),
        kl: z.array(nullableNumber).nullable(),
      })
      .optional(),
  })
  .nullable()
  .describe("null when the trainer recorded no tokens for this trajectory");

// ── rewards ─────────────────────────────────────────────────────────────────────────────────────────────────────
const rescoringJob = z.strictObject({
  id: z.string(),
  runId: z.string(),
  name: z.string(),
  selection: json,
  scorer: json,
  status: rescoringStatus,
  total: z.number().int(),
  done: z.number().int(),
  unscored: z.number().int(),
  workerId: z.string().nullable(),
  leaseExpiresAt: timestamp.nullable(),
  claims: z.number().int(),
  error: z.string().nullable(),
  createdAt: timestamp,
  startedAt: timestamp.nullable(),
  finishedAt: timestamp.nullable(),
  selectionLabel: z.string(),
  scorerLabel: z.string(),
});
const reliabilityReport = z.strictObject({
  trajectories: z.number().int(),
  samplesPerTrajectory: z.number().int(),
  meanAgreement: nullableNumber,
  meanStd: nullableNumber,
  unstableShare: nullableNumber,
  noiseFloor: nullableNumber,
  perStep: z.number().int(),
});
const flipKind = z.enum(["pass_to_fail", "fail_to_pass", "became_unscored", "became_scored"]);
const rescoringDetail = z.strictObject({
  job: rescoringJob.extend({ runName: z.string() }),
  threshold: z.number(),
  comparison: z.strictObject({
    compared: z.number().int(),
    agreed: z.number().int(),
    agreementRate: nullableNumber,
    flips: z.number().int(),
    meanOld: nullableNumber,
    meanNew: nullableNumber,
    meanAbsDelta: nullableNumber,
    flippedToFail: z.number().int(),
    flippedToPass: z.number().int(),
  }),
  reliability: reliabilityReport,
  rows: z.array(
    z.strictObject({
      trajectoryId: z.string(),
      step: z.number().int(),
      split: z.string(),
      groupId: z.string(),
      taskId: z.string(),
      indexInGroup: z.number().int(),
      oldReward: nullableNumber,
      newReward: nullableNumber,
      oldAdvantage: nullableNumber,
      newAdvantage: nullableNumber,
      oldReasoning: z.string().nullable(),
      newReasoning: z.string().nullable(),
      flip: flipKind.nullable(),
      agreement: nullableNumber,
      rewardStd: nullableNumber,
      samples: z.array(z.looseObject({ reward: nullableNumber, reasoning: z.string() })),
      llmCallIds: z.array(z.string()),
    }),
  ),
});
const signal = z.strictObject({
  kind: z.enum([
    "judge_high_check_fails",
    "judge_low_check_passes",
    "reward_up_eval_down",
    "length_drift",
    "turns_drift",
    "near_identical_group",
    "abnormal_ending",
    "simulator_errors_in_low_reward",
  ]),
  step: z.number().int().nullable(),
  title: z.string(),
  detail: z.string(),
  examples: z.array(z.string()),
});

/** lib/pass-k.ts: one task's trials and pass^k (k = 1..trials, index k − 1). */
const taskScore = z.strictObject({
  taskId: z.string(),
  trials: z.number().int(),
  successes: z.number().int(),
  unscored: z.number().int(),
  rewardMean: nullableNumber,
  passHat: z.array(z.number()),
  costUsd: z.number(),
  components: z.record(z.string(), z.number()),
});

/** lib/pass-k.ts EvalSummary: pass^k and pass@k keyed by k ("1", "2", …). */
const evalSummary = z.strictObject({
  tasks: z.number().int(),
  trials: z.number().int(),
  unscored: z.number().int(),
  maxK: z.number().int(),
  rewardMean: nullableNumber,
  passHat: z.record(z.string(), z.number()),
  passAt: z.record(z.string(), z.number()),
  costUsd: z.number(),
  unattachedCostUsd: z.number().describe("Of costUsd: LLM calls of tasks cut short (cost ceiling, cancel), kept without a trajectory"),
  costPerTrial: nullableNumber,
  components: z.record(z.string(), z.number()),
  perTask: z.array(taskScore),
  successRule: z.string().describe("What counted as a success in this environment (lib/success-rules.ts)"),
  unscoredCauses: z
    .record(z.string(), z.number().int())
    .describe(
      "Unscored trials by cause (episode_failed, judge_failed, needs_judge_endpoint; lib/unscored-cause.ts): only those that occurred",
    ),
});

const evaluatedPolicyKind = z.enum(["endpoint", "scripted", "checkpoint", "model"]);

const evaluationView = z.strictObject({
  runId: z.string(),
  isEvaluation: z.boolean(),
  policy: z.string(),
  policyKind: evaluatedPolicyKind.nullable(),
  k: z.number().int().nullable(),
  taskSet: z.strictObject({ key: z.string(), label: z.string() }).nullable(),
  summary: evalSummary,
});

const leaderboardEntry = z.strictObject({
  runId: z.string(),
  name: z.string(),
  status: runStatus,
  policy: z.string(),
  policyKind: evaluatedPolicyKind,
  k: z.number().int(),
  tasks: z.number().int(),
  trials: z.number().int(),
  unscored: z.number().int(),
  passAt1: nullableNumber,
  passHatK: nullableNumber,
  passHat: z.array(z.number()),
  rewardMean: nullableNumber,
  costUsd: z.number(),
  coverage: z.strictObject({
    evaluated: z.number().int().describe("Tasks recorded with all their trials"),
    selected: z.number().int().nullable().describe("Tasks the worker selected (null until it has)"),
  }),
  complete: z.boolean().describe("Succeeded with every selected task recorded: only complete runs are ranked"),
  createdAt: timestamp,
});

/** Each REST procedure's success body. */
export const RESPONSE_SCHEMAS: Record<string, z.ZodType> = {
  "ingest.createRun": attachedRun,
  "ingest.byKey": runByKey,
  "ingest.resume": attachedRun,
  "ingest.appendSteps": z.strictObject({ runId: z.string(), points: z.number().int().describe("Metric points written") }),
  "ingest.appendTrajectories": z.strictObject(sampleCounts),
  "ingest.appendHistory": z.strictObject({ ...sampleCounts, points: z.number().int().describe("Metric points written") }),
  "ingest.finish": finishResult,
  "runActions.create": createdRun,
  "evaluations.get": evaluationView,
  "evaluations.evaluateCheckpoint": createdRun,
  "evaluations.environment": z.strictObject({
    environment: z.string(),
    successRule: z.string().describe("What counted as a success in this environment (lib/success-rules.ts)"),
    leaderboards: z.array(
      z.strictObject({
        key: z.string(),
        label: z.string(),
        k: z.number().int(),
        entries: z.array(leaderboardEntry).describe("Complete evaluations, best pass@1 first"),
        partial: z.array(leaderboardEntry).describe("Cancelled, failed or running evaluations with their coverage; never ranked"),
      }),
    ),
  }),
  "runActions.preflight": z.strictObject({ id: z.string(), status: preflightStatus }),
  "runActions.preflightResult": z.strictObject({
    id: z.string(),
    status: preflightStatus,
    result: preflightResult.nullable(),
    error: z.string().nullable(),
    ageSeconds: z.number().int(),
  }),
  "runs.list": z.strictObject({ items: z.array(runRow), nextCursor: z.string().nullable() }),
  "runActions.status": runStatusSummary,
  "runActions.setNotes": z.strictObject({ id: z.string(), notes: runRow.shape.notes }),
  "runActions.cancel": lifecycleResult,
  "runActions.resume": lifecycleResult,
  "runActions.clone": createdRun.extend({ clonedFromId: z.string() }),
  "runActions.metrics": z.strictObject({ keys: z.array(z.string()), series: z.record(z.string(), z.array(seriesPoint)) }),
  "signals.health": z.strictObject({
    problems: z.array(healthProblem),
    trajectoriesChecked: z.number().int(),
    truncated: z.boolean(),
  }),
  "runActions.checkpoints": z.strictObject({
    items: z.array(
      z.strictObject({ id: z.string(), step: z.number().int(), location: z.string(), sizeBytes: z.number(), createdAt: timestamp }),
    ),
  }),
  "trajectories.list": z.strictObject({
    items: z.array(trajectorySummary),
    total: z.number().int(),
    totalIsLowerBound: z.boolean(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  "trajectories.get": trajectoryDetail,
  "trajectories.policyTokens": policyTokens,
  "rescoring.create": z.strictObject({ id: z.string(), status: rescoringStatus, name: z.string(), groups: z.number().int() }),
  "rescoring.list": z.array(rescoringJob),
  "rescoring.get": rescoringDetail,
  "signals.warnings": z.strictObject({
    groups: z.array(
      z.strictObject({
        kind: signal.shape.kind,
        title: z.string(),
        count: z.number().int().describe("Warnings of this kind (one per step it fired on)"),
        stepRanges: z.array(z.tuple([z.number().int(), z.number().int()])).describe("Inclusive step ranges, oldest first"),
        rangesOmitted: z.number().int(),
        latest: z.array(signal).describe("The most recent instances in full, newest first"),
      }),
    ),
    total: z.number().int(),
    trajectoriesAnalysed: z.number().int(),
    truncated: z.boolean(),
  }),
  "signals.reliability": z.strictObject({
    perStep: z.number().int(),
    noiseFloor: nullableNumber,
    noiseFloorFrom: z.strictObject({ id: z.string(), name: z.string(), samples: z.number().int() }).nullable(),
    judges: z.array(
      z.strictObject({
        id: z.string(),
        name: z.string(),
        scorerLabel: z.string(),
        createdAt: timestamp,
        trajectories: z.number().int(),
        reliability: reliabilityReport,
      }),
    ),
    agreements: z.array(z.strictObject({ a: z.string(), b: z.string(), compared: z.number().int(), agreementRate: nullableNumber })),
  }),
};

export function responseSchema(procedure: string): z.ZodType {
  const schema = RESPONSE_SCHEMAS[procedure];
  if (!schema) throw new Error(`REST procedure "${procedure}" declares no response schema (server/rest/responses.ts)`);
  return schema;
}

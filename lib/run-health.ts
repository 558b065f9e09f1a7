/**
 * Is this run able to learn at all? Reward-hacking signals (reward-signals.ts) ask whether a rising reward can be
 * trusted; these checks ask the earlier question a GRPO run fails silently on: is there any learning signal?
 *
 *   no_variance        most groups score every sample the same: group-relative advantages are 0, nothing to learn
 *   zero_advantage     every advantage of the step is 0
 *   zero_gradient      the update's gradient norm is 0: the weights did not move
 *   constant_reward    the mean reward never changes across the run
 *   context_full       most episodes end because the policy's context is full (prompt + turns do not fit)
 *   format_failure     most policy turns cannot be parsed as the environment's action format
 *   judge_only_credit  the judge gives credit while every programmatic outcome component is 0
 *   unscored           every episode of the step is unscored (every judgement failed)
 *
 * Each problem is reported once for the whole run, with the steps it was seen on and figures, never once per step.
 * Pure: the server feeds it metric series and trajectory summaries (server/services/run-health.ts).
 */
export type HealthKind =
  | "no_variance"
  | "zero_advantage"
  | "zero_gradient"
  | "constant_reward"
  | "context_full"
  | "format_failure"
  | "judge_only_credit"
  | "unscored";

export interface HealthProblem {
  kind: HealthKind;
  severity: "error" | "warning";
  title: string;
  /** What was measured, with figures, and what to do. */
  detail: string;
  firstStep: number;
  lastStep: number;
  /** Steps the problem was seen on, of `stepsChecked`. */
  steps: number;
  stepsChecked: number;
}

export interface HealthTrajectory {
  step: number;
  reward: number | null;
  status: string;
  endReason: string | null;
  components: Record<string, unknown>;
  /** The policy's turns in the episode (its messages). */
  policyTurns: number;
  /** Of those turns, how many could not be parsed (at most policyTurns: a turn is unparsable once). */
  formatErrors: number;
}

export interface HealthInput {
  /** Metric key → points in step order (reward/mean, reward/zero_variance_group_frac, adv/min, adv/max, grad/norm). */
  metrics: Record<string, { step: number; value: number }[]>;
  /** Training-split trajectories (any subset of steps; a step's shares are computed from what is given). */
  trajectories: HealthTrajectory[];
  /** grpo.sftWarmupSteps of the run: advice to "warm up first" is wrong for a run that already did. */
  sftWarmupSteps?: number;
}

/** A problem seen on at least this share of the checked steps is reported. */
const MIN_SHARE = 0.5;
const EPS = 1e-12;
/** Components that say whether the task was done, computed by code rather than by a judge. */
const OUTCOME_COMPONENTS = new Set(["goal_completion", "db", "action", "state", "solved", "progress", "bfcl_valid", "data_match"]);
const isJudgeComponent = (k: string) => k.startsWith("judge_") && k !== "judge_agreement";

interface StepFinding {
  step: number;
  /** The figure shown for this step (a share, a norm, …). */
  value: number;
}

function summarise(
  kind: HealthKind,
  findings: StepFinding[],
  stepsChecked: number,
  make: (f: StepFinding[]) => Pick<HealthProblem, "severity" | "title" | "detail">,
): HealthProblem[] {
  if (stepsChecked === 0 || findings.length === 0 || findings.length < MIN_SHARE * stepsChecked) return [];
  const steps = findings.map((f) => f.step);
  return [{ kind, ...make(findings), firstStep: Math.min(...steps), lastStep: Math.max(...steps), steps: findings.length, stepsChecked }];
}

/** Every share shown is hits over its own population; clamped so a miscount upstream can never print "195%". */
const pct = (x: number) => `${Math.round(Math.min(1, Math.max(0, x)) * 100)}%`;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const stepsText = (f: StepFinding[], of: number) => `on ${f.length} of ${of} steps`;

function byStep(trajectories: HealthTrajectory[]): Map<number, HealthTrajectory[]> {
  const out = new Map<number, HealthTrajectory[]>();
  for (const t of trajectories) out.set(t.step, [...(out.get(t.step) ?? []), t]);
  return out;
}

export function assessRunHealth(input: HealthInput): HealthProblem[] {
  const m = (key: string) => input.metrics[key] ?? [];
  const problems: HealthProblem[] = [];
  const warmup = input.sftWarmupSteps ?? 0;
  const warmStartAdvice =
    warmup > 0
      ? `This run already began with ${warmup} SFT warm-up steps: check that its demonstrations use the environment's action format, or raise grpo.sftWarmupSteps.`
      : "An SFT warm-start on demonstrations (grpo.sftWarmupSteps) teaches the format first.";

  const zeroVar = m("reward/zero_variance_group_frac");
  problems.push(
    ...summarise(
      "no_variance",
      zeroVar.filter((p) => p.value >= 0.8),
      zeroVar.length,
      (f) => ({
        severity: mean(f.map((x) => x.value)) >= 0.99 ? "error" : "warning",
        title: "Groups without reward variance",
        detail: `${pct(mean(f.map((x) => x.value)))} of groups (mean) gave every sample the same reward ${stepsText(f, zeroVar.length)}: their advantages are 0 and GRPO learns nothing from them. Make the task easier (${warmup > 0 ? `more than this run's ${warmup} SFT warm-up steps` : "an SFT warm-start"}, a smaller action space), raise groupSize, or use a reward with partial credit.`,
      }),
    ),
  );

  const advMin = new Map(m("adv/min").map((p) => [p.step, p.value]));
  const advSteps = m("adv/max").filter((p) => advMin.has(p.step));
  problems.push(
    ...summarise(
      "zero_advantage",
      advSteps.filter((p) => Math.abs(p.value) < EPS && Math.abs(advMin.get(p.step)!) < EPS),
      advSteps.length,
      (f) => ({
        severity: "error",
        title: "Every advantage is 0",
        detail: `Every sample's advantage was 0 ${stepsText(f, advSteps.length)}, so the policy-gradient term is 0. The rewards do not separate the samples of a group.`,
      }),
    ),
  );

  const grad = m("grad/norm");
  problems.push(
    ...summarise(
      "zero_gradient",
      grad.filter((p) => Math.abs(p.value) < EPS),
      grad.length,
      (f) => ({
        severity: "error",
        title: "Zero gradient norm",
        detail: `The update's gradient norm was 0 ${stepsText(f, grad.length)}: the weights did not change. Usually no advantage signal (see above) and no KL or entropy term.`,
      }),
    ),
  );

  const reward = m("reward/mean");
  if (reward.length >= 5 && Math.max(...reward.map((p) => p.value)) - Math.min(...reward.map((p) => p.value)) < EPS) {
    problems.push({
      kind: "constant_reward",
      severity: "error",
      title: "The reward never changes",
      detail: `reward/mean was ${reward[0].value} on all ${reward.length} steps. Check that the environment can score this policy's outputs at all (open a few trajectories).`,
      firstStep: reward[0].step,
      lastStep: reward[reward.length - 1].step,
      steps: reward.length,
      stepsChecked: reward.length,
    });
  }

  const steps = [...byStep(input.trajectories).entries()].sort(([a], [b]) => a - b);
  const share = (pick: (ts: HealthTrajectory[]) => { hit: number; of: number } | null, threshold: number): StepFinding[] =>
    steps.flatMap(([step, ts]) => {
      const r = pick(ts);
      return r && r.of > 0 && r.hit / r.of > threshold ? [{ step, value: r.hit / r.of }] : [];
    });

  const contextFull = share((ts) => ({ hit: ts.filter((t) => t.endReason === "context_full").length, of: ts.length }), 0.5);
  problems.push(
    ...summarise("context_full", contextFull, steps.length, (f) => ({
      severity: "error",
      title: "Episodes end because the context is full",
      detail: `${pct(mean(f.map((x) => x.value)))} of episodes ended context_full ${stepsText(f, steps.length)}: the prompt and turns do not fit the policy's context, so the policy never gets to act. Raise policy.contextLength or lower rollout.maxNewTokens / maxTurns (the launch form's pre-flight shows the fit).`,
    })),
  );

  // Unparsable policy turns over policy turns, both counted per episode; a turn counts once however many errors it had.
  const format = share(
    (ts) => ({
      hit: ts.reduce((a, t) => a + Math.min(Math.max(0, t.formatErrors), Math.max(0, t.policyTurns)), 0),
      of: ts.reduce((a, t) => a + Math.max(0, t.policyTurns), 0),
    }),
    0.5,
  );
  problems.push(
    ...summarise("format_failure", format, steps.length, (f) => ({
      severity: "warning",
      title: "Most policy turns are unparsable",
      detail: `${pct(mean(f.map((x) => x.value)))} of policy turns could not be parsed as the environment's action format ${stepsText(f, steps.length)}. ${warmStartAdvice}`,
    })),
  );

  const judgeOnly = share((ts) => {
    const credited = ts.filter(
      (t) => (t.reward ?? 0) > 0 && Object.entries(t.components).some(([k, v]) => isJudgeComponent(k) && typeof v === "number" && v > 0),
    );
    const outcomeKnown = credited.filter((t) => Object.keys(t.components).some((k) => OUTCOME_COMPONENTS.has(k)));
    if (outcomeKnown.length < 4) return null;
    const noOutcome = outcomeKnown.filter((t) => Object.entries(t.components).every(([k, v]) => !OUTCOME_COMPONENTS.has(k) || v === 0));
    return { hit: noOutcome.length, of: outcomeKnown.length };
  }, 0.5);
  problems.push(
    ...summarise("judge_only_credit", judgeOnly, steps.length, (f) => ({
      severity: "warning",
      title: "Credit from the judge alone",
      detail: `In ${pct(mean(f.map((x) => x.value)))} of the episodes the judge rewarded, every programmatic outcome component (goal completion, database state, …) was 0, ${stepsText(f, steps.length)}. The policy may be pleasing the judge without doing the task; check the judge on a few of them, or lower its weight.`,
    })),
  );

  const unscored = share((ts) => ({ hit: ts.filter((t) => t.status === "unscored").length, of: ts.length }), 0.999);
  problems.push(
    ...summarise("unscored", unscored, steps.length, (f) => ({
      severity: "error",
      title: "Every judgement failed",
      detail: `Every episode was left unscored ${stepsText(f, steps.length)}: the judge's replies failed or could not be read (see the LLM calls of any trajectory). Unscored episodes are never counted as 0, so these steps trained on nothing.`,
    })),
  );

  const order: Record<HealthProblem["severity"], number> = { error: 0, warning: 1 };
  return problems.sort((a, b) => order[a.severity] - order[b.severity]);
}

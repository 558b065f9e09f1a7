/**
 * bench:rollout's policy scenario: a real run's rollout, where the policy samples its turns (the TF.js decoder
 * through the batching sampler, trainer/loop/real/play-group.ts) while the simulator and judge calls wait on the
 * network. The simulated environment's launch preset (policy, context, turns, groups) plays one step's groups three
 * ways: policy and LLM together (the real case), the policy alone (offline simulators answer at once) and, from the
 * first arm's records, the LLM alone (its ideal critical path). Perfect overlap would take max(policy, LLM); none
 * would take their sum. A fourth arm plays the policy alone with prefix caching off (rollout.prefixCacheMb 0): every
 * turn then prefills the whole conversation again.
 */
import { setMaxListeners } from "node:events";
import { findEnvironment } from "../lib/environments";
import { selectBackend } from "../trainer/backend/select";
import { parseRunConfig } from "../lib/run-config";
import { getEnvironment } from "../trainer/envs/registry";
import { LlmClient, type LlmConfigInput } from "../trainer/llm";
import { createGroupPlayer } from "../trainer/loop/real/play-group";
import { loadPolicy } from "../trainer/loop/real/load-policy";

export interface PolicyScenarioResult {
  environment: string;
  preset: { model: string; contextLength: number | undefined; maxTurns: number; maxNewTokens: number; groups: number; groupSize: number };
  episodes: number;
  policyAndLlmWallMs: number;
  policyAloneWallMs: number;
  /** The policy alone with prefix caching off, and the share of prompt tokens the cache supplied when on. */
  policyAloneNoPrefixCacheWallMs: number;
  prefixReuseFrac: number;
  llmIdealCriticalPathMs: number;
  /** wall / max(policy alone, LLM ideal): 1 = the LLM waits are hidden entirely behind sampling, or vice versa. */
  wallToPerfectOverlap: number;
  /** wall / (policy alone + LLM ideal): 1 = no overlap at all. */
  wallToNoOverlap: number;
  /** Mean prompts per decode, with the LLM and alone. */
  policyBatchMean: { withLlm: number; alone: number };
  /** Policy turns played in each arm (the simulators' replies differ offline, so episodes may run differently). */
  policyTurns: { withLlm: number; alone: number };
  backend: string;
}

export async function policyScenario(
  llmConfig: LlmConfigInput | null,
  latencyMs: number,
  environment = "simulated",
): Promise<PolicyScenarioResult> {
  const info = findEnvironment(environment);
  if (!info) throw new Error(`no launch preset for "${environment}" in lib/environments.ts`);
  const config = parseRunConfig({ ...info.preset, environment });
  const env = getEnvironment(environment, config.environmentOptions);
  const tasks = env.builtinTasks();
  const backend = await selectBackend();
  const { model, chat } = await loadPolicy(config);
  const { groupsPerStep: groups, groupSize } = config.grpo;

  async function playStep(
    llm: LlmClient,
    prefixCacheMb = config.rollout.prefixCacheMb,
  ): Promise<{ wallMs: number; callsPerEpisode: number[]; batchMean: number; turns: number; reuse: number }> {
    const player = createGroupPlayer({
      config: { ...config, rollout: { ...config.rollout, prefixCacheMb } },
      env,
      model,
      chat,
      llm,
    });
    const signal = new AbortController().signal;
    setMaxListeners(0, signal); // as trainRun does: every request in flight listens on it
    const t0 = performance.now();
    const rollouts = await Promise.all(
      Array.from({ length: groups }, (_, g) =>
        player.runGroup({
          task: tasks[g % tasks.length],
          step: 0,
          split: "train",
          groupIndex: g,
          size: groupSize,
          seed: 1000 + g * 17,
          signal,
        }),
      ),
    );
    const wallMs = performance.now() - t0;
    const callsPerEpisode = rollouts.flatMap((r) => r.samples.map((s) => s.record.llmCalls.length));
    const batchMean = rollouts.reduce((s, r) => s + (r.metrics?.["rollout/policy_batch_mean"] ?? 0), 0) / rollouts.length;
    const turns = rollouts.reduce((s, r) => s + r.samples.reduce((t, x) => t + x.record.numTurns, 0), 0);
    const reuse = rollouts.reduce((s, r) => s + (r.metrics?.["rollout/prefix_reuse_frac"] ?? 0), 0) / rollouts.length;
    return { wallMs, callsPerEpisode, batchMean, turns, reuse };
  }

  try {
    await playStep(new LlmClient({})); // warm-up: kernels compiled, heap grown; neither measured arm pays for it
    // The fake LLM server is on loopback, which the endpoint policy refuses unless the operator allows it: allowed here.
    const both = await playStep(
      new LlmClient(llmConfig ?? {}, { env: { ...process.env, ROLLOUT_LAB_LLM_BASE_URLS: "http://127.0.0.1:" } }),
    );
    const alone = await playStep(new LlmClient({}));
    const aloneNoCache = await playStep(new LlmClient({}), 0);
    const llmIdeal = Math.max(...both.callsPerEpisode) * latencyMs;
    const r3 = (x: number) => Number(x.toFixed(3));
    return {
      environment,
      preset: {
        model: config.policy.model,
        contextLength: config.policy.contextLength,
        maxTurns: config.rollout.maxTurns,
        maxNewTokens: config.rollout.maxNewTokens,
        groups,
        groupSize,
      },
      episodes: both.callsPerEpisode.length,
      policyAndLlmWallMs: Math.round(both.wallMs),
      policyAloneWallMs: Math.round(alone.wallMs),
      policyAloneNoPrefixCacheWallMs: Math.round(aloneNoCache.wallMs),
      prefixReuseFrac: r3(alone.reuse),
      llmIdealCriticalPathMs: llmIdeal,
      wallToPerfectOverlap: r3(both.wallMs / Math.max(alone.wallMs, llmIdeal)),
      wallToNoOverlap: r3(both.wallMs / (alone.wallMs + llmIdeal)),
      policyBatchMean: { withLlm: r3(both.batchMean), alone: r3(alone.batchMean) },
      policyTurns: { withLlm: both.turns, alone: alone.turns },
      backend: `${backend.backend}${backend.nativeKernels.enabled ? " + native kernels" : ""}`,
    };
  } finally {
    model.dispose();
  }
}

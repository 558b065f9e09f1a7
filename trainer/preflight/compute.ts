/**
 * The pre-flight check of a run config (lib/preflight.ts): the opening prompt against the context, tokens and
 * memory per step (plan.ts), then one forward pass over the opening prompt timed on this worker for a rough step
 * time. Runs on a trainer worker: the environments, tokenizers and model live here, never in the web app.
 */
import os from "node:os";
import * as tf from "@tensorflow/tfjs";
import type { PreflightResult } from "../../lib/preflight";
import type { RunConfig } from "../../lib/run-config";
import { stepMemoryLimitBytes } from "../../lib/step-memory";
import { selectBackendOnce } from "../backend/select";
import { loadPolicy } from "../loop/real/load-policy";
import { confineRunPaths } from "../loop/real/run-paths";
import { padBatch, tokenLogProbs } from "../policy/logprobs";
import { planPreflight } from "./plan";
import { computeEvalPreflight } from "./eval-preflight";

/**
 * The forward pass is timed on at most this many tokens of the opening: τ²'s 9,750-token opening would hold 1.6 GB
 * of attention probabilities per layer, on a worker whose wasm heap (4 GiB) may be training another run. Per-token
 * time grows with length, so a longer prompt's step estimate is low by up to its length over this.
 */
const MAX_TIMED_TOKENS = 2048;

/** `roots`: the folders a run config may read (dataReadRoots in trainer/data-roots.ts). */
export async function computePreflight(raw: RunConfig, roots: string[]): Promise<PreflightResult> {
  const config = await confineRunPaths(raw, roots);
  // Played by an endpoint or a script, there is no model here to fit: show the first request instead.
  if (config.eval && (config.policy.endpoint || config.policy.scripted)) return computeEvalPreflight(config);
  await selectBackendOnce();
  const { model, chat } = await loadPolicy(config);
  try {
    const { openingIds, ...plan } = await planPreflight(
      config,
      { modelConfig: model.config, chat },
      stepMemoryLimitBytes(process.env, os.totalmem()),
    );
    const measured = openingIds.slice(-Math.min(openingIds.length, plan.contextLength, MAX_TIMED_TOKENS));
    const started = performance.now();
    tf.tidy(() => tokenLogProbs(model, padBatch([measured])).logp.dataSync());
    const forwardMs = performance.now() - started;
    const perToken = forwardMs / Math.max(1, measured.length) / 1000;
    const stepSecondsEstimate = 3 * perToken * plan.tokensPerStep + perToken * plan.sampledTokensPerStep;
    return {
      ...plan,
      forwardMs: Math.round(forwardMs * 10) / 10,
      backend: tf.getBackend(),
      stepSecondsEstimate: Math.round(stepSecondsEstimate * 10) / 10,
    };
  } finally {
    model.dispose();
  }
}

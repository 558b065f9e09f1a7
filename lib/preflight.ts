/**
 * What a pre-flight check of a run config answers before launch (computed by a trainer worker, which has the
 * environments and tokenizers: trainer/preflight/compute.ts; shown by the launch form and the API).
 */
export interface PreflightResult {
  environment: string;
  /** The first training task the run would play. */
  taskId: string;
  /** Tokens of the opening prompt as the policy's chat template renders it. */
  promptTokens: number;
  contextLength: number;
  maxNewTokens: number;
  /** promptTokens + maxNewTokens ≤ contextLength: the first turn can be generated without cutting the prompt. */
  fits: boolean;
  /** Tokens left for later turns after the first reply (negative when it does not fit). */
  headroom: number;
  /** The rendered opening prompt's end (what the policy reads last), for the form. */
  promptTail: string;
  /** The opening prompt exactly as the policy's chat template renders it (its last 40,000 characters when longer). */
  prompt?: string;
  /** Whose chat template rendered it, how tools were given and which tokens end a reply (ChatFormat.describe). */
  chatTemplate?: string;
  episodesPerStep: number;
  /**
   * Upper bound of tokens the update trains on per step, observations aside: episodes × min(context, prompt + turns ×
   * new tokens) with rollout.policyContext "append" (one sequence per episode); with "rerender", episodes × the sum
   * over turns t of min(context, prompt + t × new tokens) (a template that re-renders every turn trains a sequence
   * per turn).
   */
  tokensPerStep: number;
  /** Upper bound of tokens sampled per step. */
  sampledTokensPerStep: number;
  parameters: number;
  memoryBytes: number;
  memoryLimitBytes: number;
  /** One forward pass over the opening prompt (its last 2,048 tokens at most) on the worker, as measured (slower while it trains another run). */
  forwardMs: number;
  /** The TF.js backend that pass ran on (the worker's, as a run would train). */
  backend: string;
  /** A rough step time: the update ≈ 3 forward passes per token trained, sampling ≈ one per token sampled. */
  stepSecondsEstimate: number;
  /** Plain sentences: what does not fit and what to change. */
  problems: string[];
  /** Evaluations played by an endpoint or the gold replay: their size and the first request the policy gets. */
  evaluation?: EvaluationPreflight;
}

export interface EvaluationPreflight {
  tasks: number;
  trials: number;
  /** The request the endpoint receives first (the first task's opening), as it will be sent — never with a key. */
  firstRequest: {
    /** The endpoint's base URL without credentials, or "built-in script" for the gold replay. */
    endpoint: string;
    model: string;
    messages: LlmRequestMessage[];
    tools: LlmRequestTool[];
    params: Record<string, unknown>;
  };
}

import type { LlmRequestMessage, LlmRequestTool } from "./conversation";

export type PreflightStatus = "queued" | "running" | "done" | "failed";

/**
 * The SFT warm-start of a real run (grpo.sftWarmupSteps): behaviour cloning on demonstrations before the first GRPO
 * step, as verl / TRL / OpenRLHF recipes start RL from an SFT model. Runs once per fresh run (the loop never calls
 * it on resume: the checkpoint's weights already contain it).
 *
 *   demonstrations   dataset.demonstrationsPath (OpenAI chat JSONL), else the environment's gold trajectories
 *   tokens           the policy's chat template over the whole chat, encoded whole; only the assistant replies and
 *                    their end-of-turn token are trained; the last maxPositions kept
 *   steps            sftWarmupSteps optimizer steps of minibatchSize demonstrations, cycling (update/sft.ts)
 *   reference        with a KL term, the reference becomes the warm-started policy and is saved for resumes
 */
import path from "node:path";
import type { RunConfig } from "../../../lib/run-config";
import { saveCheckpoint } from "../../checkpoint/checkpoint";
import { loadDemonstrationsJsonl } from "../../envs/demonstrations-jsonl";
import type { Demonstration, Environment, Task } from "../../envs/types";
import type { DecoderLM } from "../../policy/model";
import type { AdamW } from "../../policy/optimizer";
import { Rng } from "../../policy/rng";
import type { ChatFormat } from "../../policy/chat/chat-format";
import type { TemplateMessage } from "../../policy/chat/template";
import { commonPrefixLength } from "../../policy/prefix-cache";
import { runSftSteps, type Demonstration as TokenDemonstration } from "../../update/sft";
import type { StopControl, WarmStartReport, WarmupReporter } from "../types";
import { warmupEta, WARMUP_EVENT_KIND, type WarmupProgress } from "../../../lib/warmup-progress";
import { yieldToEventLoop } from "../../update/step";

/** Where the warm-started KL reference is kept (next to the run's checkpoint-* folders, never pruned). */
export const referenceDirOf = (checkpointDir: string) => path.join(checkpointDir, "kl-reference");

export interface LoadedDemonstrations {
  demos: Demonstration[];
  /** Where they came from, for the run's event log. */
  source: string;
}

export async function loadDemonstrations(config: RunConfig, env: Environment, trainTasks: Task[]): Promise<LoadedDemonstrations> {
  const file = config.dataset.demonstrationsPath;
  if (file) return { demos: await loadDemonstrationsJsonl(file), source: file };
  const demos = env.demonstrations ? await env.demonstrations(trainTasks) : [];
  if (demos.length === 0) {
    const why = env.demonstrations ? "has no gold trajectories for" : "cannot provide gold trajectories for";
    throw new Error(
      `grpo.sftWarmupSteps is ${config.grpo.sftWarmupSteps} but there are no demonstrations: environment "${env.name}" ${why} its ${trainTasks.length} training tasks. ` +
        `Set dataset.demonstrationsPath to a JSONL file of chats ({"messages": [{"role": "user", "content": "..."}, {"role": "assistant", "content": "..."}]}) or set grpo.sftWarmupSteps to 0.`,
    );
  }
  return { demos, source: `environment "${env.name}"` };
}

/**
 * Where reply `i` sits in `full` (the chat rendered by the template): from the end of the prompt that asks for it
 * (the conversation before it with a generation prompt) through its end-of-turn token. A template that renders
 * earlier replies differently from how they were written (Qwen3 drops reasoning) is searched for the reply's text.
 */
function replyRange(chat: ChatFormat, messages: TemplateMessage[], i: number, full: string, from: number): [number, number] | null {
  const prompt = chat.render({ messages: messages.slice(0, i), addGenerationPrompt: true });
  const content = (messages[i].content ?? "").trim();
  const start = full.startsWith(prompt) && prompt.length >= from ? prompt.length : content ? full.indexOf(content, from) : -1;
  const eot = start < 0 ? -1 : full.indexOf(chat.endOfTurn.text, start);
  return eot < 0 ? null : [start, eot + chat.endOfTurn.text.length];
}

/** Chat template ids + assistant-only loss mask, keeping the end when longer than the model's context. */
export function tokeniseDemonstrations(
  chat: ChatFormat,
  demos: Demonstration[],
  maxPositions: number,
): { examples: TokenDemonstration[]; truncated: number } {
  let truncated = 0;
  const examples = demos.flatMap((d) => {
    const messages: TemplateMessage[] = d.messages.map((m) => ({ role: m.role, content: m.content }));
    const full = chat.render({ messages, addGenerationPrompt: false });
    const ids = chat.encode(full);
    const lossMask: number[] = new Array(ids.length).fill(0);
    let searchFrom = 0;
    d.messages.forEach((m, i) => {
      if (m.role !== "assistant" || m.train === false) return;
      const range = replyRange(chat, messages, i, full, searchFrom);
      if (!range) return;
      searchFrom = range[1];
      // The ids are the whole text's; a token that straddles the reply's start (the header's "\n" merged with a
      // reply opening with "\n") was never the policy's to write, so the trained tokens begin after it.
      const before = chat.encode(full.slice(0, range[0]));
      const common = commonPrefixLength(before, ids);
      const from = common + (before.length > common ? 1 : 0);
      const to = chat.encode(full.slice(0, range[1])).length; // ends on a special token: the same ids as the whole
      lossMask.fill(1, from, to);
    });
    if (ids.length > maxPositions) truncated++;
    const example = { tokens: ids.slice(-maxPositions), lossMask: lossMask.slice(-maxPositions) };
    return example.lossMask.some((x) => x > 0) ? [example] : [];
  });
  return { examples, truncated };
}

/**
 * tokeniseDemonstrations, yielding to the event loop between demonstrations: rendering and encoding thousands of
 * long chats is seconds of synchronous work, and a worker that does not answer for that long loses its side jobs'
 * database transactions (the pre-flight and re-scoring queues) and its pre-flight answers.
 */
export async function tokeniseDemonstrationsYielding(
  chat: ChatFormat,
  demos: Demonstration[],
  maxPositions: number,
  signal?: AbortSignal,
): Promise<{ examples: TokenDemonstration[]; truncated: number }> {
  const examples: TokenDemonstration[] = [];
  let truncated = 0;
  for (const d of demos) {
    const one = tokeniseDemonstrations(chat, [d], maxPositions);
    examples.push(...one.examples);
    truncated += one.truncated;
    await yieldToEventLoop(signal);
  }
  return { examples, truncated };
}

/** Progress reported at most this often (and always for the first and last step): one database write each. */
const PROGRESS_EVERY_MS = 2_000;

export interface SftWarmStartInput {
  config: RunConfig;
  env: Environment;
  trainTasks: Task[];
  model: DecoderLM;
  /** The GRPO optimizer: sharing it keeps Adam's moments warm (restarting it for RL undid an SFT format in one step: invalid replies 39% → 80%, measured). */
  optimizer: AdamW;
  chat: ChatFormat;
  /** The frozen KL reference, when the run has a KL term. */
  reference?: DecoderLM;
  checkpointDir: string;
}

export function createSftWarmStart(input: SftWarmStartInput): (control: StopControl, report?: WarmupReporter) => Promise<WarmStartReport> {
  const { config, model, reference } = input;
  return async (control, report) => {
    const t0 = performance.now();
    const total = config.grpo.sftWarmupSteps;
    const losses: (number | null)[] = [];
    let lastReport = -Infinity;
    let firstStepAt = 0;
    const progress = (finished: boolean): WarmupProgress => {
      const now = performance.now();
      // The pace is measured from the first step on: loading and tokenising are not repeated per step.
      const stepping = losses.length > 0 ? (now - firstStepAt) / 1000 : 0;
      return {
        kind: WARMUP_EVENT_KIND,
        steps: total,
        done: losses.length,
        losses: [...losses],
        elapsedSeconds: (now - t0) / 1000,
        etaSeconds: finished ? 0 : warmupEta(losses.length, total, stepping),
        finished,
      };
    };
    await report?.(progress(false));
    const { demos, source } = await loadDemonstrations(config, input.env, input.trainTasks);
    const maxPositions = model.config.maxPositions;
    const { examples, truncated } = await tokeniseDemonstrationsYielding(input.chat, demos, maxPositions, control.signal);
    if (examples.length === 0) {
      throw new Error(
        `None of the ${demos.length} demonstrations from ${source} has an assistant token within the model's last ${maxPositions} positions; shorten them or use a model with a longer context.`,
      );
    }
    firstStepAt = performance.now();
    const steps = await runSftSteps(
      model,
      input.optimizer,
      examples,
      {
        steps: config.grpo.sftWarmupSteps,
        batchSize: config.grpo.minibatchSize,
        microBatchSize: config.grpo.microBatchSize,
        shouldStop: () => control.reason() !== null,
        signal: control.signal,
        onStep: async (outcome, index) => {
          losses.push(outcome.applied && Number.isFinite(outcome.loss) ? outcome.loss : null);
          const now = performance.now();
          if (index === 0 || now - lastReport >= PROGRESS_EVERY_MS) {
            lastReport = now;
            await report?.(progress(false));
          }
        },
      },
      new Rng(config.seed * 7919 + 104_729),
    );
    if (reference) {
      // verl / TRL take the reference policy to be the model RL starts from: after a warm-start, the SFT model.
      // (the adapters' values with LoRA, whose reference shares the frozen base; every weight without)
      reference.copyWeightsFrom(model);
      await saveCheckpoint(referenceDirOf(input.checkpointDir), {
        model: reference,
        state: { step: 0, rngState: 0, dataCursor: 0, role: "kl-reference" },
      });
    }
    await report?.(progress(true));
    const applied = steps.filter((s) => s.applied && Number.isFinite(s.loss)).map((s) => s.loss);
    const seconds = (performance.now() - t0) / 1000;
    const metrics: Record<string, number> = { "time/sft_s": seconds };
    if (applied.length) {
      metrics["sft/loss_first"] = applied[0];
      metrics["sft/loss_last"] = applied[applied.length - 1];
    }
    const lossText = applied.length ? `loss ${applied[0].toFixed(3)} → ${applied[applied.length - 1].toFixed(3)}` : "no step applied";
    const notes = [
      truncated ? `${truncated} truncated to the last ${maxPositions} tokens` : "",
      examples.length < demos.length ? `${demos.length - examples.length} skipped (no assistant token left)` : "",
    ].filter(Boolean);
    return {
      metrics,
      events: [
        {
          level: "info",
          message: `SFT warm-start: ${steps.length} steps on ${examples.length} demonstrations from ${source}, ${lossText}${notes.length ? ` (${notes.join("; ")})` : ""}.`,
          data: {
            steps: steps.length,
            skippedSteps: steps.filter((s) => !s.applied).length,
            demonstrations: examples.length,
            batchSize: Math.min(config.grpo.minibatchSize, examples.length),
            source,
            lossFirst: applied[0] ?? null,
            lossLast: applied[applied.length - 1] ?? null,
            truncated,
            seconds,
          },
        },
      ],
    };
  };
}

/**
 * SkyRL's training batches (`dumped_data/global_step_<N>_training_input.pkl`, decoded by skyrl-batch.ts into JSON
 * lines when the file is read) as train-split samples at step N:
 * - the prompt, rendered by the chat template, is one message; the response is split where `loss_mask` changes:
 *   trained runs are the policy's messages, untrained runs (tool output, the user's turns in a multi-turn rollout)
 *   the environment's;
 * - text comes from a `tokenizer.json` imported with the files (the policy's Hugging Face tokenizer); without one
 *   each message shows its token ids;
 * - SkyRL removes `rewards` before the dump, so samples are unscored (reward null, never 0); the step's
 *   `avg_final_rewards` is its `reward/mean` curve, and each sample keeps the advantage it was trained with (at
 *   its first trained token; GRPO's is the same on every token), its KL to the reference and its mean log-prob;
 * - rows of one `policy_prompt_boundaries` range form a group.
 */
import type { TrajectoryInput } from "../ingest";
import type { SkyrlBatchRow } from "./skyrl-batch";
import { jsonLines, type ImportFile, type ImportProblem } from "./types";

export const TRAINING_BATCH_FILE = /(?:^|\/)global_step_(\d+)_training_input\.pkl$/;

type Message = TrajectoryInput["conversation"][number];

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** The response split into runs of trained / untrained tokens, in order. */
function runs(row: SkyrlBatchRow): { trained: boolean; start: number; end: number }[] {
  const out: { trained: boolean; start: number; end: number }[] = [];
  row.response.forEach((_, i) => {
    const trained = (row.lossMask[i] ?? 1) !== 0;
    const last = out[out.length - 1];
    if (last && last.trained === trained) last.end = i + 1;
    else out.push({ trained, start: i, end: i + 1 });
  });
  return out;
}

function conversationOf(row: SkyrlBatchRow, text: (ids: number[]) => string): Message[] {
  const messages: Message[] = [{ role: "user", source: "system", content: text(row.prompt), turn: 0 }];
  let turn = 0;
  for (const r of runs(row)) {
    const content = text(row.response.slice(r.start, r.end));
    if (r.trained) {
      const advantage = row.advantages?.[r.start];
      messages.push({
        role: "assistant",
        source: "policy",
        content,
        turn,
        ...(advantage !== undefined ? { advantage: round(advantage) } : {}),
      });
    } else {
      messages.push({ role: "user", source: "environment", content, turn });
      turn++;
    }
  }
  return messages;
}

export function trainingBatchSamples(
  files: ImportFile[],
  decode: ((ids: number[]) => string) | null,
  problems: ImportProblem[],
): { trajectories: TrajectoryInput[]; steps: Map<number, Record<string, number>> } {
  const text = decode ?? ((ids: number[]) => `[token ids] ${ids.join(" ")}`);
  const trajectories: TrajectoryInput[] = [];
  const steps = new Map<number, Record<string, number>>();
  for (const file of files) {
    const step = Number(TRAINING_BATCH_FILE.exec(file.path)?.[1]);
    if (file.unreadable) {
      problems.push({ file: file.path, message: file.unreadable });
      continue;
    }
    for (const { line, value } of jsonLines(file, problems)) {
      const header = value.skyrl_batch as { metrics?: Record<string, number>; unread?: string[] } | undefined;
      if (header) {
        const { avg_final_rewards: rewardMean, ...rest } = header.metrics ?? {};
        const metrics: Record<string, number> = Object.fromEntries(Object.entries(rest).map(([k, v]) => [`skyrl/${k}`, v]));
        if (rewardMean !== undefined) metrics["reward/mean"] = rewardMean;
        steps.set(step, metrics);
        for (const what of header.unread ?? []) problems.push({ file: file.path, message: `not read: ${what}` });
        continue;
      }
      const row = value as unknown as SkyrlBatchRow;
      if (!Array.isArray(row.prompt) || !Array.isArray(row.response)) {
        problems.push({ file: file.path, line, message: "a batch row without prompt and response tokens" });
        continue;
      }
      const trained = row.response.filter((_, i) => (row.lossMask[i] ?? 1) !== 0).length;
      const components: Record<string, number> = { trained_tokens: trained };
      if (row.kl) components.kl_mean = round(mean(row.kl.filter((_, i) => row.lossMask[i] !== 0)));
      if (row.actionLogProbs) components.logprob_mean = round(mean(row.actionLogProbs.filter((_, i) => row.lossMask[i] !== 0)));
      const group = row.group !== null ? `step-${step}/prompt-${row.group}` : `step-${step}/${row.prompt.slice(-64).join(",")}`;
      const firstTrained = row.lossMask.findIndex((m) => m !== 0);
      trajectories.push({
        id: `${file.path}:${row.index}`,
        step,
        split: "train",
        group,
        taskId: group,
        conversation: conversationOf(row, text),
        reward: row.rewards ? round(row.rewards.reduce((a, b) => a + b, 0)) : null,
        rewardComponents: components,
        advantage: row.advantages && firstTrained >= 0 ? round(row.advantages[firstTrained]) : null,
        promptTokens: row.prompt.length,
        responseTokens: row.response.length,
      });
    }
  }
  return { trajectories, steps };
}

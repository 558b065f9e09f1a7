/**
 * `rollout-lab sgd optimize-user` against agent_gym's own simulated-user optimisation
 * (tests/fixtures/parity/agent-gym-user-opt.json, made by scripts/parity/agent_gym_user_opt_parity.py over the
 * vendored SGD sample), in what needs no LLM: the word-overlap metric on 185 (candidate, real message) pairs, the
 * examples cut from each dialogue (which user turns, with which assistant response and history), and which examples
 * are held out for scoring. The differences kept on purpose are counted here and listed in docs/environments/sgd.md.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { loadSgdCorpus } from "./sgd-format";
import { tasksFromCorpus } from "./sgd-task";
import { devExamples, wordOverlap } from "./user-prompt-search";
import { devSplit } from "../../../cli/sgd-optimize";

const REPO = path.resolve(import.meta.dirname, "../../..");
const DATA = path.join(REPO, "tests/fixtures/shared/data/sgd/train");
type Ref = [string, number];
const fx = JSON.parse(readFileSync(path.join(REPO, "tests/fixtures/parity/agent-gym-user-opt.json"), "utf8")) as {
  metric: { kind: string; candidate: string; real: string; score: number }[];
  examples: { dialogue_id: string; examples: ["initial" | "response", number, string, string | null][] }[];
  selection: {
    train_dialogues: string[];
    dev_dialogues: string[];
    evaluated_before: Ref[];
    evaluated_after: Ref[];
    trained: { examples: Ref[]; max_demos: number };
  };
};
const short = (s: string) => createHash("sha256").update(s, "utf8").digest("hex").slice(0, 8);

test("the word overlap reported beside realism is agent_gym's metric, pair for pair", () => {
  const wrong = fx.metric.filter((p) => wordOverlap(p.candidate, p.real) !== p.score);
  assert.deepEqual(
    wrong.map(
      (p) => `${p.kind}: ${JSON.stringify(p.candidate)} / ${JSON.stringify(p.real)}: ${wordOverlap(p.candidate, p.real)} vs ${p.score}`,
    ),
    [],
    `${fx.metric.length - wrong.length} of ${fx.metric.length} pairs scored as agent_gym scores them`,
  );
});

/** Our teacher-forced examples of every usable dialogue, per dialogue in order: agent_gym's fields. */
async function ourExamples() {
  const corpus = await loadSgdCorpus(DATA);
  const tasks = new Map(tasksFromCorpus(corpus, DATA).map((t) => [t.data.dialogueId, t.data]));
  const usable = corpus.dialogues.filter((d) => tasks.has(d.dialogueId));
  const examples = devExamples(
    usable.map((dialogue) => ({ dialogue, task: tasks.get(dialogue.dialogueId)! })),
    Infinity,
  );
  const byDialogue = new Map<string, { kind: string; history: number; real: string; response: string | null }[]>();
  for (const e of examples) {
    const list = byDialogue.get(e.task.dialogueId) ?? [];
    const system = [...e.before].reverse().find((t) => t.speaker === "SYSTEM");
    list.push({
      kind: e.before.length ? "response" : "initial",
      history: e.before.length,
      real: short(e.real.text),
      response: system ? short(system.text) : null,
    });
    byDialogue.set(e.task.dialogueId, list);
  }
  return { byDialogue, corpus };
}

test("the same user turns of the same dialogues are scored, with the same assistant response before them", async () => {
  const { byDialogue } = await ourExamples();
  const counts = { examples: 0, present: 0, real: 0, kind: 0, response: 0, history: 0, longerHistory: 0 };
  for (const d of fx.examples)
    d.examples.forEach(([kind, history, real, response], k) => {
      counts.examples++;
      const ours = byDialogue.get(d.dialogue_id)?.[k];
      if (!ours) return;
      counts.present++;
      if (ours.real === real) counts.real++;
      if (ours.kind === kind) counts.kind++;
      if (ours.response === response) counts.response++;
      if (Math.min(10, ours.history) === history) counts.history++;
      // Kept on purpose: our user LLM sees the whole dialogue so far; agent_gym's history keeps the last 10 lines.
      if (ours.history > 10) counts.longerHistory++;
    });
  const ourCount = [...byDialogue.values()].reduce((n, l) => n + l.length, 0);
  assert.deepEqual(
    { ...counts, ours: ourCount },
    { examples: 384, present: 384, real: 384, kind: 384, response: 384, history: 384, longerHistory: 144, ours: 384 },
  );
});

test("held-out examples: agent_gym's first 20 of its dev split's first dialogues; ours spread over the last dialogues", async () => {
  const { corpus } = await ourExamples();
  const s = fx.selection;
  assert.deepEqual(s.evaluated_before, s.evaluated_after, "agent_gym scores before and after on the same examples");
  // Pointed at agent_gym's dev split (the sample's last 12 dialogues) with the command's defaults.
  const devCorpus = { ...corpus, dialogues: corpus.dialogues.filter((d) => s.dev_dialogues.includes(d.dialogueId)) };
  const { dev, pool } = devSplit(devCorpus, DATA, 8);
  const ours = devExamples(dev, 24);
  const key = (dialogue: string, k: number) => `${dialogue}#${k}`;
  const ourKeys = new Set<string>();
  const seen = new Map<string, number>();
  for (const { dialogue } of dev) seen.set(dialogue.dialogueId, 0);
  for (const e of devExamples(dev, Infinity)) {
    const k = seen.get(e.task.dialogueId)!;
    seen.set(e.task.dialogueId, k + 1);
    if (ours.some((o) => o.task.dialogueId === e.task.dialogueId && o.real.text === e.real.text && o.before.length === e.before.length))
      ourKeys.add(key(e.task.dialogueId, k));
  }
  const theirs = s.evaluated_before.map(([d, k]) => key(d, k));
  const figures = {
    theirExamples: theirs.length,
    theirDialogues: new Set(s.evaluated_before.map(([d]) => d)).size,
    ourExamples: ours.length,
    ourDialogues: new Set(ours.map((e) => e.task.dialogueId)).size,
    shared: theirs.filter((k) => ourKeys.has(k)).length,
    theirTrainExamples: s.trained.examples.length,
    theirTrainDialogues: new Set(s.trained.examples.map(([d]) => d)).size,
    ourPoolDialogues: pool.length,
  };
  assert.deepEqual(figures, {
    theirExamples: 20,
    theirDialogues: 3,
    ourExamples: 24,
    ourDialogues: 8,
    shared: 0,
    theirTrainExamples: 100,
    theirTrainDialogues: 10,
    ourPoolDialogues: 4,
  });
});

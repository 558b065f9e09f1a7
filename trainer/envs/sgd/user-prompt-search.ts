/**
 * Optimising the simulated user's prompt against real dialogues, as agent_gym does with DSPy
 * (scripts/optimize_simulated_user.py: BootstrapFewShot chooses demonstrations, MIPRO instructions; the metric
 * compares the simulated user's message with the real user's). Here the search is a grid over the style instruction
 * (USER_INSTRUCTIONS) and the number of real dialogues shown, and the score is the realism metric (user-realism.ts)
 * of the messages the candidate produces, teacher-forced: for real user turns of held-out dialogues the user LLM
 * gets the dialogue so far and writes the next user message, which is compared, as a distribution, with what the
 * real users wrote. agent_gym's word-overlap similarity with the real message is reported beside it.
 *
 * The best candidate is saved as a versioned artifact (`sgd-user-v<N>.json`) holding the prompt itself, the scores
 * before (the default prompt) and after, and every candidate's score; `sgd.userPrompt` in a run config uses it. When
 * no candidate beats the default prompt, the default is kept: the artifact says so (`improved: false`) and holds it.
 */
import { readdir, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { LlmChat } from "../types";
import type { SgdDialogue } from "./sgd-format";
import type { SgdTaskData } from "./sgd-task";
import { selectFewShotDialogues } from "./few-shot";
import { buildUserSystemPrompt, USER_INSTRUCTIONS, type UserInstructionId } from "./user-prompt";
import { scoreUserRealism, type RealismScore, type UserTurnSample } from "./user-realism";
import { STOP_TOKEN } from "./offline-user";
import { pythonSplit } from "../../../lib/python-values";

export interface Candidate {
  instruction: UserInstructionId;
  fewShot: number;
}

export interface CandidateScore extends Candidate {
  realism: RealismScore;
  /** Mean word-overlap (Jaccard) of each simulated message with the real one: agent_gym's metric. */
  similarity: number;
}

/** One teacher-forced example: a real user turn, the dialogue before it, and what the real user said. */
interface DevExample {
  task: SgdTaskData;
  /** The turns before the user turn, oldest first. */
  before: { speaker: "USER" | "SYSTEM"; text: string }[];
  real: UserTurnSample;
}

export const DEFAULT_CANDIDATE: Candidate = { instruction: "default", fewShot: 2 };

export function candidateGrid(fewShots: readonly number[] = [0, 1, 2, 3]): Candidate[] {
  return (Object.keys(USER_INSTRUCTIONS) as UserInstructionId[]).flatMap((instruction) =>
    fewShots.map((fewShot) => ({ instruction, fewShot })),
  );
}

/**
 * agent_gym's metric (`compute_user_simulation_similarity`): Jaccard similarity of the two messages' sets of words,
 * a word being what Python's `lower().split()` gives (punctuation stays on its word: "Francisco." is not
 * "francisco"); 0 when either message is empty. Checked against agent_gym's own function on 185 pairs
 * (agent-gym-user-opt-parity.test.ts).
 */
export function wordOverlap(simulated: string, real: string): number {
  if (!simulated || !real) return 0;
  const [x, y] = [new Set(pythonSplit(simulated.toLowerCase())), new Set(pythonSplit(real.toLowerCase()))];
  if (y.size === 0) return 0;
  const union = new Set([...x, ...y]).size;
  return union === 0 ? 0 : [...x].filter((w) => y.has(w)).length / union;
}

/** Every slot value a dialogue's user turns or calls contain (what realism counts as mentions). */
function knownValues(d: SgdDialogue): string[] {
  const values = new Set<string>();
  for (const t of d.turns)
    for (const f of t.frames) {
      if (t.speaker === "USER") for (const a of f.actions) if (a.slot !== "intent") a.values.forEach((v) => values.add(v));
      if (f.serviceCall) Object.values(f.serviceCall.parameters).forEach((v) => values.add(v));
    }
  return [...values];
}

/**
 * Up to `maxTurns` real user turns from the dev dialogues, spread over them (every dialogue contributes before any
 * contributes twice), each with its context.
 */
export function devExamples(dev: { dialogue: SgdDialogue; task: SgdTaskData }[], maxTurns: number): DevExample[] {
  const perDialogue = dev.map(({ dialogue, task }) => {
    const known = knownValues(dialogue);
    return dialogue.turns.flatMap((t, i) =>
      t.speaker === "USER"
        ? [
            {
              task,
              before: dialogue.turns.slice(0, i).map((b) => ({ speaker: b.speaker, text: b.utterance })),
              real: { text: t.utterance, knownValues: known },
            },
          ]
        : [],
    );
  });
  const out: DevExample[] = [];
  for (let round = 0; out.length < maxTurns && perDialogue.some((l) => l.length > round); round++)
    for (const list of perDialogue) if (list[round] && out.length < maxTurns) out.push(list[round]);
  return out;
}

/** The user LLM's messages for one example: its prompt, then the dialogue so far from the user's side. */
function messagesFor(example: DevExample, candidate: Candidate, pool: SgdDialogue[]) {
  const examples = selectFewShotDialogues(example.task, pool, candidate.fewShot);
  const system = buildUserSystemPrompt(example.task, examples, USER_INSTRUCTIONS[candidate.instruction]);
  const history = example.before.map((t) => ({
    role: t.speaker === "SYSTEM" ? ("user" as const) : ("assistant" as const),
    content: t.text,
  }));
  if (history.length === 0 || history[history.length - 1].role === "assistant")
    history.push({ role: "user", content: "(The assistant is ready. Start the conversation.)" });
  return [{ role: "system" as const, content: system }, ...history];
}

export async function scoreCandidate(
  candidate: Candidate,
  examples: DevExample[],
  pool: SgdDialogue[],
  llm: LlmChat,
): Promise<CandidateScore> {
  const simulated: UserTurnSample[] = [];
  let similarity = 0;
  for (const [i, example] of examples.entries()) {
    const reply = await llm.chat({ role: "user_simulator", turn: i, messages: messagesFor(example, candidate, pool), offline: () => "" });
    const text = reply.text.replace(STOP_TOKEN, "").trim();
    simulated.push({ text, knownValues: example.real.knownValues });
    similarity += wordOverlap(text, example.real.text);
  }
  const realism = scoreUserRealism(
    simulated,
    examples.map((e) => e.real),
  );
  return { ...candidate, realism, similarity: Math.round((similarity / Math.max(1, examples.length)) * 1000) / 1000 };
}

export interface SearchResult {
  baseline: CandidateScore;
  /** The prompt to use: the best candidate if it beat the baseline, else the baseline. */
  best: CandidateScore;
  /** Whether a candidate scored better than the default prompt (higher realism, or as high with more word overlap). */
  improved: boolean;
  candidates: CandidateScore[];
  devTurns: number;
}

/** Positive when `b` is better than `a`: higher realism, then higher word overlap; a tie is no improvement. */
const better = (a: CandidateScore, b: CandidateScore) => b.realism.realism - a.realism.realism || b.similarity - a.similarity;

/**
 * Scores the default prompt and every candidate; the best has the highest realism (ties: similarity, fewer examples).
 * A best that only ties the default prompt does not replace it.
 */
export async function searchUserPrompt(opts: {
  dev: { dialogue: SgdDialogue; task: SgdTaskData }[];
  pool: SgdDialogue[];
  llm: LlmChat;
  devTurns: number;
  candidates?: Candidate[];
  onScore?: (s: CandidateScore) => void;
}): Promise<SearchResult> {
  const examples = devExamples(opts.dev, opts.devTurns);
  if (examples.length === 0) throw new Error("the dev dialogues have no user turns to compare with");
  const scored: CandidateScore[] = [];
  for (const c of opts.candidates ?? candidateGrid()) {
    const s = await scoreCandidate(c, examples, opts.pool, opts.llm);
    opts.onScore?.(s);
    scored.push(s);
  }
  const same = (a: Candidate, b: Candidate) => a.instruction === b.instruction && a.fewShot === b.fewShot;
  const baseline =
    scored.find((s) => same(s, DEFAULT_CANDIDATE)) ?? (await scoreCandidate(DEFAULT_CANDIDATE, examples, opts.pool, opts.llm));
  const top = [...scored].sort((a, b) => better(a, b) || a.fewShot - b.fewShot)[0];
  const improved = better(baseline, top) > 0;
  return { baseline, best: improved ? top : baseline, improved, candidates: scored, devTurns: examples.length };
}

export interface UserPromptArtifact {
  kind: "rollout-lab/sgd-user-prompt";
  name: string;
  version: number;
  createdAt: string;
  model: string;
  /** What a run config's `sgd.userPrompt` takes. */
  userPrompt: { artifact: string; instruction: string; fewShot: number };
  instructionId: UserInstructionId;
  /** false when no candidate beat the default prompt: `after` is then the default prompt, kept. */
  improved: boolean;
  before: CandidateScore;
  after: CandidateScore;
  devTurns: number;
  candidates: CandidateScore[];
}

/** Writes `sgd-user-v<N>.json` in `dir`, N one past the highest version there. */
export async function saveUserPromptArtifact(
  dir: string,
  result: SearchResult,
  model: string,
): Promise<{ file: string; artifact: UserPromptArtifact }> {
  await mkdir(dir, { recursive: true });
  const versions = (await readdir(dir)).map((f) => /^sgd-user-v(\d+)\.json$/.exec(f)?.[1]).filter((v): v is string => v !== undefined);
  const version = Math.max(0, ...versions.map(Number)) + 1;
  const name = `sgd-user-v${version}`;
  const artifact: UserPromptArtifact = {
    kind: "rollout-lab/sgd-user-prompt",
    name,
    version,
    createdAt: new Date().toISOString(),
    model,
    userPrompt: { artifact: name, instruction: USER_INSTRUCTIONS[result.best.instruction], fewShot: result.best.fewShot },
    instructionId: result.best.instruction,
    improved: result.improved,
    before: result.baseline,
    after: result.best,
    devTurns: result.devTurns,
    candidates: result.candidates,
  };
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, `${JSON.stringify(artifact, null, 2)}\n`, { flag: "wx" });
  return { file, artifact };
}

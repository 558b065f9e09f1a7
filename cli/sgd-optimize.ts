/**
 * `rollout-lab sgd optimize-user`: searches the Agent Gym user simulator's prompt against real SGD dialogues
 * (trainer/envs/sgd/user-prompt-search.ts) with an OpenAI-compatible endpoint playing the user, prints every
 * candidate's score and the score before and after, and saves the best prompt as a versioned artifact whose
 * `userPrompt` goes into a run config's `environmentOptions` for `sgd` — or, when no candidate beat the default
 * prompt, says so and keeps the default (the artifact records the search with `improved: false`).
 */
import path from "node:path";
import { LlmClient } from "../trainer/llm";
import { loadSgdCorpus, type SgdCorpus } from "../trainer/envs/sgd/sgd-format";
import { tasksFromCorpus } from "../trainer/envs/sgd/sgd-task";
import { saveUserPromptArtifact, searchUserPrompt, type CandidateScore } from "../trainer/envs/sgd/user-prompt-search";
import { CliError, EXIT } from "./exit-codes";

export interface OptimizeUserOptions {
  data: string;
  baseUrl: string;
  model: string;
  apiKeyEnv?: string;
  devDialogues: number;
  devTurns: number;
  out: string;
}

const line = (s: CandidateScore) =>
  `${s.instruction.padEnd(8)} fewShot ${s.fewShot}  realism ${s.realism.realism.toFixed(3)} (length ${s.realism.length.toFixed(3)}, ` +
  `mentions ${s.realism.slotMentions.toFixed(3)}, acts ${s.realism.acts.toFixed(3)})  word overlap ${s.similarity.toFixed(3)}`;

/**
 * The held-out dialogues and the few-shot pool: the last `devDialogues` usable dialogues (those a task is made of)
 * are the dev set; few-shot examples come only from the others. agent_gym evaluates on its dev split's first
 * dialogues and draws demonstrations from its train split instead (docs/environments/sgd.md, agent-gym-user-opt-parity.test.ts).
 */
export function devSplit(corpus: SgdCorpus, data: string, devDialogues: number) {
  const tasks = new Map(tasksFromCorpus(corpus, data).map((t) => [t.data.dialogueId, t.data]));
  const usable = corpus.dialogues.filter((d) => tasks.has(d.dialogueId));
  if (usable.length < devDialogues + 2)
    throw new CliError(
      EXIT.BAD_CONFIG,
      `${data} has ${usable.length} usable dialogues; --dev-dialogues ${devDialogues} needs at least ${devDialogues + 2}.`,
    );
  const dev = usable.slice(-devDialogues).map((dialogue) => ({ dialogue, task: tasks.get(dialogue.dialogueId)! }));
  return { dev, pool: usable.slice(0, -devDialogues) };
}

export async function optimizeUserPrompt(opts: OptimizeUserOptions, out: (l: string) => void): Promise<string> {
  const corpus = await loadSgdCorpus(opts.data);
  const { dev, pool } = devSplit(corpus, opts.data, opts.devDialogues);
  const llm = new LlmClient({ endpoints: { user_simulator: { baseUrl: opts.baseUrl, model: opts.model, apiKeyEnv: opts.apiKeyEnv } } });
  out(
    `Scoring user prompts on ${opts.devDialogues} held-out dialogues (up to ${opts.devTurns} user turns), ${pool.length} dialogues for examples:`,
  );
  const result = await searchUserPrompt({ dev, pool, llm, devTurns: opts.devTurns, onScore: (s) => out(`  ${line(s)}`) });
  const { file, artifact } = await saveUserPromptArtifact(opts.out, result, opts.model);
  const saved = path.relative(process.cwd(), file) || file;
  out(`before (default prompt): ${line(result.baseline)}`);
  if (!result.improved) {
    out(`No candidate beat the default prompt: keeping it. ${saved} records the search; the run config needs no change.`);
    return file;
  }
  out(`after  (${artifact.name}):  ${line(result.best)}`);
  out(`Saved ${saved}. To use it, put this in the run config's environmentOptions:`);
  out(JSON.stringify({ userPrompt: artifact.userPrompt }));
  return file;
}

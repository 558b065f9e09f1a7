/**
 * "Guess the number": a built-in multi-turn environment that needs no LLM and scores deterministically. The user
 * thinks of a number in [1, N]; each policy turn is a guess; the environment answers "higher than g", "lower than g" or "correct".
 * Reward = 1 - turnPenalty * (turns - 1) when solved, 0 otherwise, so it pays to use the feedback (binary search
 * solves N = 8 in <= 4 turns). It is the trainer's proof that GRPO learns (learns.test.ts) and a smoke-test env.
 */
import type { ConversationMessage, EpisodeEndReason } from "../../../lib/conversation";
import type { Demonstration, Environment, Episode, EpisodeContext, Evaluation, StepResult, Task } from "../types";
import { GuessEnvOptionsSchema, type GuessEnvOptions } from "../../../lib/environment-options";

export { GuessEnvOptionsSchema, type GuessEnvOptions };

export interface GuessTaskData {
  secret: number;
  max: number;
}

export function guessPrompt(max: number): string {
  return `Guess 1-${max}`;
}

/** Parses the policy's reply, which must be just an integer (surrounding whitespace allowed); else null. */
export function parseGuess(text: string): number | null {
  const m = /^\s*(-?\d+)\s*$/.exec(text);
  return m ? Number(m[1]) : null;
}

/** The environment's reply to a valid wrong guess (restating the guess keeps the cue local). */
function hint(guess: number, secret: number): string {
  return `${guess < secret ? "higher" : "lower"} than ${guess}`;
}

/**
 * The gold trajectory: binary search, the optimal strategy (it solves 1-N in at most ceil(log2(N + 1)) turns), in
 * exactly the messages an episode of the task shows the policy.
 */
export function binarySearchDemonstration(task: Task<GuessTaskData>): Demonstration {
  const { secret, max } = task.data;
  const messages: Demonstration["messages"] = [{ role: "user", content: guessPrompt(max) }];
  let [lo, hi] = [1, max];
  while (lo <= hi) {
    const g = Math.floor((lo + hi) / 2);
    messages.push({ role: "assistant", content: String(g) });
    if (g === secret) {
      messages.push({ role: "user", content: "correct" });
      break;
    }
    messages.push({ role: "user", content: hint(g, secret) });
    if (g < secret) lo = g + 1;
    else hi = g - 1;
  }
  return { taskId: task.id, messages };
}

class GuessEpisode implements Episode {
  private turns = 0;
  private solved = false;
  private invalid = 0;
  /** The last valid guess: the final state's `answer`, compared with the secret in the inspector. */
  private lastGuess: number | null = null;

  constructor(
    private readonly data: GuessTaskData,
    private readonly ctx: EpisodeContext,
    private readonly turnPenalty: number,
  ) {}

  async reset(): Promise<ConversationMessage[]> {
    return [{ role: "user", source: "environment", content: guessPrompt(this.data.max), turn: 0 }];
  }

  async step(policyText: string, turn: number): Promise<StepResult> {
    this.turns++;
    const g = parseGuess(policyText);
    let reply: string;
    if (g === null || g < 1 || g > this.data.max) {
      this.invalid++;
      reply = `say 1-${this.data.max}`;
    } else {
      this.lastGuess = g;
      this.solved = g === this.data.secret;
      reply = this.solved ? "correct" : hint(g, this.data.secret);
    }
    const done = this.solved || this.turns >= this.ctx.maxTurns;
    return {
      observations: [{ role: "user", source: "environment", content: reply, turn: turn + 1 }],
      done,
      endReason: this.solved ? "agent_finished" : done ? "max_turns" : undefined,
    };
  }

  async evaluate(endReason: EpisodeEndReason): Promise<Evaluation> {
    const reward = this.solved ? Math.max(0, 1 - this.turnPenalty * (this.turns - 1)) : 0;
    return {
      reward,
      components: { solved: this.solved ? 1 : 0, turns: this.turns, invalid: this.invalid },
      reasoning: this.solved ? `solved in ${this.turns} turn(s)` : `not solved (${endReason}) after ${this.turns} turn(s)`,
      // `answer` in both: what the inspector compares; turns and solved are the episode's bookkeeping.
      finalState: { answer: this.lastGuess, turns: this.turns, solved: this.solved },
      expectedState: { answer: this.data.secret },
    };
  }
}

export function createGuessEnvironment(options: GuessEnvOptions | Record<string, unknown> = {}): Environment<GuessTaskData> {
  const parsed = GuessEnvOptionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new Error(
      `Invalid guess-number environment options: ${parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ")}`,
    );
  }
  const { max, turnPenalty } = parsed.data;
  return {
    name: "guess-number",
    description: `Guess a number in 1-${max} from higher/lower feedback; reward 1 - ${turnPenalty} per extra turn.`,
    builtinTasks(): Task<GuessTaskData>[] {
      return Array.from({ length: max }, (_, i) => ({
        id: `guess-${i + 1}`,
        split: "train",
        tags: ["builtin"],
        data: { secret: i + 1, max },
      }));
    },
    createEpisode: (task, ctx) => new GuessEpisode(task.data, ctx, turnPenalty),
    demonstrations: async (tasks) => tasks.map(binarySearchDemonstration),
  };
}

/**
 * One episode played by a remote policy. The trainer's own episode runner (trainer/rollout/run-episode.ts) drives
 * it unchanged, with a policy whose every turn waits for the client's next action: the runner's reset, step,
 * turn rewards, format errors, answered tool calls, LLM-call recording and evaluation are exactly those of a run
 * trained here, so a served trajectory is recorded the way the inspector expects.
 *
 * Each `start` / `act` resolves with the next observation: when the runner asks the policy for its next turn (the
 * messages since the last action), or when the episode is over (the evaluation).
 */
import type { ConversationMessage, EpisodeEndReason } from "../../lib/conversation";
import type { Environment, Task, ToolSchema } from "../envs/types";
import type { LlmClient } from "../llm/client";
import { runEpisode, type EpisodeTrajectory, type PolicyOutput } from "../rollout/run-episode";
import { RequestError, WS_ERROR, callsOf, type Action, type ObservationOut } from "./protocol";

type Abandon = Extract<EpisodeEndReason, "client_ended" | "idle_expired" | "server_stopped">;

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export interface StepView {
  observation: ObservationOut;
  reward: number | null;
  done: boolean;
}

export interface ServedEpisodeOptions {
  env: Environment;
  task: Task;
  llm: LlmClient;
  seed: number;
  maxTurns: number;
  toolPresentation: "schemas" | "prompt";
  sessionId: string;
  episodeId: string;
  /** Recording ids, announced in the final observation. */
  runId: string;
  trajectoryId: string;
  /** Makes the finished episode durable (journal); resolves before the final observation is sent. */
  persist(trajectory: EpisodeTrajectory): Promise<void>;
}

const toolsOut = (tools: ToolSchema[]) =>
  tools.map((t) => ({ type: "function" as const, function: { name: t.name, description: t.description, parameters: t.parameters } }));

export class ServedEpisode {
  /** Resolves with the trajectory when the runner has evaluated the episode. */
  readonly finished: Promise<EpisodeTrajectory>;
  private pendingTurn: Deferred<PolicyOutput> | null = null;
  private nextView = deferred<StepView>();
  private messages: ConversationMessage[] = [];
  private delivered = 0;
  private sentTools: string | null = null;
  private abandonReason: Abandon | null = null;
  private turns = 0;
  private busy = false;
  private trajectory: EpisodeTrajectory | null = null;
  private finalObservation: StepView | null = null;

  constructor(private readonly opts: ServedEpisodeOptions) {
    this.finished = runEpisode({
      env: opts.env,
      task: opts.task,
      maxTurns: opts.maxTurns,
      ctx: { seed: opts.seed, llm: opts.llm, toolPresentation: opts.toolPresentation },
      policy: (messages, info) => {
        this.messages = messages;
        if (this.abandonReason) return Promise.resolve({ text: "", endEpisode: this.abandonReason });
        this.pendingTurn = deferred<PolicyOutput>();
        this.publish(this.turnView(info.tools ?? []));
        return this.pendingTurn.promise;
      },
    }).then(async (trajectory) => {
      // The final observation (the reward a trainer trains on) goes out only once the episode is durably recorded.
      const unrecorded = await opts.persist(trajectory).then(
        () => null,
        (err: Error) => `the episode could not be recorded durably (${err.message}); it may be missing from the run`,
      );
      this.trajectory = trajectory;
      this.messages = trajectory.messages;
      this.pendingTurn = null;
      this.finalObservation = this.finalView(unrecorded ? { ...trajectory, error: trajectory.error ?? unrecorded } : trajectory);
      this.publish(this.finalObservation);
      return trajectory;
    });
  }

  get done(): boolean {
    return this.trajectory !== null;
  }

  get turnCount(): number {
    return this.turns;
  }

  get conversation(): readonly ConversationMessage[] {
    return this.messages;
  }

  get result(): EpisodeTrajectory | null {
    return this.trajectory;
  }

  /** The opening observation (or the final one, if the episode ended before the policy's first turn). */
  start(): Promise<StepView> {
    return this.nextView.promise;
  }

  /** Plays one action; the next observation resolves when the environment has answered it. */
  act(action: Action): Promise<StepView> {
    if (this.done)
      throw new RequestError(409, WS_ERROR.execution, "The episode is over (done was true): send a reset to start the next one.");
    if (this.busy || !this.pendingTurn)
      throw new RequestError(409, WS_ERROR.execution, "The previous step is still being played: wait for its observation.");
    this.busy = true;
    this.turns++;
    const turn = this.pendingTurn;
    this.pendingTurn = null;
    const view = this.nextView.promise;
    turn.resolve({ text: action.message, toolCalls: callsOf(action) });
    return view;
  }

  /**
   * Ends the episode early (reset, close, idle, shutdown); it is still evaluated and recorded as truncated. Resolves
   * with the final observation (after a step in flight, if any, has been answered).
   */
  abandon(reason: Abandon): Promise<StepView> {
    if (this.finalObservation) return Promise.resolve(this.finalObservation);
    this.abandonReason ??= reason;
    const final = this.nextView.promise;
    if (this.pendingTurn) {
      const turn = this.pendingTurn;
      this.pendingTurn = null;
      turn.resolve({ text: "", endEpisode: reason });
    }
    return final.then((view) => (view.done ? view : this.abandon(reason)));
  }

  private publish(view: StepView): void {
    this.busy = false;
    const current = this.nextView;
    this.nextView = deferred<StepView>();
    current.resolve(view);
  }

  /** Messages the client has not seen yet, its own replies left out. */
  private newMessages(): ObservationOut["messages"] {
    const fresh = this.messages.slice(this.delivered).filter((m) => m.source !== "policy");
    this.delivered = this.messages.length;
    return fresh.map((m) => ({
      role: m.role,
      content: m.content,
      source: m.source,
      ...(m.name !== undefined ? { name: m.name } : {}),
      ...(m.toolCallId !== undefined ? { tool_call_id: m.toolCallId } : {}),
    }));
  }

  private lastPolicyMessage(): ConversationMessage | undefined {
    for (let i = this.messages.length - 1; i >= this.delivered; i--) if (this.messages[i].source === "policy") return this.messages[i];
    return undefined;
  }

  private base(): Omit<ObservationOut, "messages"> {
    const last = this.lastPolicyMessage();
    return {
      task_id: this.opts.task.id,
      session_id: this.opts.sessionId,
      episode_id: this.opts.episodeId,
      seed: this.opts.seed,
      turn: this.turns,
      run_id: this.opts.runId,
      trajectory_id: this.opts.trajectoryId,
      ...(last?.turnReward !== undefined ? { turn_reward: last.turnReward } : {}),
      ...(last?.formatError ? { format_error: last.formatError } : {}),
    };
  }

  private turnView(tools: ToolSchema[]): StepView {
    const base = this.base();
    // Tools change by whole functions (bfcl's miss_func reveals one), so their names identify the list cheaply.
    const toolsKey = tools.map((t) => t.name).join("\0");
    const changed = toolsKey !== this.sentTools && (tools.length > 0 || this.sentTools !== null);
    this.sentTools = toolsKey;
    const observation: ObservationOut = { ...base, messages: this.newMessages(), ...(changed ? { tools: toolsOut(tools) } : {}) };
    return { observation, reward: base.turn_reward ?? null, done: false };
  }

  private finalView(t: EpisodeTrajectory): StepView {
    const base = this.base();
    const reward = t.evaluation?.reward ?? null;
    const observation: ObservationOut = {
      ...base,
      messages: this.newMessages(),
      end_reason: t.endReason,
      status: t.status,
      reward_components: t.evaluation?.components ?? {},
      ...(t.evaluation?.reasoning ? { reasoning: t.evaluation.reasoning } : {}),
      ...(t.error ? { error: t.error } : {}),
    };
    return { observation, reward, done: true };
  }
}

/**
 * A session: one client's sequence of episodes on one environment (a WebSocket connection's lifetime, or one HTTP
 * request). Reset validates the reset data, picks the task, and starts a served episode; step plays one action;
 * state shows the conversation so far. A reset during an episode, a close, the idle timeout or a shutdown ends the
 * episode early; it is still evaluated and recorded (as truncated, with that end reason) when the policy acted.
 */
import { randomInt, randomUUID } from "node:crypto";
import type { ConversationMessage } from "../../lib/conversation";
import type { EnvironmentCatalog } from "./catalog";
import { RequestError, WS_ERROR, actionSchema, resetDataSchema, validationError, type Action, type ResetData } from "./protocol";
import { runIdOf, trajectoryIdOf, type EpisodeRecorder, type RunKey } from "./recorder";
import { ServedEpisode, type StepView } from "./served-episode";

/** Who a session belongs to: an API token, or "local" on an open loopback server. */
export interface Owner {
  key: string;
  name: string;
  tokenPrefix: string | null;
  /** A run-scoped token's run (an outside engine launched by Rollout Lab): every episode is recorded into it. */
  runId?: string | null;
}

export const LOCAL_OWNER: Owner = { key: "local", name: "local", tokenPrefix: null };

export interface SessionDeps {
  catalog: EnvironmentCatalog;
  recorder: EpisodeRecorder;
  /** Called when the session's episodes start or end (the journal of live sessions is rewritten). */
  onChange(): void;
}

interface Current {
  episode: ServedEpisode;
  data: ResetData;
  run: RunKey;
  episodeId: string;
  trajectoryId: string;
  startedAt: string;
}

/** The run an episode is recorded in: the named experiment, else one per owner and UTC day. */
export function runKeyFor(owner: Owner, data: ResetData, envName: string, now: Date): RunKey {
  const day = now.toISOString().slice(0, 10);
  const scope = data.experiment ? `experiment:${data.experiment}` : `day:${day}`;
  return {
    // the launched run already exists (its row is kept as it is); its episodes group by the engine's step
    id: owner.runId ?? runIdOf(owner.key, scope),
    name: data.experiment ?? `OpenEnv episodes · ${owner.name} · ${day}`,
    environment: envName,
    policyModel: data.policy_model ?? "external",
    owner: owner.name,
    // What the inspector reads to show the reward formula (the run's environment, options and judge), as a trained
    // run's config has it; the recorder drops them if the run turns out to mix environments.
    config: {
      environment: envName,
      environmentOptions: data.options ?? {},
      ...(data.llm?.judge ? { llm: { judge: { model: data.llm.judge.model } } } : {}),
      openenv: { ...(data.experiment ? { experiment: data.experiment } : { day }), token: owner.tokenPrefix },
    },
  };
}

export class Session {
  readonly id = randomUUID();
  readonly createdAt = new Date();
  lastActivity = Date.now();
  private current: Current | null = null;
  private episodes = 0;
  private resetting = false;

  constructor(
    readonly envName: string,
    readonly owner: Owner,
    private readonly deps: SessionDeps,
  ) {}

  touch(): void {
    this.lastActivity = Date.now();
  }

  /** What the journal keeps of a live session (to say, after a crash, which sessions were lost). */
  get summary() {
    const c = this.current && !this.current.episode.done ? this.current : null;
    return {
      sessionId: this.id,
      environment: this.envName,
      taskId: c?.data.task_id ?? null,
      episodeId: c?.episodeId ?? null,
      startedAt: c?.startedAt ?? this.createdAt.toISOString(),
      run: c?.run ?? null,
    };
  }

  async reset(raw: unknown): Promise<StepView> {
    this.touch();
    const parsed = resetDataSchema.safeParse(raw ?? {});
    if (!parsed.success) throw validationError(parsed.error, "");
    if (this.resetting)
      throw new RequestError(409, WS_ERROR.execution, "A reset is already in progress in this session: wait for its observation.");
    this.resetting = true;
    try {
      await this.endEpisode("client_ended");
      if (this.deps.recorder.overloaded)
        throw new RequestError(
          503,
          WS_ERROR.capacity,
          `The server has ${this.deps.recorder.backlog} episodes waiting to be recorded (is the database reachable?); retry shortly.`,
        );
      const data = parsed.data;
      const seed = data.seed ?? randomInt(2 ** 31 - 1);
      const parts = await this.deps.catalog.partsFor(this.envName, data, seed);
      const n = ++this.episodes;
      const run = runKeyFor(this.owner, data, this.envName, new Date());
      const episodeId = data.episode_id ?? `${this.id}-${n}`;
      const trajectoryId = trajectoryIdOf(run.id, data.episode_id ?? `${this.id}:${n}`);
      const episode = new ServedEpisode({
        ...parts,
        seed,
        maxTurns: data.max_turns,
        toolPresentation: data.tool_presentation,
        sessionId: this.id,
        episodeId,
        runId: run.id,
        trajectoryId,
      });
      const current: Current = {
        episode,
        data: { ...data, task_id: parts.task.id },
        run,
        episodeId,
        trajectoryId,
        startedAt: new Date().toISOString(),
      };
      this.current = current;
      void episode.finished.then((trajectory) => {
        // An episode the policy never acted in (a probe, or a reset right after a reset) has nothing to inspect.
        if (trajectory.turns > 0)
          this.deps.recorder.enqueue({
            trajectoryId,
            run,
            step: data.step,
            split: data.eval ? "eval" : "train",
            groupKey: data.group ?? parts.task.id,
            task: parts.task,
            trajectory,
          });
        this.deps.onChange();
      });
      this.deps.onChange();
      return await episode.start();
    } finally {
      this.resetting = false;
    }
  }

  async step(raw: unknown): Promise<StepView> {
    this.touch();
    if (!this.current) throw new RequestError(409, WS_ERROR.execution, "No episode in this session: send a reset first.");
    return this.current.episode.act(parseAction(raw));
  }

  /** Ends the current episode early, if one is in progress; resolves with its final observation. */
  async endEpisode(reason: "client_ended" | "idle_expired" | "server_stopped"): Promise<StepView | null> {
    const c = this.current;
    if (!c || c.episode.done) return null;
    return c.episode.abandon(reason);
  }

  state(): Record<string, unknown> {
    this.touch();
    const c = this.current;
    if (!c)
      return { episode_id: null, step_count: 0, session_id: this.id, environment: this.envName, task_id: null, done: false, messages: [] };
    const t = c.episode.result;
    return {
      episode_id: c.episodeId,
      step_count: c.episode.turnCount,
      session_id: this.id,
      environment: this.envName,
      task_id: c.data.task_id ?? null,
      seed: c.data.seed ?? null,
      max_turns: c.data.max_turns,
      done: c.episode.done,
      messages: c.episode.conversation.map(stateMessage),
      run_id: c.run.id,
      trajectory_id: c.trajectoryId,
      ...(t
        ? {
            end_reason: t.endReason,
            status: t.status,
            reward: t.evaluation?.reward ?? null,
            reward_components: t.evaluation?.components ?? {},
            reasoning: t.evaluation?.reasoning ?? null,
            final_state: t.evaluation?.finalState ?? null,
            expected_state: t.evaluation?.expectedState ?? null,
            error: t.error,
          }
        : {}),
    };
  }
}

/** The action; the common `{message}` alone skips the schema (a measurable share of a step's CPU at 128 sessions). */
function parseAction(raw: unknown): Action {
  if (raw && typeof raw === "object" && !Array.isArray(raw)) {
    const keys = Object.keys(raw);
    const message = (raw as { message?: unknown }).message;
    if (keys.length === 1 && typeof message === "string" && message.length <= 1_000_000) return { message };
  }
  const parsed = actionSchema.safeParse(raw);
  if (!parsed.success) throw validationError(parsed.error, "action");
  return parsed.data;
}

const stateMessage = (m: ConversationMessage) => ({
  role: m.role,
  source: m.source,
  content: m.content,
  turn: m.turn,
  ...(m.name !== undefined ? { name: m.name } : {}),
  ...(m.toolCalls ? { tool_calls: m.toolCalls } : {}),
  ...(m.toolCallId !== undefined ? { tool_call_id: m.toolCallId } : {}),
  ...(m.turnReward !== undefined ? { turn_reward: m.turnReward } : {}),
  ...(m.formatError ? { format_error: m.formatError } : {}),
});

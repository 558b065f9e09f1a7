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
import { runIdOf, trajectoryIdOf, type EpisodeRecord, type EpisodeRecorder, type LostSession, type RunKey } from "./recorder";
import type { EpisodeTrajectory } from "../rollout/run-episode";
import { ServedEpisode, type StepView } from "./served-episode";

/** Who a session belongs to: an API token, or "local" on an open loopback server. */
export interface Owner {
  key: string;
  name: string;
  tokenPrefix: string | null;
  /** A token with the "write" scope: its resets may name LLM endpoints and this host's key variables (access.ts). */
  mayCallEndpoints: boolean;
  /** A run-scoped token's run (an outside engine launched by Rollout Lab): every episode is recorded into it. */
  runId?: string | null;
}

export const LOCAL_OWNER: Owner = { key: "local", name: "local", tokenPrefix: null, mayCallEndpoints: false };

export interface SessionDeps {
  catalog: EnvironmentCatalog;
  recorder: EpisodeRecorder;
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
  /** When its connection dropped (it may be resumed within the grace period); null while connected. */
  detachedAt: number | null = null;
  private current: Current | null = null;
  private episodes = 0;
  private resetting = false;

  constructor(
    readonly envName: string,
    readonly owner: Owner,
    private readonly deps: SessionDeps,
    /** Whose share of the server the session counts against: the token, or the address of a tokenless client. */
    readonly client: string = owner.key,
  ) {}

  /** True while an episode is in progress (a dropped session without one has nothing to resume). */
  get inEpisode(): boolean {
    return this.current !== null && !this.current.episode.done;
  }

  touch(): void {
    this.lastActivity = Date.now();
  }

  async reset(raw: unknown): Promise<StepView> {
    this.touch();
    const parsed = resetDataSchema.safeParse(raw ?? {});
    if (!parsed.success) throw validationError(parsed.error, "");
    if (!this.owner.mayCallEndpoints && endpointRoles(parsed.data.llm).length) throw endpointsNeedWriteToken(parsed.data.llm!, this.owner);
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
      if (data.episode_id) {
        const finished = await this.deps.recorder.finishedAttempt(trajectoryId);
        if (finished)
          throw new RequestError(
            409,
            WS_ERROR.validation,
            `episode_id: "${data.episode_id}" was already played to the end in run ${run.id} (trajectory ${trajectoryId}, reward ${finished.reward ?? "unscored"}); a finished episode is stored once, so give a new attempt a new episode_id.`,
            "episode_id",
          );
      }
      const key = `${this.id}:${n}`;
      const record = (trajectory: EpisodeTrajectory): EpisodeRecord | null =>
        // An episode the policy never acted in (a probe, or a reset right after a reset) has nothing to inspect.
        trajectory.turns > 0
          ? {
              trajectoryId,
              run,
              step: data.step,
              split: data.eval ? "eval" : "train",
              groupKey: data.group ?? parts.task.id,
              task: parts.task,
              trajectory,
            }
          : null;
      const episode = new ServedEpisode({
        ...parts,
        seed,
        maxTurns: data.max_turns,
        toolPresentation: data.tool_presentation,
        sessionId: this.id,
        episodeId,
        runId: run.id,
        trajectoryId,
        persist: (trajectory) => this.deps.recorder.ended(key, record(trajectory)),
      });
      const startedAt = new Date().toISOString();
      this.current = { episode, data: { ...data, task_id: parts.task.id }, run, episodeId, trajectoryId, startedAt };
      // Journaled (durably) before the opening observation is sent: if the server dies mid-episode, the next start
      // names this episode as lost.
      const lost: LostSession = {
        sessionId: this.id,
        environment: this.envName,
        taskId: parts.task.id,
        episodeId,
        trajectoryId,
        startedAt,
        run,
      };
      const [opening] = await Promise.all([episode.start(), this.deps.recorder.started(key, lost)]);
      return opening;
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

/** The LLM roles a reset's `llm` section points at an endpoint. */
const endpointRoles = (llm: ResetData["llm"]) => (["userSimulator", "toolSimulator", "judge"] as const).filter((r) => llm?.[r]);

/** Why a reset naming LLM endpoints is refused for this owner (see access.ts: the server's keys are the host's). */
function endpointsNeedWriteToken(llm: NonNullable<ResetData["llm"]>, owner: Owner): RequestError {
  const field = `llm.${endpointRoles(llm)[0]}`;
  const who = owner.tokenPrefix ? `The API token ${owner.tokenPrefix}… lacks the "write" scope` : "No API token was sent";
  return new RequestError(
    403,
    WS_ERROR.validation,
    `${field}: ${who}; a reset that names LLM endpoints makes this server call them with keys from its own environment, which needs a token with the "write" scope even on loopback. Leave out \`llm\` to play with the offline simulators, or send a write token (rollout-lab tokens create --scope write).`,
    field,
  );
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

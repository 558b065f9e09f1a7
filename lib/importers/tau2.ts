/**
 * τ²-bench results. `tau2 run … --save-to` writes tau2's Results model, either as one JSON document or (the
 * directory format, default for voice runs and optional for text) as `results.json` (info, tasks, a simulation
 * index) beside `simulations/<id>.json`, one simulation each:
 *
 *   {"info": {"agent_info": {"llm", "llm_args"}, "user_info": {"llm", …}, "environment_info": {"domain_name"}, …},
 *    "tasks": [{"id", "description", "user_scenario", "evaluation_criteria", …}],
 *    "simulations": [{"id", "task_id", "trial", "termination_reason", "agent_cost", "user_cost",
 *                     "reward_info": {"reward", "reward_basis": ["DB", …], "reward_breakdown", "db_check",
 *                                     "env_assertions", "action_checks", "nl_assertions", "communicate_checks", "info"},
 *                     "messages": [{"role", "content", "tool_calls": [{"id","name","arguments","requestor"}],
 *                                   "turn_idx", "timestamp", "cost", "usage": {"prompt_tokens", "completion_tokens"}}]}]}
 *
 * One run, evaluated (split "eval", step 0); the trials of one task form a group, as τ²'s pass^k reads them, with the
 * task from `tasks[]`. Each message keeps its cost and usage; the user simulator's turns are also its LLM calls.
 * The reasoning states the reward basis and marks the checks τ² ran outside it (shown, but not counted).
 */
import type { TrajectoryInput } from "../ingest";
import type { ImportFile, ImportedRun, ImportProblem } from "./types";

type Json = Record<string, unknown>;
type Message = TrajectoryInput["conversation"][number];
type LlmCall = NonNullable<TrajectoryInput["llmCalls"]>[number];
const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string => (typeof v === "string" ? v : v === null || v === undefined ? "" : JSON.stringify(v));
const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** The files a τ² import reads: one results file, or a run directory (results.json + simulations/*.json). */
export const TAU2_FILES = /(^|\/)[^/]+\.json$/;

export function importTau2(files: ImportFile[], opts: { name: string }): ImportedRun {
  const problems: ImportProblem[] = [];
  const parsed = files.map((f) => ({ file: f, doc: parse(f, problems) })).filter((p): p is { file: ImportFile; doc: Json } => !!p.doc);
  const simulationFiles = parsed.filter((p) => /(^|\/)simulations\/[^/]+\.json$/.test(p.file.path));
  const results = parsed.find((p) => Array.isArray(p.doc.simulations)) ?? parsed.find((p) => /(^|\/)results\.json$/.test(p.file.path));
  if (!results) {
    if (problems.length === 0)
      problems.push({
        file: files[0]?.path ?? "(none)",
        message:
          'no τ²-bench results here: give the file `tau2 run --save-to` wrote (with a "simulations" list), or its run folder (results.json and simulations/)',
      });
    return { run: runOf({}, opts.name), steps: [], trajectories: [], problems };
  }
  const sims: { where: string; file: string; sim: Json }[] = Array.isArray(results.doc.simulations)
    ? results.doc.simulations.map((s, i) => ({ where: `simulations[${i}]`, file: results.file.path, sim: obj(s) }))
    : simulationFiles.map((p) => ({ where: p.file.path, file: p.file.path, sim: p.doc }));
  if (sims.length === 0)
    problems.push({ file: results.file.path, message: 'no simulations: neither a "simulations" list nor a simulations/ folder beside it' });
  const info = obj(results.doc.info);
  const tasks = new Map(list(results.doc.tasks).map((t) => [str(t.id), t]));
  const userModel = str(obj(info.user_info).llm) || "user simulator";
  const trajectories: TrajectoryInput[] = [];
  sims.forEach(({ where, file, sim }, i) => {
    const bad = (message: string) => problems.push({ file, message: where === file ? message : `${where}: ${message}` });
    if (typeof sim.task_id !== "string" && typeof sim.task_id !== "number") return bad("no task_id");
    const messages = list(sim.messages);
    if (messages.length === 0) return bad(Array.isArray(sim.ticks) ? "a voice simulation (audio ticks, no text messages)" : "no messages");
    const rewardInfo = obj(sim.reward_info);
    const reward = typeof rewardInfo.reward === "number" && Number.isFinite(rewardInfo.reward) ? rewardInfo.reward : null;
    const taskId = String(sim.task_id);
    const task = tasks.get(taskId);
    const { conversation, llmCalls, promptTokens, responseTokens } = conversationOf(messages, userModel);
    trajectories.push({
      id: str(sim.id) || `${taskId}:${str(sim.trial)}:${i}`,
      step: 0,
      split: "eval",
      group: taskId,
      taskId,
      ...(task ? { task } : {}),
      conversation,
      llmCalls,
      promptTokens,
      responseTokens,
      reward,
      rewardComponents: Object.fromEntries(
        Object.entries(obj(rewardInfo.reward_breakdown)).filter(([, v]) => typeof v === "number" && Number.isFinite(v)),
      ) as Record<string, number>,
      reasoning: checksSummary(rewardInfo),
      endReason: str(sim.termination_reason) || null,
      error: reward === null ? "τ²-bench recorded no reward for this simulation" : null,
    });
  });
  return { run: runOf(info, opts.name), steps: [], trajectories, problems };
}

function parse(file: ImportFile, problems: ImportProblem[]): Json | null {
  try {
    return obj(JSON.parse(file.text));
  } catch (err) {
    problems.push({ file: file.path, message: `not valid JSON (${(err as Error).message})` });
    return null;
  }
}

function runOf(info: Json, name: string): ImportedRun["run"] {
  const env = obj(info.environment_info);
  const user = obj(info.user_info);
  return {
    name,
    source: "tau2",
    environment: `tau2-${str(env.domain_name) || "unknown"}`,
    policyModel: str(obj(info.agent_info).llm) || "unknown",
    config: {
      importedFrom: "τ²-bench results",
      // The user simulator's long guidelines and the domain policy are τ²'s own text, not settings of this run.
      info: { ...info, user_info: { llm: user.llm, implementation: user.implementation } },
    },
  };
}

/** Messages as Rollout Lab stores them (cost and usage kept), the user simulator's turns as its LLM calls. */
function conversationOf(messages: Json[], userModel: string) {
  const names = new Map<string, string>();
  const llmCalls: LlmCall[] = [];
  let turn = 0;
  let promptTokens = 0;
  let responseTokens = 0;
  const conversation = messages.map((m): Message => {
    const role = m.role === "assistant" ? "assistant" : m.role === "tool" ? "tool" : m.role === "system" ? "system" : "user";
    const calls = list(m.tool_calls);
    for (const c of calls) names.set(str(c.id), str(c.name));
    const usage = obj(m.usage);
    if (role === "assistant") {
      promptTokens = Math.max(promptTokens, num(usage.prompt_tokens));
      responseTokens += num(usage.completion_tokens);
    }
    if (role === "user" && (m.cost !== undefined || m.usage !== undefined)) {
      llmCalls.push({
        role: "user_simulator",
        model: userModel,
        endpoint: "τ²-bench",
        messages: [],
        response: str(m.content),
        promptTokens: num(usage.prompt_tokens),
        completionTokens: num(usage.completion_tokens),
        costUsd: num(m.cost),
        turn,
        ...(typeof m.timestamp === "string" ? { startedAt: asUtc(m.timestamp) } : {}),
      });
    }
    const message: Message = {
      role,
      source: role === "assistant" ? "policy" : role === "tool" ? "tool" : role === "system" ? "system" : "user_simulator",
      content: str(m.content),
      turn,
      ...(calls.length
        ? { toolCalls: calls.map((c) => ({ id: str(c.id), name: str(c.name) || "unknown", arguments: obj(c.arguments) })) }
        : {}),
      ...(role === "tool" ? { toolCallId: str(m.id), name: names.get(str(m.id)) ?? "" } : {}),
      ...(role === "assistant" && usage.completion_tokens !== undefined ? { tokens: num(usage.completion_tokens) } : {}),
      ...(m.cost !== undefined && m.cost !== null ? { cost: m.cost } : {}),
      ...(m.usage !== undefined && m.usage !== null ? { usage: m.usage } : {}),
    };
    if (role === "assistant") turn++;
    return message;
  });
  return { conversation, llmCalls, promptTokens, responseTokens };
}

/** τ² writes naive timestamps (no zone); they are read as UTC. */
function asUtc(timestamp: string): string | undefined {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d{1,6})?$/.exec(timestamp);
  return m ? `${m[1]}${(m[2] ?? "").slice(0, 4)}Z` : undefined;
}

/** Each check τ² reports and the reward-basis component it feeds. */
const CHECKS: { field: string; basis: string; describe: (v: unknown) => string | null }[] = [
  {
    field: "db_check",
    basis: "DB",
    describe: (v) => ("db_match" in obj(v) ? `database ${obj(v).db_match ? "matches" : "differs from"} the expected state` : null),
  },
  { field: "env_assertions", basis: "ENV_ASSERTION", describe: (v) => tally(v, "met", "environment assertions met") },
  { field: "action_checks", basis: "ACTION", describe: (v) => tally(v, "action_match", "expected actions taken") },
  { field: "nl_assertions", basis: "NL_ASSERTION", describe: (v) => tally(v, "met", "natural-language assertions met") },
  { field: "communicate_checks", basis: "COMMUNICATE", describe: (v) => tally(v, "met", "required statements communicated") },
];

function tally(v: unknown, flag: string, what: string): string | null {
  const items = list(v);
  return items.length ? `${items.filter((a) => a[flag]).length}/${items.length} ${what}` : null;
}

/** τ²'s checks in words, with the reward basis: the inspector shows why a simulation scored what it did. */
function checksSummary(info: Json): string | null {
  const basis = Array.isArray(info.reward_basis) ? info.reward_basis.map(String) : null;
  const parts: string[] = basis ? [`Reward basis: ${basis.join(", ") || "none"}.`] : [];
  for (const check of CHECKS) {
    const said = check.describe(info[check.field]);
    if (!said) continue;
    const counted = !basis || basis.includes(check.basis);
    parts.push(`${said}${counted ? "" : " (outside the reward basis: not counted)"}.`);
  }
  const note = str(obj(info.info).note);
  if (note) parts.push(`τ²: ${note}.`);
  return parts.length ? parts.join(" ") : null;
}

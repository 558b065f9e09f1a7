/**
 * τ²-bench results: `tau2 run … --save-to <file>` writes one JSON document (tau2's Results model):
 *
 *   {"info": {"agent_info": {"llm"}, "user_info": {"llm"}, "environment_info": {"domain_name"}, "num_trials", …},
 *    "tasks": [...],
 *    "simulations": [{"id", "task_id", "trial", "termination_reason", "agent_cost", "user_cost",
 *                     "reward_info": {"reward", "reward_breakdown": {"DB": 1.0, …}, "db_check", "action_checks", …},
 *                     "messages": [{"role": "assistant"|"user"|"tool", "content", "tool_calls": [{"id","name","arguments"}],
 *                                   "usage", …}]}]}
 *
 * One run, evaluated (split "eval", step 0); the trials of one task form a group, as τ²'s pass^k reads them.
 */
import type { TrajectoryInput } from "../ingest";
import type { ImportFile, ImportedRun, ImportProblem } from "./types";

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string => (typeof v === "string" ? v : v === null || v === undefined ? "" : JSON.stringify(v));

export function importTau2(file: ImportFile, opts: { name: string }): ImportedRun {
  const problems: ImportProblem[] = [];
  let doc: Json;
  try {
    doc = obj(JSON.parse(file.text));
  } catch (err) {
    return {
      run: runOf({}, opts.name),
      steps: [],
      trajectories: [],
      problems: [{ file: file.path, message: `not valid JSON (${(err as Error).message})` }],
    };
  }
  const sims = Array.isArray(doc.simulations) ? doc.simulations : [];
  if (!Array.isArray(doc.simulations))
    problems.push({ file: file.path, message: 'no "simulations" array: is this a τ²-bench results file (tau2 run --save-to)?' });
  const trajectories: TrajectoryInput[] = [];
  sims.forEach((raw, i) => {
    const sim = obj(raw);
    const where = `simulations[${i}]`;
    if (typeof sim.task_id !== "string" && typeof sim.task_id !== "number") {
      problems.push({ file: file.path, message: `${where}: no task_id` });
      return;
    }
    const messages = Array.isArray(sim.messages) ? sim.messages.map(obj) : [];
    if (messages.length === 0) {
      problems.push({ file: file.path, message: `${where}: no messages` });
      return;
    }
    const info = obj(sim.reward_info);
    const reward = typeof info.reward === "number" && Number.isFinite(info.reward) ? info.reward : null;
    const components = Object.fromEntries(
      Object.entries(obj(info.reward_breakdown)).filter(([, v]) => typeof v === "number" && Number.isFinite(v)),
    ) as Record<string, number>;
    const taskId = String(sim.task_id);
    trajectories.push({
      id: str(sim.id) || `${taskId}:${str(sim.trial)}:${i}`,
      step: 0,
      split: "eval",
      group: taskId,
      taskId,
      conversation: conversationOf(messages),
      reward,
      rewardComponents: components,
      reasoning: checksSummary(info),
      endReason: str(sim.termination_reason) || null,
      error: reward === null ? "τ²-bench recorded no reward for this simulation" : null,
    });
  });
  return { run: runOf(obj(doc.info), opts.name), steps: [], trajectories, problems };
}

function runOf(info: Json, name: string): ImportedRun["run"] {
  const env = obj(info.environment_info);
  return {
    name,
    source: "tau2",
    environment: `tau2-${str(env.domain_name) || "unknown"}`,
    policyModel: str(obj(info.agent_info).llm) || "unknown",
    config: {
      importedFrom: "τ²-bench results",
      info: { ...info, user_info: { llm: obj(info.user_info).llm, implementation: obj(info.user_info).implementation } },
    },
  };
}

function conversationOf(messages: Json[]): TrajectoryInput["conversation"] {
  const names = new Map<string, string>();
  let turn = 0;
  return messages.map((m) => {
    const role = m.role === "assistant" ? "assistant" : m.role === "tool" ? "tool" : m.role === "system" ? "system" : "user";
    const calls = Array.isArray(m.tool_calls) ? m.tool_calls.map(obj) : [];
    for (const c of calls) names.set(str(c.id), str(c.name));
    const message: TrajectoryInput["conversation"][number] = {
      role,
      source: role === "assistant" ? "policy" : role === "tool" ? "tool" : role === "system" ? "system" : "user_simulator",
      content: str(m.content),
      turn,
      ...(calls.length
        ? { toolCalls: calls.map((c) => ({ id: str(c.id), name: str(c.name) || "unknown", arguments: obj(c.arguments) })) }
        : {}),
      ...(role === "tool" ? { toolCallId: str(m.id), name: names.get(str(m.id)) ?? "" } : {}),
    };
    if (role === "assistant") turn++;
    return message;
  });
}

/** τ²'s checks in words, so the inspector shows why a simulation scored what it did. */
function checksSummary(info: Json): string | null {
  const parts: string[] = [];
  const db = obj(info.db_check);
  if ("db_match" in db) parts.push(`database ${db.db_match ? "matches" : "differs from"} the expected state`);
  const actions = Array.isArray(info.action_checks) ? info.action_checks.map(obj) : [];
  if (actions.length) parts.push(`${actions.filter((a) => a.action_match).length}/${actions.length} expected actions taken`);
  const nl = Array.isArray(info.nl_assertions) ? info.nl_assertions.map(obj) : [];
  if (nl.length) parts.push(`${nl.filter((a) => a.met).length}/${nl.length} natural-language assertions met`);
  const comm = Array.isArray(info.communicate_checks) ? info.communicate_checks.map(obj) : [];
  if (comm.length) parts.push(`${comm.filter((a) => a.met).length}/${comm.length} required statements communicated`);
  return parts.length ? `${parts.join("; ")}.` : null;
}

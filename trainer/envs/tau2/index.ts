/**
 * τ²-bench (Barres et al., 2025; sierra-research/tau2-bench) as a Rollout Lab environment: the policy is the
 * domain's agent, an LLM (or the offline rule-based user) plays the user, tools run against a private copy of the
 * database, and the reward is τ²'s product of DB / COMMUNICATE / ACTION / ENV_ASSERTION / NL_ASSERTION checks.
 * Domains: retail and mock (domains.ts; a folder's domain is recognised from its db.json's tables).
 *
 * Without a dataset path the builtin "Harbor Goods" mini-store (written for this project) runs out of the box;
 * `loadTasks(dir)` imports a real τ² domain folder (tasks.json, db.json, policy.md, split_tasks.json). Tasks only
 * reference their database (by folder), so a worker that never called loadTasks loads and caches it on demand.
 */
import { existsSync, readFileSync } from "node:fs";
import { parseJsonKeepingKeyOrder } from "../../../lib/ordered-json";
import { formatToolCallText } from "../parse/tool-prompt";
import { scriptedDemonstration } from "../scripted-demonstration";
import path from "node:path";
import { DatasetError, type Demonstration, type Environment, type Task } from "../types";
import type { Tau2DomainTools } from "./domain";
import { loadDomainDb, TAU2_DOMAINS } from "./domains";
import { retailDomain } from "./retail-domain";
import { loadTau2Domain, parseTau2Task, type Tau2TaskData } from "./tau2-format";
import { createTau2Episode, replayGoldActions } from "./tau2-episode";
import { Tau2RetailConfigSchema, type Tau2RetailOptions } from "../../../lib/environment-options";

interface DomainBundle {
  /** The τ² domain's tools (retail, airline, mock), recognised from the database's tables. */
  tools: Tau2DomainTools;
  db: unknown;
  policy: string;
}

const BUILTIN_FILE = new URL("./builtin-domain.json", import.meta.url);

/** Keeps db.json's key order: τ² lists a product's variants to the agent in that order, not JavaScript's. */
function parseDbJson(text: string, file: string): unknown {
  try {
    return parseJsonKeepingKeyOrder(text);
  } catch (e) {
    throw new DatasetError(file, null, `not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

function readBuiltin(): { bundle: DomainBundle; tasks: Task<Tau2TaskData>[] } {
  const file = BUILTIN_FILE.pathname;
  const raw = parseDbJson(readFileSync(BUILTIN_FILE, "utf8"), file) as { policy: string; db: unknown; tasks: unknown[] };
  const db = retailDomain.validateDb(raw.db, file);
  const tasks = raw.tasks.map((t, i) => {
    const data = parseTau2Task(t, file, i, { kind: "builtin" });
    // The builtin tasks double as a format-warmup set: short and single-request.
    return { id: `tau2-builtin-${data.taskId}`, split: "train", tags: ["tau2", "retail", "builtin"], data };
  });
  return { bundle: { tools: retailDomain as Tau2DomainTools, db, policy: raw.policy }, tasks };
}

function tagsFor(data: Tau2TaskData, domain: Tau2DomainTools): string[] {
  const tags = ["tau2", domain.name];
  const writes = new Set(data.actions.map((a) => a.name).filter((n) => domain.isWriteTool(n)));
  for (const w of writes) tags.push(`action:${w}`);
  if (writes.size === 0) tags.push("read_only");
  if (data.communicateInfo.length > 0) tags.push("communicate");
  return tags;
}

export function createTau2RetailEnvironment(config: Tau2RetailOptions | Record<string, unknown> = {}): Environment<Tau2TaskData> {
  const parsed = Tau2RetailConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new Error(
      `Invalid tau2-retail environment config: ${parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; ")}`,
    );
  }
  const opts = parsed.data;
  const strategy = opts.userStrategy;
  const maxTurns = opts.maxTurns;
  const builtin = readBuiltin();
  const loaded = new Map<string, DomainBundle>();
  const expectedCache = new Map<string, unknown>();

  const bundleKey = (src: Tau2TaskData["domainSource"]) => (src.kind === "builtin" ? "builtin" : src.dir);

  /**
   * createEpisode is synchronous, so a worker that never called loadTasks reads the task's database here, once
   * (~3 MB, tens of milliseconds), and keeps it for every later episode of that domain.
   */
  function bundleFor(src: Tau2TaskData["domainSource"]): DomainBundle {
    if (src.kind === "builtin") return builtin.bundle;
    let b = loaded.get(src.dir);
    if (!b) {
      const dbFile = path.join(src.dir, "db.json");
      let text: string;
      try {
        text = readFileSync(dbFile, "utf8");
      } catch (e) {
        throw new DatasetError(dbFile, null, `cannot read the task's database (${e instanceof Error ? e.message : String(e)})`);
      }
      const policyFile = path.join(src.dir, "policy.md");
      const policy = existsSync(policyFile) ? readFileSync(policyFile, "utf8") : builtin.bundle.policy;
      const { tools, db } = loadDomainDb(parseDbJson(text, dbFile), dbFile);
      b = { tools, db, policy };
      loaded.set(src.dir, b);
    }
    return b;
  }

  const env: Environment<Tau2TaskData> = {
    name: "tau2-retail",
    description:
      "τ²-bench (retail builtin; τ² retail, airline or mock folders): the policy is the domain's agent with its tools over a " +
      "private database copy; a simulated user (llm/react/verify/reflection strategies, offline rule-based) brings a " +
      "request; reward = product of DB / COMMUNICATE / ACTION / ENV_ASSERTION / NL_ASSERTION checks in the task's basis.",
    builtinTasks: () => builtin.tasks,
    async loadTasks(dir: string) {
      const domain = await loadTau2Domain(dir);
      // Tasks this environment cannot play are left out, and said so (the worker's log shows it).
      for (const s of domain.skipped) console.warn(`[tau2] left out task ${s.id}: ${s.reason}`);
      const key = path.resolve(dir);
      const tools = TAU2_DOMAINS.find((d) => d.name === domain.domain)!.tools;
      loaded.set(key, { tools, db: domain.db, policy: domain.policy || builtin.bundle.policy });
      // Retail task ids keep their old prefix (runs and links made before other domains existed refer to them).
      const prefix = domain.domain === "retail" ? "tau2-retail" : `tau2-${domain.domain}`;
      return domain.tasks.map((t) => ({ id: `${prefix}-${t.id}`, split: t.split, tags: tagsFor(t.data, tools), data: t.data }));
    },
    // Gold play for the SFT warm-start: τ²'s gold actions as tool calls in order, then a reply carrying the
    // information the task requires the agent to communicate.
    async demonstrations(tasks) {
      const played = await Promise.all(
        tasks.map((t) => {
          const script = [
            ...t.data.actions.map((a) => formatToolCallText(a.name, a.arguments, opts.toolStyle)),
            t.data.communicateInfo.length
              ? `Done. ${t.data.communicateInfo.join(", ")}.`
              : "Done. Is there anything else I can help you with?",
          ];
          return scriptedDemonstration(env, t, (turn) => script[turn] ?? null, { maxTurns: script.length });
        }),
      );
      return played.filter((d): d is Demonstration => d !== null);
    },
    createEpisode(task, ctx) {
      const bundle = bundleFor(task.data.domainSource);
      const key = `${bundleKey(task.data.domainSource)}::${task.data.taskId}`;
      return createTau2Episode(task.data, ctx, {
        domain: bundle.tools,
        initialDb: bundle.db,
        policy: bundle.policy,
        strategy,
        toolStyle: opts.toolStyle,
        maxTurns,
        expected: () => {
          let e = expectedCache.get(key);
          if (!e) expectedCache.set(key, (e = replayGoldActions(bundle.tools, bundle.db, task.data)));
          return e;
        },
      });
    },
  };
  return env;
}

export type { Tau2TaskData } from "./tau2-format";
export type { UserStrategy } from "./user-prompts";
export { Tau2RetailConfigSchema, type Tau2RetailOptions };
export { loadTau2Domain } from "./tau2-format";

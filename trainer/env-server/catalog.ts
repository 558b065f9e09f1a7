/**
 * What a session is built from: the environment (registry name + options, validated by the environment itself as in
 * a run config), its tasks (built-in, or a dataset resolved inside the operator's data roots exactly as a run's
 * dataset.path is), and the LLM client serving its simulator and judge roles (the run config's `llm` section,
 * checked against the same endpoint policy as run configs). All three are cached: sessions of one trainer share
 * them, and an environment holds no per-episode state.
 */
import { checkLlmEndpoints, llmEndpointPolicyFromEnv } from "../../lib/llm-endpoint-policy";
import { DataPathError, resolveDataPath } from "../data-roots";
import { getEnvironment, listEnvironments } from "../envs/registry";
import { DatasetError, type Environment, type Task } from "../envs/types";
import { LlmClient } from "../llm/client";
import { llmConfigFromRunConfig } from "../llm/run-llm-config";
import { RequestError, WS_ERROR, sessionLlmSchema, type ResetData } from "./protocol";

/** A Map that forgets its least recently used entry past `limit`. */
class LruCache<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly limit: number) {}
  getOrCreate(key: string, create: () => V): V {
    const hit = this.map.get(key);
    if (hit !== undefined) {
      this.map.delete(key);
      this.map.set(key, hit);
      return hit;
    }
    const value = create();
    this.map.set(key, value);
    if (this.map.size > this.limit) this.map.delete(this.map.keys().next().value as string);
    return value;
  }
  delete(key: string): void {
    this.map.delete(key);
  }
}

export interface SessionParts {
  env: Environment;
  task: Task;
  llm: LlmClient;
}

export class EnvironmentCatalog {
  private readonly names = new Set(listEnvironments());
  private readonly environments = new LruCache<Environment>(64);
  private readonly tasks = new LruCache<Promise<Task[]>>(16);
  private readonly llmClients = new LruCache<LlmClient>(64);
  /** Every session without endpoints shares one offline client (its concurrency cap is per client). */
  private readonly offline = new LlmClient(llmConfigFromRunConfig(sessionLlmSchema.parse({})));

  /** This server's own port, once it listens: an endpoint there is refused like the web port (own listeners). */
  ownPort: number | null = null;

  constructor(private readonly dataRoots: string[]) {}

  /** The environment the endpoint policy and the LLM client read (this host's, plus the server's own port). */
  private policyEnv(): Record<string, string | undefined> {
    return this.ownPort === null ? process.env : { ...process.env, ROLLOUT_LAB_ENVS_PORT: String(this.ownPort) };
  }

  list(): string[] {
    return [...this.names].sort();
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  /** The environment's one-line description (with its default options). */
  describe(name: string): string {
    return this.environment(name, {}).description;
  }

  /** The environment, its chosen task and the LLM client for one episode; RequestError on anything bad. */
  async partsFor(name: string, data: ResetData, seed: number): Promise<SessionParts> {
    const env = this.environment(name, data.options ?? {});
    const tasks = await this.taskList(env, name, data.options ?? {}, data.dataset);
    return { env, task: chooseTask(tasks, data, seed, name), llm: this.llmFor(data.llm) };
  }

  private environment(name: string, options: Record<string, unknown>): Environment {
    return this.environments.getOrCreate(`${name}\0${JSON.stringify(options)}`, () => {
      try {
        return getEnvironment(name, options);
      } catch (err) {
        throw new RequestError(422, WS_ERROR.validation, `options: ${(err as Error).message}`, "options");
      }
    });
  }

  private async taskList(env: Environment, name: string, options: Record<string, unknown>, dataset: string | undefined): Promise<Task[]> {
    const load = async (): Promise<Task[]> => {
      if (!dataset) return env.builtinTasks();
      if (!env.loadTasks)
        throw new RequestError(
          422,
          WS_ERROR.validation,
          `dataset: environment "${name}" has no dataset importer; omit dataset to play its built-in tasks.`,
          "dataset",
        );
      try {
        return await env.loadTasks(await resolveDataPath("dataset", dataset, this.dataRoots));
      } catch (err) {
        if (err instanceof DataPathError || err instanceof DatasetError)
          throw new RequestError(422, WS_ERROR.validation, `dataset: ${err.message}`, "dataset");
        throw err;
      }
    };
    const key = `${name}\0${JSON.stringify(options)}\0${dataset ?? ""}`;
    const pending = this.tasks.getOrCreate(key, load);
    try {
      return await pending;
    } catch (err) {
      // A failed load is not cached: the operator may fix the file and the client retry.
      this.tasks.delete(key);
      throw err;
    }
  }

  private llmFor(raw: ResetData["llm"]): LlmClient {
    if (!raw || (!raw.userSimulator && !raw.toolSimulator && !raw.judge)) return this.offline;
    const env = this.policyEnv();
    const problems = checkLlmEndpoints(raw, llmEndpointPolicyFromEnv(env));
    if (problems.length) {
      const field = problems[0].path.join(".");
      throw new RequestError(422, WS_ERROR.validation, `${field}: ${problems[0].message}`, field);
    }
    return this.llmClients.getOrCreate(JSON.stringify(raw), () => {
      try {
        return new LlmClient(llmConfigFromRunConfig(raw), { env });
      } catch (err) {
        // The client re-checks the policy and reads the key variable on this host: a missing key is the caller's fix.
        throw new RequestError(422, WS_ERROR.validation, `llm: ${(err as Error).message}`, "llm");
      }
    });
  }
}

/** `task_id` if given (404 naming it when unknown), else the task at `seed` among the split's tasks. */
export function chooseTask(tasks: Task[], data: Pick<ResetData, "task_id" | "split">, seed: number, envName: string): Task {
  const pool = data.split ? tasks.filter((t) => t.split === data.split) : tasks;
  if (data.task_id !== undefined) {
    const task = pool.find((t) => t.id === data.task_id);
    if (task) return task;
    const where = data.split ? ` in split "${data.split}"` : "";
    const examples = pool
      .slice(0, 5)
      .map((t) => t.id)
      .join(", ");
    throw new RequestError(
      404,
      WS_ERROR.validation,
      `task_id: environment "${envName}" has no task "${data.task_id}"${where}; its tasks include ${examples || "none"}.`,
      "task_id",
    );
  }
  if (pool.length === 0) {
    const splits = [...new Set(tasks.map((t) => t.split))].join(", ");
    throw new RequestError(
      404,
      WS_ERROR.validation,
      `split: environment "${envName}" has no task in split "${data.split}"; its splits are ${splits || "none"}.`,
      "split",
    );
  }
  return pool[seed % pool.length];
}

/**
 * What the launcher writes into a run's folder and starts for an outside engine: the engine's config (TRL's
 * GRPOConfig keywords as JSON; verl's and SkyRL's CLI overrides inside a small shell script) and the command. The
 * adapters (examples/*.py, clients/python) are put on PYTHONPATH from Rollout Lab's checkout. A pure function, so
 * tests can check every key against the engines' sources (lib/engine-mapping.test.ts) and the Slurm launcher can
 * render the same script.
 *
 * Secrets never appear here: the run-scoped token is added to the process environment by the launcher only.
 */
import type { RunConfig } from "./run-config";
import { mapRunToEngine, type EngineMapping } from "./engine-mapping";
import type { OutsideEngine } from "./engine-config";
import { shellQuote } from "./slurm-script";

export interface EngineLaunchSite {
  /** Rollout Lab's checkout on the machine that runs the engine (examples/ and clients/python/ under it). */
  checkout: string;
  /** The Python that has the engine installed. */
  python: string;
  /** The environment server's base URL as the engine's machine reaches it, e.g. http://10.0.0.5:3001. */
  envServerUrl: string;
  /** Rollout Lab's web server (the Python logger's URL), as the engine's machine reaches it. */
  webUrl: string;
  /** Dataset prompts (seeds) the adapters prepare from the environment server. */
  seeds?: number;
}

export interface EngineLaunch {
  engine: OutsideEngine;
  mapping: EngineMapping;
  /** Files written into the run's folder (the working directory of the process). */
  files: Record<string, string>;
  argv: string[];
  /** Environment of the process, the token excepted. */
  env: Record<string, string>;
}

/** `key=value` as Hydra / SkyRL's CLI reads it: strings as they are, lists in brackets, null as null. */
function override(key: string, value: unknown): string {
  const v = value === null ? "null" : Array.isArray(value) ? `[${value.join(",")}]` : String(value);
  return `${key}=${v}`;
}

function script(lines: string[]): string {
  return [
    "#!/usr/bin/env bash",
    "# Rendered by Rollout Lab from the run's config (docs/engines.md). The token comes from the environment.",
    "set -euo pipefail",
    ...lines,
    "",
  ].join("\n");
}

function command(argv: string[]): string {
  return argv.map(shellQuote).join(" \\\n  ");
}

export function renderEngineLaunch(run: { id: string; name: string }, c: RunConfig, site: EngineLaunchSite): EngineLaunch {
  const engine = c.execution.engine;
  if (engine === "builtin") throw new Error("renderEngineLaunch: the built-in trainer has no outside engine to render");
  const mapping = mapRunToEngine(c, engine);
  if (mapping.refused.length > 0)
    throw new Error(
      `the run's config cannot run on ${engine}: ${mapping.refused.map((r) => `${r.path.join(".")}: ${r.message}`).join("; ")}`,
    );
  const examples = `${site.checkout.replace(/\/+$/, "")}/examples`;
  const clients = `${site.checkout.replace(/\/+$/, "")}/clients/python`;
  const seeds = site.seeds ?? Math.max(c.grpo.groupsPerStep, 64);
  const env: Record<string, string> = {
    ROLLOUT_LAB_ENV_URL: `${site.envServerUrl.replace(/\/+$/, "")}/envs/${c.environment}`,
    ROLLOUT_LAB_URL: site.webUrl,
    ROLLOUT_LAB_RUN_ID: run.id,
    ROLLOUT_LAB_EXPERIMENT: run.name,
    ROLLOUT_LAB_MAX_TURNS: String(c.rollout.maxTurns),
    ROLLOUT_LAB_SEEDS: String(seeds),
    PYTHONPATH: `${examples}:${clients}`,
    PYTHONUNBUFFERED: "1",
  };
  const settings = Object.fromEntries(Object.entries(mapping.settings).filter(([, v]) => v !== null));

  if (engine === "trl") {
    const config = {
      model: mapping.model,
      lora: mapping.lora,
      chat_template_kwargs: c.policy.chatTemplateKwargs,
      grpo_config: { ...settings, output_dir: "outputs", report_to: "none", chat_template_kwargs: c.policy.chatTemplateKwargs },
    };
    return {
      engine,
      mapping,
      files: { "trl-config.json": JSON.stringify(config, null, 2) + "\n" },
      argv: [site.python, `${examples}/trl_grpo_rollout_lab.py`, "--config", "trl-config.json"],
      env,
    };
  }

  if (engine === "verl") {
    const overrides = {
      ...settings,
      "data.train_files": "data/train.parquet",
      "data.val_files": "data/train.parquet",
      "actor_rollout_ref.rollout.multi_turn.tool_config_path": "data/tool_config.yaml",
      "actor_rollout_ref.rollout.multi_turn.interaction_config_path": "data/interaction_config.yaml",
      "actor_rollout_ref.rollout.agent.agent_loop_config_path": "data/agent_loop_config.yaml",
      "custom_reward_function.path": `${examples}/verl_rollout_lab.py`,
      "custom_reward_function.name": "compute_score",
      "trainer.project_name": "rollout-lab",
      "trainer.experiment_name": run.id,
      // verl's file logger writes {"step", "data"} lines; rollout_lab_forward_metrics.py sends them to the run
      "trainer.logger": "[console,file]",
    };
    const prepare = [site.python, `${examples}/verl_rollout_lab.py`, "--env-url", "${ROLLOUT_LAB_ENV_URL}", "--out", "data"];
    const train = [site.python, "-m", "verl.trainer.main_ppo", ...Object.entries(overrides).map(([k, v]) => override(k, v))];
    return {
      engine,
      mapping,
      files: {
        "run-verl.sh": script([
          // absolute, as verl's Ray workers read it too (the adapter's agent loop takes the step from it)
          'export VERL_FILE_LOGGER_PATH="$PWD/verl-metrics.jsonl"',
          `${command([site.python, `${clients}/rollout_lab_forward_metrics.py`])} "$VERL_FILE_LOGGER_PATH" --follow-pid $$ &`,
          `${command(prepare.slice(0, 3))} "$ROLLOUT_LAB_ENV_URL" --out data --seeds "$ROLLOUT_LAB_SEEDS" --experiment "$ROLLOUT_LAB_EXPERIMENT"`,
          command(train),
        ]),
      },
      argv: ["bash", "run-verl.sh"],
      env,
    };
  }

  const overrides = {
    ...settings,
    "data.train_data": "['data/train.parquet']",
    "data.val_data": "['data/train.parquet']",
    "trainer.project_name": "rollout-lab",
    "trainer.run_name": run.id,
    "trainer.logger": "console",
  };
  const train = [site.python, "-m", "skyrl_rollout_lab_env", ...Object.entries(overrides).map(([k, v]) => override(k, v))];
  return {
    engine,
    mapping,
    files: {
      "run-skyrl.sh": script([
        `${command([site.python, "-m", "skyrl_rollout_lab_env", "--prepare"])} "$ROLLOUT_LAB_ENV_URL" data "$ROLLOUT_LAB_SEEDS"`,
        command(train),
      ]),
    },
    argv: ["bash", "run-skyrl.sh"],
    env,
  };
}

/**
 * Contract tests against the engines' own source: the facts in tests/fixtures/engines/<engine>/facts.json were
 * extracted from TRL, verl and SkyRL checkouts (scripts/engine-facts.py; commit and licence inside). Every key a
 * rendered config sets must be one the engine declares, and every class, method and signature the adapters
 * (examples/*.py) rely on must be there — a renamed key or method fails here, not on a GPU machine.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { parseRunConfig } from "./run-config";
import { renderEngineLaunch } from "./engine-render";
import type { OutsideEngine } from "./engine-config";
import { configIssues } from "./testing/config-issues";

const ROOT = path.join(import.meta.dirname, "..");
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const facts = (engine: OutsideEngine): any =>
  JSON.parse(readFileSync(path.join(ROOT, "tests/fixtures/engines", engine, "facts.json"), "utf8"));
const adapter = (file: string) => readFileSync(path.join(ROOT, "examples", file), "utf8");
const site = {
  checkout: "/opt/rollout-lab",
  python: "/opt/venv/bin/python",
  envServerUrl: "http://10.0.0.5:3001",
  webUrl: "http://10.0.0.5:3000",
};

/** A run config an outside engine accepts: a Hub model, and (TRL) no dual-clip. */
function engineRun(engine: OutsideEngine, extra: Record<string, unknown> = {}) {
  return parseRunConfig({
    environment: "tau2-retail",
    execution: { engine },
    policy: { model: "Qwen/Qwen3-1.7B", lora: { rank: 16, alpha: 32 } },
    grpo: {
      groupSize: 8,
      learningRate: 1e-6,
      klCoef: 0.001,
      clipLow: 0.2,
      clipHigh: 0.28,
      steps: 100,
      ...(engine === "trl" ? { dualClip: null } : {}),
    },
    rollout: { maxTurns: 12, maxNewTokens: 512 },
    ...extra,
  });
}

const issues = configIssues;

/** Whether a rendered override's text fits the type the engine declares for its key (others are not checked). */
function fitsType(declared: string | undefined, value: string): boolean {
  const t = (declared ?? "").replace(/^Optional\[(.*)\]$/, "$1");
  if (t === "bool") return value === "true" || value === "false";
  if (t === "int") return /^-?\d+$/.test(value);
  if (t === "float") return /^-?\d+(\.\d+)?(e-?\d+)?$/.test(value);
  return true;
}

/** The key=value overrides of a rendered shell script (verl, SkyRL). */
function overrides(script: string): Record<string, string> {
  return Object.fromEntries([...script.matchAll(/'([a-z_][A-Za-z0-9_.]*)=([^']*)'/g)].map((m) => [m[1], m[2]]));
}

test("TRL: the rendered GRPOConfig keywords all exist in TRL's GRPOConfig (or its base, as TRL's own tests use them)", () => {
  const launch = renderEngineLaunch({ id: "run1", name: "my run" }, engineRun("trl"), site);
  const config = JSON.parse(launch.files["trl-config.json"]);
  const known = new Set([...facts("trl").config_keys, ...facts("trl").config_keys_used_in_tests]);
  assert.deepEqual(
    Object.keys(config.grpo_config).filter((k) => !known.has(k)),
    [],
  );
  assert.equal(config.grpo_config.num_generations, 8, "group size → num_generations");
  assert.equal(config.grpo_config.learning_rate, 1e-6);
  assert.equal(config.grpo_config.beta, 0.001, "KL coefficient → beta");
  assert.equal(config.grpo_config.epsilon_high, 0.28);
  assert.equal(config.grpo_config.max_steps, 100);
  assert.deepEqual(config.lora, { r: 16, lora_alpha: 32 });
  assert.equal(config.model, "Qwen/Qwen3-1.7B");
  assert.deepEqual(launch.argv.slice(1), ["/opt/rollout-lab/examples/trl_grpo_rollout_lab.py", "--config", "trl-config.json"]);
  assert.equal(launch.env.ROLLOUT_LAB_ENV_URL, "http://10.0.0.5:3001/envs/tau2-retail");
  assert.ok(!JSON.stringify(launch).includes("TOKEN"), "no token in what is rendered");
});

test("verl: every override is a key of verl's generated ppo_trainer config", () => {
  const launch = renderEngineLaunch({ id: "run1", name: "my run" }, engineRun("verl"), site);
  const o = overrides(launch.files["run-verl.sh"]);
  const known = new Set(facts("verl").config_keys);
  assert.deepEqual(
    Object.keys(o).filter((k) => !known.has(k)),
    [],
  );
  const kinds = facts("verl").config_kinds as Record<string, string>;
  assert.deepEqual(
    Object.entries(o).filter(([k, v]) => !fitsType(kinds[k], v)),
    [],
    "each value has the type of verl's default",
  );
  assert.equal(o["actor_rollout_ref.rollout.n"], "8", "group size → rollout.n");
  assert.equal(o["actor_rollout_ref.actor.kl_loss_type"], "k3");
  assert.equal(o["actor_rollout_ref.model.lora_rank"], "16");
  assert.equal(o["custom_reward_function.name"], "compute_score", "the reward path verl calls");
  const required = (facts("verl").required_keys as string[]).filter((k) => !k.startsWith("reward_model."));
  assert.ok(required.length > 0);
  assert.deepEqual(
    required.filter((k) => !(k in o)),
    [],
    "verl's mandatory (???) keys are set",
  );
  assert.ok(facts("verl").custom_reward_function_keys.includes("path") && facts("verl").custom_reward_function_keys.includes("name"));
  assert.match(launch.files["run-verl.sh"], /verl\.trainer\.main_ppo/);
});

test("SkyRL: every override is a field of SkyRL's SkyRLTrainConfig dataclasses", () => {
  const launch = renderEngineLaunch({ id: "run1", name: "my run" }, engineRun("skyrl"), site);
  const o = overrides(launch.files["run-skyrl.sh"]);
  const known = new Set(facts("skyrl").config_keys);
  assert.deepEqual(
    Object.keys(o).filter((k) => !known.has(k)),
    [],
  );
  const types = facts("skyrl").config_types as Record<string, string>;
  assert.deepEqual(
    Object.entries(o).filter(([k, v]) => !fitsType(types[k], v)),
    [],
    "each value has the type SkyRL's dataclass declares",
  );
  assert.equal(o["generator.n_samples_per_prompt"], "8", "group size → n_samples_per_prompt");
  assert.equal(o["generator.sampling_params.max_generate_length"], "512", "SkyRL's limit is per turn, like Rollout Lab's");
  assert.equal(o["trainer.algorithm.policy_loss_type"], "dual_clip");
});

test("settings an engine cannot express are refused at creation, naming the field and the fix", () => {
  const trl = issues({
    execution: { engine: "trl" },
    policy: { model: "tiny" },
    grpo: { klEstimator: "k1", lossAggregation: "seq-mean-token-sum" },
  });
  assert.match(trl["policy.model"], /built-in size.*Hugging Face/);
  assert.match(trl["grpo.dualClip"], /set grpo.dualClip to null/);
  assert.match(trl["grpo.klEstimator"], /k3 only/);
  assert.match(trl["grpo.lossAggregation"], /TRL has no "seq-mean-token-sum"/);
  const split = issues({
    execution: { engine: "trl" },
    policy: { model: "Qwen/Qwen3-1.7B" },
    grpo: { dualClip: null, groupsPerStep: 3, groupSize: 4, minibatchSize: 8 },
  });
  assert.match(split["grpo.minibatchSize"], /12 trajectories .* batches of 8; choose a divisor of 12/);
  const verl = issues({
    execution: { engine: "verl" },
    policy: { model: "Qwen/Qwen3-1.7B" },
    grpo: { dualClip: null, advantageEstimator: "art", dynamicSampling: true },
  });
  assert.match(verl["grpo.dualClip"], /always applies dual-clip/);
  assert.match(verl["grpo.advantageEstimator"], /"art" has no verl setting/);
  assert.match(verl["grpo.dynamicSampling"], /set grpo.dynamicSampling to false/);
  const skyrl = issues({ execution: { engine: "skyrl" }, policy: { model: "Qwen/Qwen3-1.7B" }, grpo: { klEstimator: "k3+" } });
  assert.match(skyrl["grpo.klEstimator"], /"k3\+" has no SkyRL setting/);
  const fractional = issues({ execution: { engine: "skyrl" }, policy: { model: "Qwen/Qwen3-1.7B", lora: { rank: 8, alpha: 0.5 } } });
  assert.match(fractional["policy.lora.alpha"], /whole number/);
  assert.deepEqual(issues({ execution: { engine: "builtin" } }), {}, "the built-in trainer is unaffected");
  assert.match(issues({ execution: { engine: "jax" } })["execution.engine"], /builtin|trl|verl|skyrl/);
});

test("the adapters use only names the engines define, with the signatures they call", () => {
  const verl = facts("verl");
  const interaction = verl.files["verl/interactions/base.py"].BaseInteraction.methods;
  assert.match(interaction.start_interaction, /start_interaction\(self, instance_id, \*\*kwargs\)/);
  assert.match(interaction.generate_response, /generate_response\(self, instance_id, messages, \*\*kwargs\)/);
  assert.equal(verl.files["verl/tools/base_tool.py"].BaseTool.methods.__init__, "__init__(self, config, tool_schema)");
  assert.equal(verl.files["verl/tools/base_tool.py"].BaseTool.methods.execute, "async execute(self, instance_id, parameters, **kwargs)");
  assert.equal(verl.files["verl/experimental/agent_loop/agent_loop.py"].register, "register(agent_name)");
  assert.match(
    verl.files["verl/experimental/agent_loop/tool_agent_loop.py"].ToolAgentLoop.methods.run,
    /run\(self, sampling_params, \*\*kwargs\)/,
  );
  assert.deepEqual(verl.compute_score_kwargs, ["data_source", "extra_info", "ground_truth", "solution_str"]);
  assert.ok(verl.extra_info_merges_tool_extra_fields, "verl's reward manager merges the agent loop's extra fields into extra_info");
  // Why the adapter closes sessions itself: ToolAgentLoop calls start_interaction and generate_response, never these.
  assert.ok(verl.tool_agent_loop_calls.includes("start_interaction") && verl.tool_agent_loop_calls.includes("generate_response"));
  assert.ok(!verl.tool_agent_loop_calls.includes("finalize_interaction") && !verl.tool_agent_loop_calls.includes("calculate_score"));
  assert.deepEqual(verl.tool_schema.OpenAIFunctionPropertySchema, ["type", "description", "enum"], "why array items need keeping");
  const verlPy = adapter("verl_rollout_lab.py");
  for (const name of [
    "BaseInteraction",
    "BaseTool",
    "ToolResponse",
    "ToolAgentLoop",
    "register",
    "start_interaction",
    "generate_response",
    "finalize_interaction",
    "def compute_score(data_source, solution_str, ground_truth, extra_info",
  ])
    assert.ok(verlPy.includes(name), `verl adapter uses ${name}`);

  const skyrl = facts("skyrl");
  const env = skyrl.files["skyrl-gym/skyrl_gym/envs/base_text_env.py"];
  assert.equal(env.BaseTextEnv.methods.init, "init(self, prompt)");
  assert.equal(env.BaseTextEnv.methods.step, "step(self, action)");
  assert.equal(env.BaseTextEnv.methods.close, "close(self)");
  assert.deepEqual(env.BaseTextEnvStepOutput.fields, ["observations", "reward", "done", "metadata", "postprocessed_action"]);
  assert.equal(skyrl.files["skyrl-gym/skyrl_gym/envs/registration.py"].register, "register(id, entry_point, kwargs)");
  assert.deepEqual(skyrl.generator, { sums_step_rewards: true, close_after_exception: false, custom_env_config_by_getattr: true });
  assert.equal(skyrl.entrypoint.BasePPOExp, "run(self)");
  assert.equal(skyrl.entrypoint["BasePPOExp.get_generator"], "get_generator(self, cfg, tokenizer, inference_engine_client)");
  assert.ok(skyrl.generator_input.GeneratorInput.includes("batch_metadata") && skyrl.generator_input.GeneratorInput.includes("env_extras"));
  assert.ok(skyrl.generator_input.BatchMetadata.includes("global_step"), "where the adapter takes SkyRL's step from");
  const skyPy = adapter("skyrl_rollout_lab_env.py");
  for (const name of [
    "BaseTextEnv",
    "BaseTextEnvStepOutput",
    "def init(self, prompt)",
    "def step(self, action)",
    "def close(self)",
    "register(id=",
    "BasePPOExp",
    "from_cli_overrides",
  ])
    assert.ok(skyPy.includes(name), `SkyRL adapter uses ${name}`);

  const trl = facts("trl");
  const init = trl.files["trl/trainer/grpo_trainer.py"]["GRPOTrainer.__init__"];
  for (const p of ["model", "args", "train_dataset", "callbacks", "peft_config", "environment_factory"])
    assert.match(init, new RegExp(`\\b${p}\\b`));
  assert.deepEqual(trl.environment_factory, { not_tools: ["reset", "get_reward"], private_prefix: "_", none_reward_masked: true });
  const trlPy = adapter("trl_grpo_rollout_lab.py");
  for (const name of ["def reset(self, **kwargs)", "def get_reward(self)", "environment_factory=", "peft_config=", "GRPOConfig(**"])
    assert.ok(trlPy.includes(name), `TRL adapter uses ${name}`);
});

test("the rendered entry scripts are valid bash and start files that exist in the checkout", () => {
  const here = { ...site, checkout: ROOT };
  for (const engine of ["verl", "skyrl"] as const) {
    const launch = renderEngineLaunch({ id: "run1", name: "it's a run" }, engineRun(engine), here);
    const [file, text] = Object.entries(launch.files)[0];
    const check = spawnSync("bash", ["-n"], { input: text, encoding: "utf8" });
    assert.equal(check.status, 0, `${file}: ${check.stderr}`);
    for (const m of text.matchAll(/'(\/[^']+\.py)'/g)) assert.ok(existsSync(m[1]), `${file} names ${m[1]}`);
    assert.ok(text.includes(engine === "verl" ? "verl_rollout_lab.py" : "skyrl_rollout_lab_env"));
  }
  const trl = renderEngineLaunch({ id: "run1", name: "r" }, engineRun("trl"), here);
  assert.ok(existsSync(trl.argv[1]), trl.argv[1]);
  for (const dir of trl.env.PYTHONPATH.split(":")) assert.ok(existsSync(dir), dir);
});

test("every vendored fact file names its source, commit and Apache-2.0 licence", () => {
  for (const engine of ["trl", "verl", "skyrl"] as const) {
    const f = facts(engine);
    assert.match(f.commit, /^[0-9a-f]{40}$/);
    assert.equal(f.licence, "Apache-2.0");
    assert.match(f.source, /^https:\/\/github\.com\//);
  }
});

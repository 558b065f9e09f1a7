"""A SkyRL-gym environment that plays a Rollout Lab environment served over OpenEnv's protocol.

THIS FILE CANNOT RUN ON ROLLOUT LAB'S OWN MACHINES (no GPU, no PyPI there). It is written against SkyRL-gym's
documented environment interface (skyrl-gym/skyrl_gym/envs/base_text_env.py `BaseTextEnv`: `init(prompt)`,
`step(action: str) -> BaseTextEnvStepOutput`, `close()`; docs/tutorials/new_env: register it and name it in the
dataset's `env_class`). What can be checked without SkyRL is checked by Rollout Lab's tests: this class plays gold
episodes against a real server (tests/integration/env-server-examples.test.ts).

SkyRL hands the environment the model's raw text; the server reads tool calls out of it (Hermes `<tool_call>`
JSON, as the environment's system prompt describes when `tool_presentation` is "prompt", the default here).

Use, on the training machine (clients/python/rollout_lab_env.py and this file importable):
  * in your entrypoint task, before the experiment: `register(id="rollout-lab",
    entry_point="skyrl_rollout_lab_env:RolloutLabTextEnv")` (from skyrl_gym.envs import register);
  * dataset rows: {"prompt": [...the episode's opening...], "env_class": "rollout-lab",
    "extra_info": {"task_id": ..., "seed": ...}} — `prepare_rows` below makes them from the server;
  * environment config (`environment.skyrl_gym.rollout-lab` in SkyRL's config, passed as `env_config`): env_url,
    experiment, max_turns; the token comes from ROLLOUT_LAB_TOKEN.
"""
import os

from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput

from rollout_lab_env import RolloutLabEnv


def _chat(messages):
    """Server messages as chat messages: tool output stays a tool message, a simulated user is the user."""
    return [{"role": m["role"] if m["role"] in ("system", "tool") else "user", "content": m["content"]} for m in messages]


class RolloutLabTextEnv(BaseTextEnv):
    def __init__(self, env_config=None, extras=None):
        super().__init__()
        config = dict(env_config or {})
        info = (extras or {}).get("extra_info", {})
        self.env_url = config.get("env_url") or os.environ["ROLLOUT_LAB_ENV_URL"]
        self.experiment = config.get("experiment", "skyrl")
        self.max_turns = int(config.get("max_turns", 12))
        self.task_id = info.get("task_id")
        self.seed = int(info.get("seed", 0))
        self.step_index = int(info.get("step", 0))
        self.client = None
        self.result = None

    def init(self, prompt):
        self.client = RolloutLabEnv(self.env_url, token=os.environ.get("ROLLOUT_LAB_TOKEN"))
        self.result = self.client.reset(
            task_id=self.task_id,
            seed=self.seed,
            max_turns=self.max_turns,
            experiment=self.experiment,
            step=self.step_index,
            group=f"{self.task_id}@{self.seed}",
            tool_presentation="prompt",
        )
        # The server's opening is the episode's (same task and seed as the dataset's prompt, which it replaces).
        return _chat(self.result.observation["messages"]), {"task_id": self.result.observation["task_id"]}

    def step(self, action):
        self.turns += 1
        self.result = self.client.step(action)
        obs = self.result.observation
        if self.result.done:
            reward = float(self.result.reward or 0.0)
        else:
            reward = float(obs.get("turn_reward") or 0.0)  # outcome reward at the end; turn rewards where they exist
        return BaseTextEnvStepOutput(
            observations=[] if self.result.done else _chat(obs["messages"]),
            reward=reward,
            done=self.result.done,
            metadata={k: obs[k] for k in ("end_reason", "reward_components", "trajectory_id", "format_error") if k in obs},
        )

    def close(self):
        if self.client is not None:
            self.client.close()
            self.client = None


def prepare_rows(env_url, seeds, token=None, max_turns=12):
    """SkyRL dataset rows: the openings of seed-chosen tasks, env_class "rollout-lab"."""
    rows = []
    with RolloutLabEnv(env_url, token=token) as env:
        for seed in seeds:
            obs = env.reset(seed=seed, max_turns=max_turns, tool_presentation="prompt").observation  # records nothing
            rows.append(
                {
                    "data_source": "rollout_lab",
                    "prompt": _chat(obs["messages"]),
                    "env_class": "rollout-lab",
                    "reward_spec": {"method": "env", "ground_truth": None},
                    "extra_info": {"task_id": obs["task_id"], "seed": seed},
                }
            )
    return rows

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
    experiment, max_turns, reward, options (the environment's reset options, e.g. UserRL's stepPenalty); the token
    comes from ROLLOUT_LAB_TOKEN.

Rewards. SkyRL adds up every step's reward (skyrl_gym_generator.py places each at its turn's last token; the
advantage sums them), so a step's reward must not repeat another's. `reward` chooses one signal per environment:
  * "final" (the default, every environment): 0 on every step, the episode's reward on the last one. The
    environments' per-turn rewards (UserRL, SGD) are in each step's metadata, for logging only.
  * "turns" (only environments with per-turn rewards: UserRL's gyms, SGD): each step's turn reward, the last step's
    included, and the episode's reward never added on top. Refused for an environment without turn rewards.
An episode the server cannot score (reward null) ends with reward 0.0, as SkyRL needs a number, and
metadata["unscored"] = True.

The server's session is closed when the episode ends and when a step raises: SkyRL's generator calls `close()` only
after a loop that finished without an exception.
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
        # SkyRL hands a registered env getattr(environment.skyrl_gym, env_class, {}) -- {} for an env of ours, as its
        # config has no field by that name -- so the launcher's environment variables are the usual source.
        self.env_url = config.get("env_url") or os.environ["ROLLOUT_LAB_ENV_URL"]
        self.experiment = config.get("experiment") or os.environ.get("ROLLOUT_LAB_EXPERIMENT", "skyrl")
        self.max_turns = int(config.get("max_turns") or os.environ.get("ROLLOUT_LAB_MAX_TURNS", 12))
        self.task_id = info.get("task_id")
        self.seed = int(info.get("seed", 0))
        self.step_index = int(info.get("step", 0))
        self.options = config.get("options")
        self.reward_mode = config.get("reward") or os.environ.get("ROLLOUT_LAB_SKYRL_REWARD", "final")
        if self.reward_mode not in ("final", "turns"):
            raise ValueError(f'env_config reward must be "final" or "turns", not {self.reward_mode!r}')
        self.client = None
        self.result = None
        self.saw_turn_reward = False

    def init(self, prompt):
        self.client = RolloutLabEnv(self.env_url, token=os.environ.get("ROLLOUT_LAB_TOKEN"))
        try:
            self.result = self._reset()
        except BaseException:
            self.close()  # a refused reset (unknown task, bad options) must not leave the session open either
            raise
        # The server's opening is the episode's (same task and seed as the dataset's prompt, which it replaces).
        return _chat(self.result.observation["messages"]), {"task_id": self.result.observation["task_id"]}

    def _reset(self):
        return self.client.reset(
            task_id=self.task_id,
            seed=self.seed,
            max_turns=self.max_turns,
            experiment=self.experiment,
            step=self.step_index,
            group=f"{self.task_id}@{self.seed}",
            tool_presentation="prompt",
            **({"options": self.options} if self.options else {}),
        )

    def step(self, action):
        self.turns += 1
        try:
            self.result = self.client.step(action)
        except BaseException:
            self.close()  # SkyRL skips close() when a step raises; the session would wait for the idle timeout
            raise
        obs = self.result.observation
        done = self.result.done
        turn_reward = obs.get("turn_reward")
        self.saw_turn_reward = self.saw_turn_reward or turn_reward is not None
        metadata = {k: obs[k] for k in ("end_reason", "reward_components", "trajectory_id", "format_error", "turn_reward") if k in obs}
        if self.reward_mode == "turns":
            reward = float(turn_reward or 0.0)
            if done and not self.saw_turn_reward:
                self.close()
                raise ValueError(f'reward "turns": the environment at {self.env_url} gives no turn rewards; use reward "final"')
        else:
            reward = float(self.result.reward or 0.0) if done else 0.0
        if done:
            metadata["episode_reward"] = self.result.reward
            metadata["unscored"] = self.result.reward is None
            self.close()  # the episode is over: end the server's session now
        return BaseTextEnvStepOutput(
            observations=[] if done else _chat(obs["messages"]),
            reward=reward,
            done=done,
            metadata=metadata,
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


def _prepare(env_url, out_dir, seeds):
    """data/train.parquet for SkyRL (needs pandas): the openings of `seeds` seed-chosen tasks."""
    import pandas as pd

    os.makedirs(out_dir, exist_ok=True)
    rows = prepare_rows(env_url, range(int(seeds)), token=os.environ.get("ROLLOUT_LAB_TOKEN"))
    pd.DataFrame(rows).to_parquet(os.path.join(out_dir, "train.parquet"))


def with_step(generator):
    """SkyRL's generator, made to hand each env the training step: SkyRL knows it (GeneratorInput's
    batch_metadata.global_step, counted from 1) but gives an env only the row's extras, so it is copied into
    extras["extra_info"]["step"], which the env sends with its reset. Episodes then group by SkyRL's step."""
    inner = generator.generate

    async def generate(input_batch, *args, **kwargs):
        meta = input_batch.get("batch_metadata")
        if meta is not None:
            input_batch["env_extras"] = [
                {**(extras or {}), "extra_info": {**((extras or {}).get("extra_info") or {}), "step": meta.global_step}}
                for extras in input_batch.get("env_extras") or []
            ]
        return await inner(input_batch, *args, **kwargs)

    generator.generate = generate
    return generator


def main():
    """SkyRL's main_base entry with this env registered inside the Ray task that builds the generator (a
    registration in the driver process alone does not reach it). Arguments: SkyRL's key=value overrides."""
    import sys

    import ray
    from skyrl.train.config import SkyRLTrainConfig
    from skyrl.train.entrypoints.main_base import BasePPOExp
    from skyrl.train.utils import validate_cfg
    from skyrl.train.utils.utils import initialize_ray

    class RolloutLabExp(BasePPOExp):
        def get_generator(self, cfg, tokenizer, inference_engine_client):
            return with_step(super().get_generator(cfg, tokenizer, inference_engine_client))

    @ray.remote(num_cpus=1)
    def entrypoint(cfg):
        from skyrl_gym.envs import register

        register(id="rollout-lab", entry_point="skyrl_rollout_lab_env:RolloutLabTextEnv")
        RolloutLabExp(cfg).run()

    cfg = SkyRLTrainConfig.from_cli_overrides(sys.argv[1:])
    validate_cfg(cfg)
    initialize_ray(cfg)
    ray.get(entrypoint.remote(cfg))


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--prepare"]:
        _prepare(*sys.argv[2:5])
    else:
        main()

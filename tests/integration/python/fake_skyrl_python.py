"""Stands in for the Python that has SkyRL installed, for engine-launch.test.ts: the rendered run-skyrl.sh runs as
rendered (`-m skyrl_rollout_lab_env --prepare ...`, then `-m skyrl_rollout_lab_env k=v ...`). SkyRL is not installed
here, so its BaseTextEnv is the stand-in of env_server_examples.py and its trainer is this file: it reads the rendered
overrides and, per step, has the generator (wrapped by the adapter's with_step, as its entry does) play
n_samples_per_prompt episodes the way SkyRL's generator does — the env built with env_config {} (SkyRL gives a
registered env getattr(environment.skyrl_gym, env_class, {})), init, step until done, step rewards summed, close()
only after a loop that did not raise.
"""
import asyncio
import json
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
args = sys.argv[1:]
assert args[:2] == ["-m", "skyrl_rollout_lab_env"], args

import env_server_examples as harness  # noqa: E402  (installs the SkyRL stand-ins, imports the adapter)

skyrl_example = harness.skyrl_example
if args[2:3] == ["--prepare"]:
    env_url, out_dir, seeds = args[3:6]
    rows = skyrl_example.prepare_rows(env_url, range(int(seeds)), token=os.environ.get("ROLLOUT_LAB_TOKEN"))
    os.makedirs(out_dir, exist_ok=True)
    json.dump(rows, open(os.path.join(out_dir, "train.json"), "w"))  # parquet needs pandas, not installed here
    print(f"fake skyrl: prepared {len(rows)} rows", flush=True)
    sys.exit(0)

overrides = dict(a.split("=", 1) for a in args[2:])
assert overrides["environment.env_class"] == "rollout-lab", overrides
gold = json.loads(os.environ["STAND_IN_GOLD"])
rows = json.load(open("data/train.json"))


class Generator:
    """SkyRL's generator as it treats envs: built from the row's extras with env_config {}, init, step until done,
    step rewards summed, close() only after a loop that did not raise."""

    async def generate(self, input_batch):
        rewards = []
        for extras in input_batch["env_extras"]:
            env = skyrl_example.RolloutLabTextEnv({}, extras)
            env.init(rows[0]["prompt"])
            total = 0.0
            for action in gold["actions"]:
                out = env.step("\n".join(harness.hermes(c) for c in action.get("tool_calls", [])) or action["message"])
                total += out["reward"]
                if out["done"]:
                    break
            env.close()
            rewards.append(total)
        return {"rewards": rewards}


# what the entry's RolloutLabExp.get_generator returns (SkyRL's own generator wrapped by with_step)
generator = skyrl_example.with_step(Generator())
for step in range(1, int(overrides["trainer.max_training_steps"]) + 1):  # SkyRL's global_step starts at 1
    n = int(overrides["generator.n_samples_per_prompt"])
    # the row as SkyRL hands it (its own extras, no step), with the gold episode's task
    extras = [{**rows[0], "extra_info": {**rows[0]["extra_info"], "task_id": gold["taskId"]}} for _ in range(n)]
    batch = {"prompts": [rows[0]["prompt"]] * n, "env_extras": extras, "batch_metadata": types.SimpleNamespace(global_step=step)}
    for total in asyncio.run(generator.generate(batch))["rewards"]:
        print(f"fake skyrl: step {step} reward {total}", flush=True)

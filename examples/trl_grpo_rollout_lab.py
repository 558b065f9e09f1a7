# /// script
# dependencies = ["trl", "transformers>=5.2.0", "datasets", "jmespath"]
# ///
"""Train with TRL's GRPOTrainer on a Rollout Lab environment served over OpenEnv's protocol.

THIS SCRIPT CANNOT RUN ON ROLLOUT LAB'S OWN MACHINES (no GPU, no PyPI there). It is written against TRL's documented
OpenEnv integration (docs: https://huggingface.co/docs/trl/openenv, `GRPOTrainer(environment_factory=...)`, TRL's
examples/scripts/openenv/*.py) and what can be checked without TRL is checked by Rollout Lab's tests: the environment
class below plays gold episodes against a real server (tests/integration/env-server-examples.test.ts).

How it fits together:
  * `npx rollout-lab envs serve --port 3001` (or `npm start`, which prints the port) serves every environment at
    http://HOST:3001/envs/<name>; beyond loopback it needs an API token with the write scope (ROLLOUT_LAB_TOKEN).
  * The dataset's prompts are the environment's own openings (system prompt + first user message) for chosen
    (task, seed) pairs; `reset(task_id=..., seed=...)` starts the same episode on the server when TRL samples it.
  * The environment's tools become methods of the environment class (TRL turns them into tool schemas for the
    chat template), plus `respond`, the policy's plain reply to the user. `get_reward` is the episode's reward.
  * Every episode is recorded in Rollout Lab (experiment = the run's name; groups = one prompt at one step), so the
    inspector, group view, signals and re-judging show what the policy did.

Usage (on a GPU machine with `pip install trl datasets jmespath` and clients/python/rollout_lab_env.py next to this
file):
    ROLLOUT_LAB_ENV_URL=http://HOST:3001/envs/tau2-retail ROLLOUT_LAB_TOKEN=rl_... python trl_grpo_rollout_lab.py
"""
import inspect
import json
import os
from typing import Optional

from rollout_lab_env import RolloutLabEnv

ENV_URL = os.environ.get("ROLLOUT_LAB_ENV_URL", "http://127.0.0.1:3001/envs/tau2-retail")
TOKEN = os.environ.get("ROLLOUT_LAB_TOKEN")
EXPERIMENT = os.environ.get("ROLLOUT_LAB_EXPERIMENT", "trl-grpo")
RUN_ID = os.environ.get("ROLLOUT_LAB_RUN_ID")  # set by Rollout Lab's launcher: episodes are recorded into that run
MODEL = os.environ.get("MODEL", "Qwen/Qwen3-1.7B")
MAX_TURNS = int(os.environ.get("ROLLOUT_LAB_MAX_TURNS", os.environ.get("MAX_TURNS", "12")))

# The trainer's step, for grouping recorded episodes (set by StepTracker each optimizer step).
CURRENT_STEP = [0]
JSON_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}


def opening_messages(observation):
    """The server's opening messages as chat messages (a simulated user is the user)."""
    return [{"role": "system" if m["role"] == "system" else "user", "content": m["content"]} for m in observation["messages"]]


def reply_text(observation):
    """What the model reads after its action: the new messages' text (tool output, the user's reply, a notice)."""
    return "\n".join(m["content"] for m in observation["messages"]) or "(no reply)"


def build_rows(task_ids, seeds, env_url=ENV_URL, token=TOKEN):
    """Dataset rows whose prompt is each (task, seed) episode's opening; tools come from the first one. Without
    task ids, the server picks the task by seed (seed modulo the number of tasks)."""
    rows, tools = [], []
    with RolloutLabEnv(env_url, token=token) as env:
        for task_id in task_ids or [None]:
            for seed in seeds:
                # A reset the policy never acts in records nothing.
                chosen = {"task_id": task_id} if task_id else {}
                result = env.reset(seed=seed, max_turns=MAX_TURNS, **chosen)
                tools = tools or result.observation.get("tools", [])
                rows.append({"prompt": opening_messages(result.observation), "task_id": result.observation["task_id"], "seed": seed})
    return rows, tools


def make_tool_method(schema):
    """A method named after the tool, with typed parameters and a Google-style docstring (TRL builds its schema)."""
    fn_schema = schema["function"]
    name, props = fn_schema["name"], fn_schema.get("parameters", {}).get("properties", {})
    required = set(fn_schema.get("parameters", {}).get("required", []))

    def call(self, **arguments):
        return self._call_tool(name, {k: v for k, v in arguments.items() if v is not None})

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations = {"return": str}
    doc_args = []
    for arg, spec in props.items():
        kind = JSON_TYPES.get(spec.get("type"), str)
        annotation = kind if arg in required else Optional[kind]
        default = inspect.Parameter.empty if arg in required else None
        params.append(inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
        annotations[arg] = annotation
        doc_args.append(f"    {arg}: {spec.get('description') or arg}")
    call.__name__ = name
    call.__signature__ = inspect.Signature(params, return_annotation=str)
    call.__annotations__ = annotations
    description = fn_schema.get("description") or name
    call.__doc__ = f"{description}\n\nArgs:\n" + "\n".join(doc_args) + "\n\nReturns:\n    The tool's output." if doc_args else f"{description}\n\nReturns:\n    The tool's output."
    return call


def make_environment_class(tools, env_url=ENV_URL, token=TOKEN, experiment=EXPERIMENT):
    """The class TRL instantiates once per generation (environment_factory)."""

    class RolloutLabToolEnv:
        # TRL exposes every public method except reset and get_reward as a tool the model may call
        # (GRPOTrainer's environment_factory handling), so everything else here is private.

        def __init__(self):
            self.client = None
            self.reward = None
            self.done = False

        def reset(self, **kwargs) -> Optional[str]:
            # Dataset columns arrive as keyword arguments; the prompt already holds the opening, so nothing is added.
            self._close()  # TRL reuses instances: an episode it abandoned is ended (recorded as truncated) first
            self.client = RolloutLabEnv(env_url, token=token)  # waits on a full server (503 + Retry-After)
            self.reward, self.done = None, False
            self.client.reset(
                task_id=kwargs["task_id"],
                seed=int(kwargs.get("seed", 0)),
                max_turns=MAX_TURNS,
                experiment=experiment,
                step=CURRENT_STEP[0],
                group=f"{kwargs['task_id']}@{kwargs.get('seed', 0)}",
                tool_presentation="schemas",
            )
            return None

        def _close(self):
            if self.client is not None:
                self.client.close()
                self.client = None

        def _after(self, result):
            self.done = result.done
            if result.done:
                # null when the environment could not score the episode: kept None, never turned into 0.0
                self.reward = result.reward
                self._close()  # the server's session ends with the episode, not at the idle timeout
            return reply_text(result.observation)

        def _call_tool(self, name, arguments):
            if self.done:
                raise ValueError("The episode is over.")
            return self._after(self.client.step("", tool_calls=[{"name": name, "arguments": arguments}]))

        def respond(self, message: str) -> str:
            """
            Send a message to the user (in games, your move) and get their reply.

            Args:
                message: What you say to the user.

            Returns:
                The user's reply.
            """
            if self.done:
                raise ValueError("The episode is over.")
            return self._after(self.client.step(message))

        def get_reward(self) -> Optional[float]:
            """The episode's reward; None when it is unscored (the server's null, or the rollout stopped before the
            episode ended). TRL turns None into NaN and masks the completion: no reward, no advantage, left out of the
            group's baseline (grpo_trainer.py's unscorable_mask), where 0.0 would train it as a failure."""
            # TRL asks once the rollout is over; an episode still open (turn or token budget spent) ends here.
            self._close()
            return self.reward if self.done else None

    for schema in tools:
        setattr(RolloutLabToolEnv, schema["function"]["name"], make_tool_method(schema))
    return RolloutLabToolEnv


def load_launch_config(path):
    """The config Rollout Lab renders for a run (trl-config.json, lib/engine-render.ts); without one, this file's
    defaults. Returns (model, GRPOConfig keywords, LoRA settings or None)."""
    if not path:
        return MODEL, {"output_dir": f"outputs/{EXPERIMENT}", "num_generations": 8, "max_completion_length": 4096,
                       "chat_template_kwargs": {"enable_thinking": False}, "log_completions": True, "logging_steps": 1}, None
    with open(path) as f:
        config = json.load(f)
    return config["model"], config["grpo_config"], config.get("lora")


class MetricsToRun:
    """TRL's logged metrics into the Rollout Lab run that launched this process (ROLLOUT_LAB_RUN_ID), through the
    stdlib logger (clients/python/rollout_lab_logger.py); a no-op when the script runs on its own."""

    def __init__(self):
        self.logger = None
        if os.environ.get("ROLLOUT_LAB_RUN_ID") and os.environ.get("ROLLOUT_LAB_URL"):
            from rollout_lab_logger import RolloutLabLogger

            self.logger = RolloutLabLogger(os.environ["ROLLOUT_LAB_URL"], token=TOKEN)
            self.logger.resume_run(os.environ["ROLLOUT_LAB_RUN_ID"])

    def log(self, step, logs):
        if self.logger is not None:
            self.logger.log_step(step, {k: v for k, v in logs.items() if isinstance(v, (int, float))})

    def finish(self):
        if self.logger is not None:
            self.logger.flush(timeout=60)


def main():
    import argparse

    from datasets import Dataset
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", help="trl-config.json rendered by Rollout Lab for a run")
    model, grpo_kwargs, lora = load_launch_config(parser.parse_args().config)
    metrics = MetricsToRun()

    class StepTracker(TrainerCallback):
        def on_step_begin(self, args, state, control, **kwargs):
            CURRENT_STEP[0] = state.global_step

        def on_log(self, args, state, control, logs=None, **kwargs):
            metrics.log(state.global_step, logs or {})

    peft_config = None
    if lora:
        from peft import LoraConfig

        peft_config = LoraConfig(r=lora["r"], lora_alpha=lora["lora_alpha"], target_modules="all-linear", task_type="CAUSAL_LM")
    task_ids = os.environ["TASK_IDS"].split(",") if os.environ.get("TASK_IDS") else None
    rows, tools = build_rows(task_ids, seeds=range(int(os.environ.get("ROLLOUT_LAB_SEEDS", os.environ.get("SEEDS", "64")))))
    trainer = GRPOTrainer(
        model=model,
        train_dataset=Dataset.from_list(rows),
        args=GRPOConfig(**grpo_kwargs),
        environment_factory=make_environment_class(tools),
        callbacks=[StepTracker()],
        peft_config=peft_config,
    )
    trainer.train()
    metrics.finish()


if __name__ == "__main__":
    main()

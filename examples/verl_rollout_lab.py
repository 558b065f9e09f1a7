"""verl multi-turn training on a Rollout Lab environment served over OpenEnv's protocol: an interaction (the
simulated user's side of the conversation) and a tool (the environment's tools), sharing one server session per
trajectory.

THIS FILE CANNOT RUN ON ROLLOUT LAB'S OWN MACHINES (no GPU, no PyPI there). It is written against verl's documented
interfaces (docs/sglang_multiturn/interaction_system.rst; verl/interactions/base.py `BaseInteraction`;
verl/tools/base_tool.py `BaseTool`; verl/experimental/agent_loop/tool_agent_loop.py, which calls
`start_interaction(request_id, **interaction_kwargs)` and passes `agent_data` — with the same `request_id` — to each
tool's `execute`). What can be checked without verl is checked by Rollout Lab's tests: these classes play gold
episodes against a real server (tests/integration/env-server-examples.test.ts).

Setup, on the training machine (clients/python/rollout_lab_env.py and this file importable, e.g. on PYTHONPATH):
  1. Data and configs from the server (needs pandas for the parquet files):
        python verl_rollout_lab.py --env-url http://HOST:3001/envs/tau2-retail --out ~/data/rollout_lab --seeds 64
     writes train.parquet (prompts = the episodes' openings; extra_info.interaction_kwargs names the task and seed),
     tool_config.yaml (one entry per environment tool, class RolloutLabTool) and interaction_config.yaml.
  2. Train (sglang or vllm rollout with multi_turn enabled), e.g.
        python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.return_raw_chat=True \\
          data.train_files=~/data/rollout_lab/train.parquet actor_rollout_ref.rollout.multi_turn.enable=True \\
          actor_rollout_ref.rollout.multi_turn.tool_config_path=~/data/rollout_lab/tool_config.yaml \\
          actor_rollout_ref.rollout.multi_turn.interaction_config_path=~/data/rollout_lab/interaction_config.yaml ...
     with ROLLOUT_LAB_TOKEN set when the server is beyond loopback. Every episode lands in Rollout Lab's inspector.
"""
import argparse
import asyncio
import json
import os
from pathlib import Path

from verl.interactions.base import BaseInteraction
from verl.tools.base_tool import BaseTool
from verl.tools.schemas import ToolResponse

from rollout_lab_env import RolloutLabEnv

# request_id -> the trajectory's server session; the interaction opens it, the tool calls play in it.
SESSIONS = {}


class _Session:
    def __init__(self, env_url, token):
        self.client = RolloutLabEnv(env_url, token=token)
        self.lock = asyncio.Lock()  # verl runs a turn's tool calls concurrently; the session plays them in order
        self.result = None

    async def play(self, message, tool_calls=None):
        async with self.lock:
            # The client is blocking; a thread keeps the rollout's event loop free for the other trajectories.
            self.result = await asyncio.to_thread(self.client.step, message, tool_calls)
            return self.result


def _text(observation):
    return "\n".join(m["content"] for m in observation["messages"]) or "(no reply)"


class RolloutLabInteraction(BaseInteraction):
    """config: env_url, experiment (the Rollout Lab run), max_turns; the token comes from ROLLOUT_LAB_TOKEN."""

    def __init__(self, config):
        super().__init__(config)
        self.env_url = config["env_url"]
        self.experiment = config.get("experiment", "verl")
        self.max_turns = int(config.get("max_turns", 12))

    async def start_interaction(self, instance_id=None, task_id=None, seed=0, step=0, **kwargs):
        session = _Session(self.env_url, os.environ.get("ROLLOUT_LAB_TOKEN"))
        # Same task and seed as the prompt in the dataset, so the opening the policy read is this episode's.
        await asyncio.to_thread(
            session.client.reset,
            task_id=task_id,
            seed=int(seed),
            max_turns=self.max_turns,
            experiment=self.experiment,
            step=int(step),
            group=f"{task_id}@{seed}",
            tool_presentation="schemas",
        )
        SESSIONS[instance_id] = session
        return instance_id

    async def generate_response(self, instance_id, messages, **kwargs):
        session = SESSIONS[instance_id]
        if session.result is not None and session.result.done:
            return True, "The conversation is over.", 0.0, {}
        reply = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "assistant"), "")
        result = await session.play(reply)
        turn_score = result.reward if result.done else (result.observation.get("turn_reward") or 0.0)
        return result.done, _text(result.observation), float(turn_score or 0.0), {"end_reason": result.observation.get("end_reason")}

    async def calculate_score(self, instance_id=None, **kwargs):
        result = SESSIONS[instance_id].result
        return float(result.reward or 0.0) if result is not None and result.done else 0.0

    async def finalize_interaction(self, instance_id=None, **kwargs):
        session = SESSIONS.pop(instance_id, None)
        if session is not None:
            await asyncio.to_thread(session.client.close)


class RolloutLabTool(BaseTool):
    """One environment tool (its schema from tool_config.yaml); calls play in the trajectory's session."""

    async def execute(self, instance_id, parameters, **kwargs):
        session = SESSIONS.get(kwargs["agent_data"].request_id)
        if session is None:
            return ToolResponse(text="Error: no Rollout Lab session for this trajectory (is the interaction configured?)"), 0.0, {}
        if session.result is not None and session.result.done:
            return ToolResponse(text="The episode is over."), 0.0, {}
        result = await session.play("", [{"name": self.name, "arguments": parameters}])
        return ToolResponse(text=_text(result.observation)), 0.0, {"done": result.done}


def prepare(env_url, out_dir, seeds, token=None, max_turns=12, experiment="verl"):
    """Rows (openings of seed-chosen tasks) and the two YAML configs (JSON is YAML) for verl."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows, tools = [], []
    with RolloutLabEnv(env_url, token=token) as env:
        for seed in seeds:
            result = env.reset(seed=seed, max_turns=max_turns)  # never acted in: nothing is recorded
            tools = tools or result.observation.get("tools", [])
            obs = result.observation
            rows.append(
                {
                    "data_source": "rollout_lab",
                    "prompt": [{"role": "system" if m["role"] == "system" else "user", "content": m["content"]} for m in obs["messages"]],
                    "reward_model": {"style": "interaction", "ground_truth": ""},
                    "extra_info": {"interaction_kwargs": {"name": "rollout_lab", "task_id": obs["task_id"], "seed": seed}},
                }
            )
    tool_config = {
        "tools": [{"class_name": f"{__name__}.RolloutLabTool", "config": {"type": "native"}, "tool_schema": t} for t in tools]
    }
    interaction_config = {
        "interaction": [
            {
                "name": "rollout_lab",
                "class_name": f"{__name__}.RolloutLabInteraction",
                "config": {"env_url": env_url, "experiment": experiment, "max_turns": max_turns},
            }
        ]
    }
    (out / "tool_config.yaml").write_text(json.dumps(tool_config, indent=1))
    (out / "interaction_config.yaml").write_text(json.dumps(interaction_config, indent=1))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env-url", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seeds", type=int, default=64)
    parser.add_argument("--experiment", default="verl")
    args = parser.parse_args()
    rows = prepare(args.env_url, args.out, range(args.seeds), token=os.environ.get("ROLLOUT_LAB_TOKEN"), experiment=args.experiment)
    import pandas as pd

    pd.DataFrame(rows).to_parquet(Path(args.out) / "train.parquet")


if __name__ == "__main__":
    main()

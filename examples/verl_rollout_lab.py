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
          actor_rollout_ref.rollout.multi_turn.interaction_config_path=~/data/rollout_lab/interaction_config.yaml \\
          actor_rollout_ref.rollout.agent.agent_loop_config_path=~/data/rollout_lab/agent_loop_config.yaml \\
          custom_reward_function.path=$PWD/verl_rollout_lab.py custom_reward_function.name=compute_score ...
     with ROLLOUT_LAB_TOKEN set when the server is beyond loopback. Every episode lands in Rollout Lab's inspector.
     (Rollout Lab renders this command and its config from a run: docs/engines.md.)

How the reward reaches verl. verl's reward manager scores a trajectory with `compute_score(data_source=...,
solution_str=..., ground_truth=..., extra_info=...)`; without `custom_reward_function` it is verl's
`default_compute_score`, which raises NotImplementedError for data_source "rollout_lab". ToolAgentLoop never calls
an interaction's `calculate_score` or `finalize_interaction`. So the rows name the agent loop "rollout_lab_agent"
(RolloutLabAgentLoop, a ToolAgentLoop that ends the trajectory's server session when its loop returns or raises and
puts the episode's reward in the output's extra fields) and `compute_score` below, the custom reward function, reads
it from `extra_info` (where verl's reward manager merges those fields). An episode the loop stopped early (response
length, turn limit) or that the server could not score gets 0.0 with `unscored` = 1 in the reward's extra info: verl
has no per-sample mask for a custom score, so it is counted, and reported.
"""
import argparse
import asyncio
import contextvars
import copy
import json
import os
from pathlib import Path

from verl.experimental.agent_loop.agent_loop import register
from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop
from verl.interactions.base import BaseInteraction
from verl.tools.base_tool import BaseTool
from verl.tools.schemas import ToolResponse

from rollout_lab_env import RolloutLabEnv

# request_id -> the trajectory's server session; the interaction opens it, the tool calls play in it.
SESSIONS = {}
# request_id -> (done, reward) of trajectories whose session has ended, until their agent loop returns.
OUTCOMES = {}
# The running agent loop's holder: start_interaction notes the request id verl made up inside ToolAgentLoop.run.
_TRAJECTORY = contextvars.ContextVar("rollout_lab_trajectory", default=None)
REWARD_FIELD = "rollout_lab_reward"


async def _end_session(request_id):
    """Ends a trajectory's server session once (recorded as truncated if the episode was still going)."""
    session = SESSIONS.pop(request_id, None)
    if session is not None:
        result = session.result
        OUTCOMES[request_id] = (result is not None and result.done, result.reward if result is not None else None)
        await asyncio.to_thread(session.client.close)


class _Session:
    def __init__(self, env_url, token):
        self.client = RolloutLabEnv(env_url, token=token)
        self.lock = asyncio.Lock()  # verl runs a turn's tool calls concurrently; the session plays them in order
        self.result = None

    async def play(self, request_id, message, tool_calls=None):
        async with self.lock:
            if self.result is not None and self.result.done:
                return self.result  # a call that waited for the lock while another one ended the episode
            # The client is blocking; a thread keeps the rollout's event loop free for the other trajectories.
            self.result = await asyncio.to_thread(self.client.step, message, tool_calls)
            if self.result.done:
                await _end_session(request_id)  # the episode is over: its session goes now, not at the idle timeout
            return self.result


def _verl_step(default):
    """The training step this rollout belongs to. verl does not hand it to an interaction; with its file logger on
    (VERL_FILE_LOGGER_PATH, as Rollout Lab's launch sets it) the step is the one after the last logged (verl counts
    from 1 and logs a step when it is done), so episodes group by the same step as the run's curves."""
    path = os.environ.get("VERL_FILE_LOGGER_PATH")
    if not path:
        return int(default)
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.path.getsize(path) - 65536))
            lines = [line for line in f.read().split(b"\n") if line.strip()]
    except OSError:
        return 1  # nothing logged yet: verl's first step
    for line in reversed(lines):  # the last whole line (one being written may be cut)
        try:
            return int(json.loads(line)["step"]) + 1
        except (ValueError, KeyError, TypeError):
            continue
    return 1


def _outcome(request_id):
    """(done, reward) of a trajectory, whether its session is still open or already ended."""
    session = SESSIONS.get(request_id)
    if session is not None:
        return (session.result is not None and session.result.done, session.result.reward if session.result else None)
    return OUTCOMES.get(request_id, (False, None))


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
        step = _verl_step(step)
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
        holder = _TRAJECTORY.get()
        if holder is not None:
            holder["request_id"] = instance_id
        return instance_id

    async def generate_response(self, instance_id, messages, **kwargs):
        # The turn score verl keeps (extra_fields turn_scores) is the environment's turn reward where it has one,
        # for logging: the trajectory's reward is compute_score's, from the episode's reward alone.
        session = SESSIONS.get(instance_id)
        if session is None:
            return True, "The conversation is over.", 0.0, {}
        reply = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "assistant"), "")
        result = await session.play(instance_id, reply)
        turn_score = result.observation.get("turn_reward") or 0.0
        return result.done, _text(result.observation), float(turn_score), {"end_reason": result.observation.get("end_reason")}

    async def calculate_score(self, instance_id=None, **kwargs):
        done, reward = _outcome(instance_id)
        return float(reward) if done and reward is not None else 0.0

    async def finalize_interaction(self, instance_id=None, **kwargs):
        await _end_session(instance_id)
        OUTCOMES.pop(instance_id, None)


@register("rollout_lab_agent")
class RolloutLabAgentLoop(ToolAgentLoop):
    """verl's ToolAgentLoop, plus what it leaves out for an environment that lives on a server: the session ends
    when the loop returns or raises (ToolAgentLoop never calls finalize_interaction), and the episode's reward
    goes into the output's extra fields, where compute_score finds it."""

    async def run(self, sampling_params, **kwargs):
        holder = {}
        token = _TRAJECTORY.set(holder)
        try:
            output = await super().run(sampling_params, **kwargs)
        finally:
            _TRAJECTORY.reset(token)
            request_id = holder.get("request_id")
            if request_id is not None:
                await _end_session(request_id)
        done, reward = OUTCOMES.pop(request_id, (False, None)) if request_id is not None else (False, None)
        output.extra_fields[REWARD_FIELD] = float(reward) if done and reward is not None else None
        return output


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl's custom_reward_function (custom_reward_function.name=compute_score): the episode's reward as the
    environment scored it, carried by RolloutLabAgentLoop; 0.0 and unscored = 1 when there is none."""
    reward = (extra_info or {}).get(REWARD_FIELD)
    return {"score": 0.0 if reward is None else float(reward), "unscored": int(reward is None)}


class _FullToolSchema:
    """verl's OpenAIFunctionPropertySchema keeps only type, description and enum of a parameter, so an array's
    `items` (and nested objects' properties) are gone from the schema the chat template shows the model. This
    stands in for the parsed schema: attributes as verl's, model_dump the schema as the environment wrote it."""

    def __init__(self, parsed, full):
        self._parsed = parsed
        self._full = full

    def __getattr__(self, name):
        return getattr(self._parsed, name)

    def model_dump(self, *args, **kwargs):
        return copy.deepcopy(self._full)


class RolloutLabTool(BaseTool):
    """One environment tool (its schema from tool_config.yaml); calls play in the trajectory's session.
    config.schema holds the full schema (verl's parsed tool_schema drops array items)."""

    def __init__(self, config, tool_schema):
        full = config.get("schema")
        super().__init__(config, _FullToolSchema(tool_schema, full) if full else tool_schema)

    async def execute(self, instance_id, parameters, **kwargs):
        request_id = kwargs["agent_data"].request_id
        session = SESSIONS.get(request_id)
        if session is None:
            done, _ = _outcome(request_id)
            text = "The episode is over." if done else "Error: no Rollout Lab session for this trajectory (is the interaction configured?)"
            return ToolResponse(text=text), 0.0, {}
        result = await session.play(request_id, "", [{"name": self.name, "arguments": parameters}])
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
                    "agent_name": "rollout_lab_agent",
                    "extra_info": {"interaction_kwargs": {"name": "rollout_lab", "task_id": obs["task_id"], "seed": seed}},
                }
            )
    tool_config = {
        "tools": [{"class_name": f"{__name__}.RolloutLabTool", "config": {"type": "native", "schema": t}, "tool_schema": t} for t in tools]
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
    agent_loop_config = [{"name": "rollout_lab_agent", "_target_": f"{__name__}.RolloutLabAgentLoop"}]
    (out / "tool_config.yaml").write_text(json.dumps(tool_config, indent=1))
    (out / "agent_loop_config.yaml").write_text(json.dumps(agent_loop_config, indent=1))
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

"""Plays gold episodes through the stdlib client (clients/python/rollout_lab_env.py) and through the adapters of the
trainer examples (examples/*.py), against a running environment server. Run by env-server-examples.test.ts.

TRL, verl and SkyRL are not installed here: the verl and SkyRL base classes the examples subclass are replaced by
stand-ins with their documented signatures (verl/interactions/base.py, verl/tools/base_tool.py, verl/tools/schemas.py,
skyrl_gym/envs/base_text_env.py); the TRL example imports TRL only in main(). What runs is the examples' own code.

stdin: {"base_url": ..., "gold": [{"env", "taskId", "actions": [...], "expectedReward"}, ...]}; stdout: one JSON
object per check with the rewards reached.
"""
import asyncio
import inspect
import json
import os
import sys
import tempfile
import types
import typing

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path[:0] = [os.path.join(ROOT, "clients", "python"), os.path.join(ROOT, "examples")]


def stand_in(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


class BaseInteraction:
    def __init__(self, config):
        self.config = config
        self.name = config.get("name", "interaction_agent")


class BaseTool:
    def __init__(self, config, tool_schema):
        self.config = config
        self.tool_schema = tool_schema
        self.name = tool_schema["function"]["name"]


class ToolResponse:
    def __init__(self, text=None, image=None, video=None):
        self.text, self.image, self.video = text, image, video


class BaseTextEnv:
    def __init__(self):
        self.turns = 0
        self.max_turns = 1


for pkg in ["verl", "verl.interactions", "verl.tools", "skyrl_gym", "skyrl_gym.envs"]:
    stand_in(pkg)
stand_in("verl.interactions.base", BaseInteraction=BaseInteraction)
stand_in("verl.tools.base_tool", BaseTool=BaseTool)
stand_in("verl.tools.schemas", ToolResponse=ToolResponse, OpenAIFunctionToolSchema=dict)
stand_in("skyrl_gym.envs.base_text_env", BaseTextEnv=BaseTextEnv, BaseTextEnvStepOutput=dict)

from rollout_lab_env import RolloutLabEnv  # noqa: E402
import trl_grpo_rollout_lab as trl_example  # noqa: E402
import verl_rollout_lab as verl_example  # noqa: E402
import skyrl_rollout_lab_env as skyrl_example  # noqa: E402


def hermes(call):
    return "<tool_call>\n" + json.dumps({"name": call["name"], "arguments": call["arguments"]}) + "\n</tool_call>"


def stdlib_client(url, gold):
    with RolloutLabEnv(url, token=TOKEN) as env:
        result = env.reset(task_id=gold["taskId"], seed=0, max_turns=40, experiment="examples-stdlib")
        for action in gold["actions"]:
            result = env.step(action["message"], tool_calls=action.get("tool_calls"))
            if result.done:
                break
        state = env.state()
        return {"reward": result.reward, "done": result.done, "state_done": state["done"]}


def trl(url, gold):
    rows, tools = trl_example.build_rows([gold["taskId"]], [0], env_url=url, token=TOKEN)
    cls = trl_example.make_environment_class(tools, env_url=url, token=TOKEN, experiment="examples-trl")
    env = cls()
    checked = []
    for t in tools:
        method = getattr(env, t["function"]["name"])
        sig = inspect.signature(method)
        hints = typing.get_type_hints(method)
        assert list(sig.parameters) == list(t["function"]["parameters"].get("properties", {})), (t, sig)
        assert all(p in hints for p in sig.parameters), hints
        assert "Args:" in method.__doc__ if sig.parameters else method.__doc__, method.__doc__
        checked.append(t["function"]["name"])
    assert env.reset(**{k: v for k, v in rows[0].items() if k != "prompt"}) is None
    for action in gold["actions"]:
        if action.get("tool_calls"):
            call = action["tool_calls"][0]
            getattr(env, call["name"])(**call["arguments"])
        else:
            env.respond(action["message"])
        if env.done:
            break
    return {"reward": env.get_reward(), "done": env.done, "prompt_roles": [m["role"] for m in rows[0]["prompt"]], "tools": len(checked)}


async def verl(url, gold):
    out = tempfile.mkdtemp()
    rows = verl_example.prepare(url, out, [0], token=TOKEN, experiment="examples-verl")
    tool_config = json.load(open(os.path.join(out, "tool_config.yaml")))
    interaction_config = json.load(open(os.path.join(out, "interaction_config.yaml")))["interaction"][0]
    interaction = verl_example.RolloutLabInteraction({**interaction_config["config"], "name": interaction_config["name"]})
    tools = {t["tool_schema"]["function"]["name"]: verl_example.RolloutLabTool(t["config"], t["tool_schema"]) for t in tool_config["tools"]}
    request_id = "req-1"
    await interaction.start_interaction(request_id, task_id=gold["taskId"], seed=0, name="rollout_lab")
    agent_data = types.SimpleNamespace(request_id=request_id)
    messages, done, score = [], False, 0.0
    for action in gold["actions"]:
        if action.get("tool_calls"):
            call = action["tool_calls"][0]
            response, _, metrics = await tools[call["name"]].execute("tool-instance", call["arguments"], agent_data=agent_data)
            messages.append({"role": "tool", "content": response.text})
            done = metrics.get("done", False)
        else:
            messages.append({"role": "assistant", "content": action["message"]})
            done, text, score, _ = await interaction.generate_response(request_id, messages)
            messages.append({"role": "user", "content": text})
        if done:
            break
    final = await interaction.calculate_score(request_id)
    await interaction.finalize_interaction(request_id)
    return {"reward": final, "done": done, "last_turn_score": score, "rows": len(rows), "tools": len(tools), "interaction_kwargs": rows[0]["extra_info"]["interaction_kwargs"]}


def skyrl(url, gold):
    rows = skyrl_example.prepare_rows(url, [0], token=TOKEN)
    env = skyrl_example.RolloutLabTextEnv({"env_url": url, "experiment": "examples-skyrl", "max_turns": 40}, {"extra_info": {"task_id": gold["taskId"], "seed": 0}})
    opening, info = env.init(rows[0]["prompt"])
    out = None
    for action in gold["actions"]:
        text = "\n".join(hermes(c) for c in action.get("tool_calls", [])) or action["message"]
        out = env.step(text)
        if out["done"]:
            break
    env.close()
    return {"reward": out["reward"], "done": out["done"], "opening_roles": [m["role"] for m in opening], "task_id": info["task_id"]}


TOKEN = None


def main():
    global TOKEN
    job = json.load(sys.stdin)
    TOKEN = job.get("token")
    os.environ["ROLLOUT_LAB_TOKEN"] = TOKEN  # where the verl and SkyRL adapters read it, as on a cluster
    for gold in job["gold"]:
        url = f"{job['base_url']}/envs/{gold['env']}"
        for name, check in [("stdlib", stdlib_client), ("trl", trl), ("verl", verl), ("skyrl", skyrl)]:
            if name != "stdlib" and gold["env"] not in job["adapter_envs"]:
                continue
            try:
                result = asyncio.run(check(url, gold)) if inspect.iscoroutinefunction(check) else check(url, gold)
                print(json.dumps({"check": name, "env": gold["env"], "task": gold["taskId"], "expected": gold["expectedReward"], **result}), flush=True)
            except Exception as error:
                import traceback

                print(json.dumps({"check": name, "env": gold["env"], "task": gold["taskId"], "error": traceback.format_exc()}), flush=True)


if __name__ == "__main__":
    main()

"""Plays gold episodes through the stdlib client (clients/python/rollout_lab_env.py) and through the adapters of the
trainer examples (examples/*.py), against a running environment server. Run by env-server-examples.test.ts.

TRL, verl and SkyRL are not installed here: the verl and SkyRL base classes the examples subclass are replaced by
stand-ins with their documented signatures (verl/interactions/base.py, verl/tools/base_tool.py, verl/tools/schemas.py,
verl/experimental/agent_loop/{agent_loop,tool_agent_loop}.py, skyrl_gym/envs/base_text_env.py); the TRL example
imports TRL only in main(). What runs is the examples' own code. Where the engines' behaviour matters (verl's agent
loop never finalizing an interaction, its schema model dropping unknown parameter keys, SkyRL summing step rewards
and skipping close() after an exception, TRL masking a None reward) the stand-ins do what the engine's source does,
as recorded in tests/fixtures/engines/<engine>/facts.json (which engine-contracts.test.ts checks against the names).

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
        self.tool_schema = tool_schema  # verl's OpenAIFunctionToolSchema (parsed), as verl's tool registry passes it
        self.name = tool_schema.function.name


class ToolResponse:
    def __init__(self, text=None, image=None, video=None):
        self.text, self.image, self.video = text, image, video


class BaseTextEnv:
    def __init__(self):
        self.turns = 0
        self.max_turns = 1


FACTS = {e: json.load(open(os.path.join(ROOT, "tests", "fixtures", "engines", e, "facts.json"))) for e in ("trl", "verl", "skyrl")}
VERL_PROPERTY_FIELDS = FACTS["verl"]["tool_schema"]["OpenAIFunctionPropertySchema"]


class ParsedToolSchema:
    """verl's OpenAIFunctionToolSchema.model_validate as far as the adapter sees it: attribute access, and a
    parameter keeps only the fields verl's OpenAIFunctionPropertySchema declares (pydantic ignores the rest)."""

    def __init__(self, raw):
        fn = raw["function"]
        params = fn.get("parameters", {"type": "object", "properties": {}, "required": []})
        self._dump = {
            "type": raw["type"],
            "function": {
                "name": fn["name"],
                "description": fn.get("description", ""),
                "parameters": {
                    "type": params.get("type", "object"),
                    "properties": {k: {f: v[f] for f in VERL_PROPERTY_FIELDS if f in v} for k, v in params.get("properties", {}).items()},
                    "required": params.get("required", []),
                },
            },
        }
        self.type = raw["type"]
        self.function = types.SimpleNamespace(name=fn["name"])

    @classmethod
    def model_validate(cls, raw):
        return cls(raw)

    def model_dump(self, **kwargs):
        return json.loads(json.dumps(self._dump))


AGENT_LOOPS = {}


def register(agent_name):
    def decorator(cls):
        AGENT_LOOPS[agent_name] = cls
        return cls

    return decorator


class ToolAgentLoop:
    """verl's ToolAgentLoop.run as it treats an interaction and tools: a fresh request_id, start_interaction, tool
    calls with agent_data (same request_id), generate_response after a plain reply; turn scores and tool rewards in
    extra_fields; finalize_interaction and calculate_score never called. The model's replies are scripted."""

    def __init__(self, interaction, tools, actions, raise_after=None):
        self.interaction, self.tools, self.actions, self.raise_after = interaction, tools, actions, raise_after

    async def run(self, sampling_params, **kwargs):
        import uuid

        request_id = uuid.uuid4().hex
        interaction_kwargs = kwargs["extra_info"]["interaction_kwargs"]
        await self.interaction.start_interaction(request_id, **interaction_kwargs)
        agent_data = types.SimpleNamespace(request_id=request_id, messages=[], turn_scores=[], tool_rewards=[])
        for i, action in enumerate(self.actions):
            if self.raise_after is not None and i >= self.raise_after:
                raise RuntimeError("the rollout server went away")
            if action.get("tool_calls"):
                call = action["tool_calls"][0]
                response, reward, _ = await self.tools[call["name"]].execute("tool-instance", call["arguments"], agent_data=agent_data)
                agent_data.messages.append({"role": "tool", "content": response.text})
                agent_data.tool_rewards.append(reward)
            else:
                agent_data.messages.append({"role": "assistant", "content": action["message"]})
                done, text, score, _ = await self.interaction.generate_response(request_id, agent_data.messages, **interaction_kwargs)
                agent_data.messages.append({"role": "user", "content": text})
                agent_data.turn_scores.append(score)
                if done:
                    break
        return types.SimpleNamespace(extra_fields={"turn_scores": agent_data.turn_scores, "tool_rewards": agent_data.tool_rewards})


for pkg in ["verl", "verl.interactions", "verl.tools", "verl.experimental", "verl.experimental.agent_loop", "skyrl_gym", "skyrl_gym.envs"]:
    stand_in(pkg)
stand_in("verl.interactions.base", BaseInteraction=BaseInteraction)
stand_in("verl.tools.base_tool", BaseTool=BaseTool)
stand_in("verl.tools.schemas", ToolResponse=ToolResponse, OpenAIFunctionToolSchema=ParsedToolSchema)
stand_in("verl.experimental.agent_loop.agent_loop", register=register)
stand_in("verl.experimental.agent_loop.tool_agent_loop", ToolAgentLoop=ToolAgentLoop)
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


def sessions_open(url, settle=True):
    """The server's open sessions (GET /health), after giving closes already sent a moment to arrive."""
    import time
    import urllib.request

    root = url.split("/envs/")[0]
    for _ in range(40):
        request = urllib.request.Request(root + "/health", headers={"Authorization": f"Bearer {TOKEN}"})
        count = json.load(urllib.request.urlopen(request))["sessions"]
        if count == 0 or not settle:
            return count
        time.sleep(0.05)
    return count


def load_custom_reward_function(config):
    """What verl's get_custom_reward_fn does with custom_reward_function.path / .name: load the file, take the name."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("custom_module", config["path"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, config["name"])


def verl_setup(url, gold, experiment="examples-verl"):
    out = tempfile.mkdtemp()
    rows = verl_example.prepare(url, out, [0], token=TOKEN, experiment=experiment)
    tool_config = json.load(open(os.path.join(out, "tool_config.yaml")))
    interaction_config = json.load(open(os.path.join(out, "interaction_config.yaml")))["interaction"][0]
    agent_loops = json.load(open(os.path.join(out, "agent_loop_config.yaml")))
    interaction = verl_example.RolloutLabInteraction({**interaction_config["config"], "name": interaction_config["name"]})
    # as verl's tool registry builds tools: the class from class_name, the schema through OpenAIFunctionToolSchema
    tools = {}
    for t in tool_config["tools"]:
        cls = getattr(verl_example, t["class_name"].rsplit(".", 1)[1])
        tools[t["tool_schema"]["function"]["name"]] = cls(t["config"], ParsedToolSchema.model_validate(t["tool_schema"]))
    loop_cls = getattr(verl_example, agent_loops[0]["_target_"].rsplit(".", 1)[1])
    # by name: verl loads custom_reward_function's file again as its own module, which registers the class again
    assert AGENT_LOOPS[agent_loops[0]["name"]].__qualname__ == loop_cls.__qualname__, (AGENT_LOOPS, loop_cls)
    assert rows[0].get("agent_name") == agent_loops[0]["name"], (rows[0].keys(), agent_loops)
    row = dict(rows[0])
    row["extra_info"] = {"interaction_kwargs": {**row["extra_info"]["interaction_kwargs"], "task_id": gold["taskId"]}}
    return row, interaction, tools, loop_cls


async def verl(url, gold):
    row, interaction, tools, loop_cls = verl_setup(url, gold)
    output = await loop_cls(interaction, tools, gold["actions"]).run({}, extra_info=row["extra_info"], raw_prompt=row["prompt"])
    open_after = sessions_open(url)
    # verl's reward manager: compute_score from custom_reward_function, extra_info = the row's + the loop's fields
    score_fn = load_custom_reward_function({"path": verl_example.__file__, "name": "compute_score"})
    extra_info = {**row["extra_info"], **output.extra_fields}
    scored = score_fn(data_source=row["data_source"], solution_str="", ground_truth=row["reward_model"]["ground_truth"], extra_info=extra_info)
    reward = None if scored["unscored"] else scored["score"]
    # array parameters keep their items in the schema the chat template gets (tool_agent_loop: tool_schema.model_dump)
    arrays = {}
    for name, tool in tools.items():
        for arg, spec in tool.tool_schema.model_dump(exclude_unset=True, exclude_none=True)["function"]["parameters"]["properties"].items():
            if spec.get("type") == "array":
                arrays[f"{name}.{arg}"] = "items" in spec
    return {"reward": reward, "done": True, "sessions_open_after": open_after, "array_params": arrays, "tools": len(tools), "interaction_kwargs": row["extra_info"]["interaction_kwargs"]}


async def verl_cut_short(url, gold):
    """The loop stops after the first action (verl's turn or length limit), then one that raises: nothing stays open."""
    row, interaction, tools, loop_cls = verl_setup(url, gold, experiment="examples-verl-cut")
    output = await loop_cls(interaction, tools, gold["actions"][:1]).run({}, extra_info=row["extra_info"], raw_prompt=row["prompt"])
    after_short = sessions_open(url)
    score_fn = load_custom_reward_function({"path": verl_example.__file__, "name": "compute_score"})
    scored = score_fn(data_source=row["data_source"], solution_str="", ground_truth="", extra_info={**row["extra_info"], **output.extra_fields})
    raised = None
    try:
        await loop_cls(interaction, tools, gold["actions"], raise_after=1).run({}, extra_info=row["extra_info"], raw_prompt=row["prompt"])
    except RuntimeError as error:
        raised = str(error)
    return {"done": False, "scored": scored, "sessions_open_after_short": after_short, "sessions_open_after_raise": sessions_open(url), "raised": raised}


def skyrl(url, gold):
    rows = skyrl_example.prepare_rows(url, [0], token=TOKEN)
    env = skyrl_example.RolloutLabTextEnv({"env_url": url, "experiment": "examples-skyrl", "max_turns": 40}, {"extra_info": {"task_id": gold["taskId"], "seed": 0}})
    opening, info = env.init(rows[0]["prompt"])
    out, total = None, 0.0
    for action in gold["actions"]:
        text = "\n".join(hermes(c) for c in action.get("tool_calls", [])) or action["message"]
        out = env.step(text)
        total += out["reward"]  # SkyRL sums the step rewards
        if out["done"]:
            break
    open_after = sessions_open(url)  # before close(): the episode's end ended the session
    env.close()
    reward = None if out["metadata"]["unscored"] else total
    return {"reward": reward, "done": out["done"], "opening_roles": [m["role"] for m in opening], "task_id": info["task_id"], "sessions_open_after": open_after}


def skyrl_rewards(url, gold):
    """One gold episode per reward mode on an environment with turn rewards: the sum SkyRL trains on."""
    out = {}
    for mode in ("final", "turns"):
        env = skyrl_example.RolloutLabTextEnv({"env_url": url, "experiment": "examples-skyrl-rewards", "max_turns": 40, "reward": mode, "options": gold.get("options")}, {"extra_info": {"task_id": gold["taskId"], "seed": 0}})
        env.init([])
        steps = []
        for action in gold["actions"]:
            step = env.step("\n".join(hermes(c) for c in action.get("tool_calls", [])) or action["message"])
            steps.append(step)
            if step["done"]:
                break
        env.close()
        out[mode] = {
            "sum": sum(s["reward"] for s in steps),
            "turn_rewards": [s["metadata"].get("turn_reward") for s in steps],
            "episode_reward": steps[-1]["metadata"]["episode_reward"],
        }
    return {"done": True, "rewards": out}


def skyrl_error(url, gold):
    """A step that raises (the server refuses an oversize reply): the adapter ends the session itself."""
    env = skyrl_example.RolloutLabTextEnv({"env_url": url, "experiment": "examples-skyrl-error", "max_turns": 40}, {"extra_info": {"task_id": gold["taskId"], "seed": 0}})
    env.init([])
    env.step("\n".join(hermes(c) for c in gold["actions"][0].get("tool_calls", [])) or gold["actions"][0]["message"])
    raised = None
    try:
        env.step("x" * (1024 * 1024 + 10))
    except Exception as error:
        raised = type(error).__name__
    # SkyRL's generator does not call close() here (the exception skips it)
    after_step = sessions_open(url)
    bad = skyrl_example.RolloutLabTextEnv({"env_url": url, "max_turns": 40}, {"extra_info": {"task_id": "no-such-task", "seed": 0}})
    init_raised = None
    try:
        bad.init([])
    except Exception as error:
        init_raised = type(error).__name__
    return {"done": False, "raised": raised, "sessions_open_after": after_step, "init_raised": init_raised, "sessions_open_after_init": sessions_open(url)}


def trl_truncated(url, gold):
    """TRL stops the rollout after one action (token budget): the reward is None (masked), the session ended."""
    rows, tools = trl_example.build_rows([gold["taskId"]], [0], env_url=url, token=TOKEN)
    env = trl_example.make_environment_class(tools, env_url=url, token=TOKEN, experiment="examples-trl-cut")()
    env.reset(**{k: v for k, v in rows[0].items() if k != "prompt"})
    action = gold["actions"][0]
    if action.get("tool_calls"):
        getattr(env, action["tool_calls"][0]["name"])(**action["tool_calls"][0]["arguments"])
    else:
        env.respond(action["message"])
    reward = env.get_reward()
    # what TRL offers the model as tools: public methods but reset and get_reward (grpo_trainer environment_factory)
    exposed = sorted(n for n, _ in inspect.getmembers(env, predicate=inspect.ismethod) if n not in ("reset", "get_reward") and not n.startswith("_"))
    return {"done": False, "reward_is_none": reward is None, "sessions_open_after": sessions_open(url), "exposed": exposed, "tools": sorted([t["function"]["name"] for t in tools] + ["respond"])}


def stdlib_busy(url, gold):
    """A server at capacity (503 + Retry-After at the handshake): the client waits as told and gets in."""
    import threading
    import time

    holder = RolloutLabEnv(url, token=TOKEN)
    threading.Timer(1.5, holder.close).start()
    started = time.monotonic()
    with RolloutLabEnv(url, token=TOKEN, max_wait=30) as env:
        result = env.reset(task_id=gold["taskId"], seed=0, max_turns=40)
        waited = env.waited
    refused = None
    holder2 = RolloutLabEnv(url, token=TOKEN)
    try:
        RolloutLabEnv(url, token=TOKEN, max_wait=0)
    except Exception as error:
        refused = getattr(error, "data", {})
    holder2.close()
    return {"done": True, "waited": waited, "elapsed": time.monotonic() - started, "reset_ok": bool(result.observation.get("messages")), "refused": refused}


TOKEN = None


def main():
    global TOKEN
    job = json.load(sys.stdin)
    TOKEN = job.get("token")
    os.environ["ROLLOUT_LAB_TOKEN"] = TOKEN  # where the verl and SkyRL adapters read it, as on a cluster
    checks = {"stdlib": stdlib_client, "trl": trl, "verl": verl, "skyrl": skyrl, "trl_truncated": trl_truncated,
              "verl_cut_short": verl_cut_short, "skyrl_rewards": skyrl_rewards, "skyrl_error": skyrl_error, "stdlib_busy": stdlib_busy}
    for gold in job["gold"]:
        url = f"{job.get('busy_url') if gold.get('busy') else job['base_url']}/envs/{gold['env']}"
        for name in gold.get("checks") or ["stdlib", "trl", "verl", "skyrl"]:
            check = checks[name]
            if name != "stdlib" and not gold.get("checks") and gold["env"] not in job["adapter_envs"]:
                continue
            try:
                result = asyncio.run(check(url, gold)) if inspect.iscoroutinefunction(check) else check(url, gold)
                print(json.dumps({"check": name, "env": gold["env"], "task": gold["taskId"], "expected": gold["expectedReward"], **result}), flush=True)
            except Exception as error:
                import traceback

                print(json.dumps({"check": name, "env": gold["env"], "task": gold["taskId"], "error": traceback.format_exc()}), flush=True)


if __name__ == "__main__":
    main()

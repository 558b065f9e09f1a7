"""Extracts the facts Rollout Lab's engine adapters rely on from a checkout of TRL, verl or SkyRL, as JSON:
class and function signatures of the files the adapters subclass or call, the config keys an engine accepts, and a
few behaviours read off the source (which methods TRL exposes as tools, what verl's agent loop calls, where SkyRL
closes an env). Names and signatures only — no code is copied. The result is vendored as
tests/fixtures/engines/<engine>/facts.json, which tests/integration/engine-contracts.test.ts and the adapters'
stand-ins (env_server_examples.py) check against.

    python3 scripts/engine-facts.py verl /path/to/verl-checkout > tests/fixtures/engines/verl/facts.json

The checkout may be a bare git directory (read at HEAD) or a work tree. Standard library only.
"""
import ast
import json
import os
import re
import subprocess
import sys


class Repo:
    def __init__(self, path):
        self.path = path
        self.bare = not os.path.isdir(os.path.join(path, ".git")) and os.path.isfile(os.path.join(path, "HEAD"))

    def git(self, *args):
        where = ["--git-dir", self.path] if self.bare else ["-C", self.path]
        return subprocess.run(["git", *where, *args], check=True, capture_output=True, text=True).stdout

    def read(self, rel):
        if self.bare:
            return self.git("show", f"HEAD:{rel}")
        with open(os.path.join(self.path, rel)) as f:
            return f.read()

    def commit(self):
        return self.git("rev-parse", "HEAD").strip()


def signature(fn):
    a = fn.args
    names = [p.arg for p in a.posonlyargs + a.args]
    if a.vararg:
        names.append("*" + a.vararg.arg)
    names += [p.arg for p in a.kwonlyargs]
    if a.kwarg:
        names.append("**" + a.kwarg.arg)
    return ("async " if isinstance(fn, ast.AsyncFunctionDef) else "") + f"{fn.name}({', '.join(names)})"


def classes(source, wanted=None):
    """class name -> {bases, methods: {name: signature}, fields: [annotated class attributes]}"""
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and (wanted is None or node.name in wanted):
            out[node.name] = {
                "bases": [ast.unparse(b) for b in node.bases],
                "methods": {f.name: signature(f) for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))},
                "fields": [f.target.id for f in node.body if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name)],
                "decorators": [ast.unparse(d) for d in node.decorator_list],
            }
    return out


def functions(source, wanted):
    return {n.name: signature(n) for n in ast.parse(source).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in wanted}


def attribute_calls(source, within_class):
    """Names called as `<something>.<name>(...)` inside a class: what an agent loop calls on its collaborators."""
    tree = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == within_class)
    return sorted({n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)})


def yaml_keys(text):
    """Dotted keys of a plain block-style YAML mapping (indentation only; enough for verl's generated config)."""
    keys, stack = [], []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#") or line.lstrip().startswith("- "):
            continue
        m = re.match(r"^(\s*)(['\"]?)([A-Za-z0-9_]+)\2:(.*)$", line)  # 'n': 1 is quoted (YAML 1.1's n = false)
        if not m:
            continue
        indent = len(m.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, m.group(3)))
        keys.append(".".join(k for _, k in stack))
    return sorted(set(keys))


def yaml_kinds(text):
    """Dotted key -> the kind of its default (bool, int, float, str, list, null, mapping) in a block-style YAML file."""
    kinds, stack = {}, []
    for line in text.splitlines():
        m = re.match(r"^(\s*)(['\"]?)([A-Za-z0-9_]+)\2:\s*(.*)$", line)
        if not m or line.lstrip().startswith("#"):
            continue
        indent = len(m.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, m.group(3)))
        v = m.group(4).split(" #")[0].strip()
        kind = ("mapping" if v == "" else "null" if v in ("null", "~") else "bool" if v in ("true", "false", "True", "False")
                else "int" if re.fullmatch(r"-?\d+", v) else "float" if re.fullmatch(r"-?[\d.]+(e-?\d+)?", v)
                else "list" if v.startswith("[") else "str")
        kinds[".".join(k for _, k in stack)] = kind
    return kinds


def yaml_required(text):
    """Dotted keys whose value is OmegaConf's ??? (mandatory: the engine refuses to start without them)."""
    keys = yaml_keys(text)
    required, stack = [], []
    for line in text.splitlines():
        m = re.match(r"^(\s*)(['\"]?)([A-Za-z0-9_]+)\2:\s*(.*)$", line)
        if not m or line.lstrip().startswith("#"):
            continue
        indent = len(m.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, m.group(3)))
        if m.group(4).strip() == "???":
            required.append(".".join(k for _, k in stack))
    return sorted(k for k in required if k in keys)


def dataclass_keys(source, root, annotations=None):
    """Dotted keys of nested dataclasses from a root class (a field typed as another class of the file nests);
    `annotations`, when given, gets each key's type annotation as written."""
    cls = {n.name: n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)}
    keys = []

    def walk(name, prefix, depth):
        for f in cls[name].body:
            if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name):
                key = prefix + f.target.id
                keys.append(key)
                if annotations is not None:
                    annotations[key] = ast.unparse(f.annotation)
                nested = [n for n in re.findall(r"[A-Za-z_]+", ast.unparse(f.annotation)) if n in cls]
                if nested and depth < 6:
                    walk(nested[0], key + ".", depth + 1)

    walk(root, "", 0)
    return sorted(set(keys))


def licence(repo):
    text = repo.read("LICENSE")
    return "Apache-2.0" if "Apache License" in text and "Version 2.0" in text else text.splitlines()[0]


def trl(repo):
    trainer = repo.read("trl/trainer/grpo_trainer.py")
    config = repo.read("trl/trainer/grpo_config.py")
    base = repo.read("trl/trainer/base_config.py")
    init = ast.parse(trainer)
    grpo_trainer = next(n for n in init.body if isinstance(n, ast.ClassDef) and n.name == "GRPOTrainer")
    init_fn = next(f for f in grpo_trainer.body if isinstance(f, ast.FunctionDef) and f.name == "__init__")
    # environment_factory: the trainer lists an instance's methods; which names are not offered as tools
    m = re.search(r'if member_name == "reset":.*?elif member_name == "get_reward":.*?elif not member_name\.startswith\("(_)"\)', trainer, re.S)
    return {
        "engine": "trl",
        "files": {
            "trl/trainer/grpo_trainer.py": {"GRPOTrainer.__init__": signature(init_fn)},
            "trl/trainer/grpo_config.py": {"GRPOConfig.bases": classes(config, {"GRPOConfig"})["GRPOConfig"]["bases"]},
            "trl/trainer/base_config.py": {"_BaseConfig.bases": classes(base, {"_BaseConfig"})["_BaseConfig"]["bases"]},
        },
        "config_class": "GRPOConfig",
        # GRPOConfig -> _BaseConfig -> transformers' TrainingArguments (another repository): see training_arguments.json
        "config_keys": sorted(classes(config, {"GRPOConfig"})["GRPOConfig"]["fields"] + classes(base, {"_BaseConfig"})["_BaseConfig"]["fields"]),
        # TrainingArguments' fields live in transformers; the keywords TRL's own GRPO tests pass to GRPOConfig are
        # evidence they are accepted (the tests construct the config), so those are recorded too
        "config_keys_used_in_tests": sorted(
            {
                k.arg
                for n in ast.walk(ast.parse(repo.read("tests/test_grpo_trainer.py")))
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "GRPOConfig"
                for k in n.keywords
                if k.arg
            }
        ),
        "environment_factory": {
            "not_tools": ["reset", "get_reward"] if m else [],
            "private_prefix": m.group(1) if m else None,
            "none_reward_masked": "unscorable_mask" in trainer and "torch.nan" in trainer,
        },
    }


def verl(repo):
    tool_loop = repo.read("verl/experimental/agent_loop/tool_agent_loop.py")
    schemas = repo.read("verl/tools/schemas.py")
    reward = repo.read("verl/trainer/ppo/reward.py")
    naive = repo.read("verl/experimental/reward_loop/reward_manager/naive.py")
    return {
        "engine": "verl",
        "files": {
            "verl/interactions/base.py": classes(repo.read("verl/interactions/base.py"), {"BaseInteraction"}),
            "verl/tools/base_tool.py": classes(repo.read("verl/tools/base_tool.py"), {"BaseTool"}),
            "verl/tools/schemas.py": classes(schemas, {"ToolResponse", "OpenAIFunctionToolSchema", "OpenAIFunctionPropertySchema"}),
            "verl/experimental/agent_loop/agent_loop.py": functions(repo.read("verl/experimental/agent_loop/agent_loop.py"), {"register"}),
            "verl/experimental/agent_loop/tool_agent_loop.py": classes(tool_loop, {"ToolAgentLoop"}),
            "verl/trainer/ppo/reward.py": functions(reward, {"get_custom_reward_fn", "load_reward_manager"}),
        },
        "tool_schema": {"OpenAIFunctionPropertySchema": classes(schemas, {"OpenAIFunctionPropertySchema"})["OpenAIFunctionPropertySchema"]["fields"]},
        "tool_agent_loop_calls": attribute_calls(tool_loop, "ToolAgentLoop"),
        "custom_reward_function_keys": sorted(set(re.findall(r'reward_fn_config\.get\("([a-z_]+)"', reward))),
        "compute_score_kwargs": sorted(set(re.findall(r"\b(data_source|solution_str|ground_truth|extra_info)=", naive))),
        "extra_info_merges_tool_extra_fields": 'get("tool_extra_fields"' in naive,
        "config_keys": yaml_keys(repo.read("verl/trainer/config/_generated_ppo_trainer.yaml")),
        "config_kinds": yaml_kinds(repo.read("verl/trainer/config/_generated_ppo_trainer.yaml")),
        "required_keys": yaml_required(repo.read("verl/trainer/config/_generated_ppo_trainer.yaml")),
    }


def skyrl(repo):
    annotations = {}
    env = repo.read("skyrl-gym/skyrl_gym/envs/base_text_env.py")
    generator = repo.read("skyrl/train/generators/skyrl_gym_generator.py")
    loop = ast.parse(generator)
    gen_cls = next(n for n in loop.body if isinstance(n, ast.ClassDef) and n.name == "SkyRLGymGenerator")
    agent_loop = next(f for f in gen_cls.body if isinstance(f, ast.AsyncFunctionDef) and f.name == "agent_loop")
    # is env.close awaited inside a finally (or except) of agent_loop, or only on the normal path?
    close_guarded = any(
        "env.close" in ast.unparse(stmt)
        for t in ast.walk(agent_loop)
        if isinstance(t, ast.Try)
        for stmt in t.finalbody + [s for h in t.handlers for s in h.body]
    )
    return {
        "engine": "skyrl",
        "files": {
            "skyrl-gym/skyrl_gym/envs/base_text_env.py": classes(env, {"BaseTextEnv", "BaseTextEnvStepOutput"}),
            "skyrl-gym/skyrl_gym/envs/registration.py": functions(repo.read("skyrl-gym/skyrl_gym/envs/registration.py"), {"register", "make"}),
            "skyrl/train/generators/skyrl_gym_generator.py": {"SkyRLGymGenerator.agent_loop": signature(agent_loop)},
        },
        "generator": {
            "sums_step_rewards": "per_step_rewards.append((step_reward" in generator,
            "close_after_exception": close_guarded,
            # a custom env's env_config is an attribute of environment.skyrl_gym, which a registered env is not
            "custom_env_config_by_getattr": "getattr(self.skyrl_gym_cfg, env_class, dict())" in generator,
        },
        "entrypoint": functions(repo.read("skyrl/train/entrypoints/main_base.py"), {"main", "skyrl_entrypoint"})
        | {"BasePPOExp": classes(repo.read("skyrl/train/entrypoints/main_base.py"), {"BasePPOExp"})["BasePPOExp"]["methods"].get("run", ""),
           "BasePPOExp.get_generator": classes(repo.read("skyrl/train/entrypoints/main_base.py"), {"BasePPOExp"})["BasePPOExp"]["methods"].get("get_generator", "")},
        "generator_input": {k: v["fields"] for k, v in classes(repo.read("skyrl/train/generators/base.py"), {"GeneratorInput", "BatchMetadata"}).items()},
        "config_keys": dataclass_keys(repo.read("skyrl/train/config/config.py"), "SkyRLTrainConfig", annotations),
        "config_types": annotations,
    }


def main():
    engine, path = sys.argv[1], sys.argv[2]
    repo = Repo(path)
    facts = {"trl": trl, "verl": verl, "skyrl": skyrl}[engine](repo)
    facts = {
        "source": {"trl": "https://github.com/huggingface/trl", "verl": "https://github.com/volcengine/verl", "skyrl": "https://github.com/NovaSky-AI/SkyRL"}[engine],
        "commit": repo.commit(),
        "licence": licence(repo),
        "note": "Facts (names, signatures, config keys) extracted by scripts/engine-facts.py; no code of the engine is copied.",
        **facts,
    }
    json.dump(facts, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

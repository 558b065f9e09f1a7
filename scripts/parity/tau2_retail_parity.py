"""Parity fixtures for the τ²-bench retail domain, computed by τ²-bench's own Python code.

Replays every retail task's gold actions in τ²'s real environment (the way its EnvironmentEvaluator builds the gold
database) and writes what a TypeScript test must reproduce: each call's tool output and error flag, the final
database hash (τ²'s get_db_hash), and a few deliberate variations (gold pairs listed in reverse order; perturbed tool
calls for the ACTION check). The output holds figures only, no τ² code.

Usage (τ²'s checkout from `fetch github:sierra-research/tau2-bench`, its src/ and data/ on disk):
  TAU2_SRC=/tmp/tau2src python3 scripts/parity/tau2_retail_parity.py > tests/fixtures/parity/tau2-retail.json

τ²'s retail domain needs only pydantic 2 at runtime; its other imports (logging, CLI, LLM clients, pandas) are
stubbed so that it runs on a python3 without them.
"""
import copy
import hashlib
import importlib.abc
import importlib.machinery
import json
import os
import sys
from unittest import mock

SRC = os.environ.get("TAU2_SRC")
if not SRC:
    sys.exit("set TAU2_SRC to a tau2-bench checkout (with src/ and data/)")
os.environ.setdefault("TAU2_DATA_DIR", os.path.join(SRC, "data"))
sys.path.insert(0, os.path.join(SRC, "src"))


class _StubMissing(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Any top-level module this python3 lacks becomes a MagicMock (never reached on the retail code path)."""

    def find_spec(self, name, path, target=None):
        top = name.split(".")[0]
        if top == "tau2" or top in sys.builtin_module_names:
            return None
        if importlib.machinery.PathFinder.find_spec(top) is not None:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        module = mock.MagicMock()
        module.__path__ = []
        module.__spec__ = spec
        module.__name__ = spec.name
        return module

    def exec_module(self, module):
        pass


sys.meta_path.append(_StubMissing())

from tau2.data_model.message import ToolCall  # noqa: E402
from tau2.data_model.tasks import Action  # noqa: E402
from tau2.domains.retail.environment import get_environment, get_tasks  # noqa: E402


def compact(content):
    """Long outputs (product listings, order details) are kept as their sha256 and first 200 characters."""
    if len(content) <= 400:
        return content
    return {"sha256": hashlib.sha256(content.encode()).hexdigest(), "head": content[:200]}


def replay(task, actions):
    """The gold environment of τ²'s EnvironmentEvaluator, with each call's output kept."""
    env = get_environment()
    init = task.initial_state
    if init is not None and (init.initialization_data or init.initialization_actions or init.message_history):
        env.set_state(init.initialization_data, init.initialization_actions, init.message_history or [])
    calls = []
    for i, action in enumerate(actions):
        msg = env.get_response(
            ToolCall(id=str(i), name=action.name, arguments=action.arguments, requestor=action.requestor)
        )
        calls.append({"name": action.name, "arguments": action.arguments, "content": compact(msg.content), "error": msg.error})
    return calls, env.get_db_hash()


def reversed_pairs(action):
    """The same item swap with its (item, new item) pairs listed in reverse order."""
    args = copy.deepcopy(action.arguments)
    args["item_ids"] = list(reversed(args["item_ids"]))
    args["new_item_ids"] = list(reversed(args["new_item_ids"]))
    return Action(action_id=action.action_id + "-reversed", name=action.name, arguments=args)


def action_probes(action):
    """Tool calls near a gold action, each with τ²'s compare_with_tool_call verdict (arguments kept when not the gold's)."""
    args = action.arguments
    probes = [("same", dict(args))]
    keys = list(args.keys())
    if keys:
        probes.append(("first argument dropped", {k: v for k, v in args.items() if k != keys[0]}))
        first = args[keys[0]]
        changed = first + "x" if isinstance(first, str) else ([] if isinstance(first, list) else 0)
        probes.append(("first argument changed", {**args, keys[0]: changed}))
    probes.append(("extra argument", {**args, "note": "extra"}))
    list_keys = [k for k, v in args.items() if isinstance(v, list) and len(v) > 1]
    if list_keys:
        probes.append(("list reversed", {**args, list_keys[0]: list(reversed(args[list_keys[0]]))}))
    out = []
    for label, call_args in probes:
        call = ToolCall(id="p", name=action.name, arguments=call_args, requestor="assistant")
        probe = {"label": label, "matches": action.compare_with_tool_call(call)}
        if call_args != args:
            probe["arguments"] = call_args
        out.append(probe)
    other = ToolCall(id="p", name=action.name + "_other", arguments=dict(args), requestor="assistant")
    out.append({"label": "other tool", "name": other.name, "matches": action.compare_with_tool_call(other)})
    return out


def main():
    initial_hash = get_environment().get_db_hash()
    tasks = []
    probes = {}
    for task in get_tasks(None):
        actions = (task.evaluation_criteria.actions if task.evaluation_criteria else None) or []
        calls, db_hash = replay(task, actions)
        entry = {"id": task.id, "calls": calls, "db_hash": db_hash}
        swaps = [a for a in actions if a.name == "modify_pending_order_items" and len(a.arguments.get("item_ids", [])) > 1]
        if swaps:
            varied = [reversed_pairs(a) if a in swaps else a for a in actions]
            _, entry["db_hash_pairs_reversed"] = replay(task, varied)
        for a in actions:  # one entry per distinct gold action (many tasks share them)
            key = json.dumps([a.name, a.arguments, a.compare_args], sort_keys=True)
            if key not in probes:
                probes[key] = {"name": a.name, "arguments": a.arguments, "compare_args": a.compare_args, "probes": action_probes(a)}
        tasks.append(entry)
    json.dump(
        {
            "source": "sierra-research/tau2-bench, domains/retail, replayed by scripts/parity/tau2_retail_parity.py",
            "tau2_commit": os.environ.get("TAU2_COMMIT", "unknown"),
            "initial_db_hash": initial_hash,
            "tasks": tasks,
            "action_probes": list(probes.values()),
        },
        sys.stdout,
        indent=None,
        ensure_ascii=False,
    )


if __name__ == "__main__":
    main()

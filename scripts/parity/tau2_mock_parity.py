"""Parity fixtures for the τ²-bench mock domain, computed by τ²-bench's own Python code.

For every mock task: the database hash once the task's initial state is set (τ²'s Environment.set_state:
initialization data, initialization actions, the initial conversation's write calls), each gold call's tool output,
the hash after the gold actions (τ²'s get_db_hash), and every agent-side env assertion's result on that database.
A few extra calls (errors, an unknown tool, a missing argument) follow the gold ones on the same database.

Usage (τ²'s checkout from `fetch github:sierra-research/tau2-bench`, its src/ and data/ on disk):
  TAU2_SRC=/tmp/tau2src python3 scripts/parity/tau2_mock_parity.py > tests/fixtures/parity/tau2-mock.json
"""
import json
import os
import sys

SRC = os.environ.get("TAU2_SRC")
if not SRC:
    sys.exit("set TAU2_SRC to a tau2-bench checkout (with src/ and data/)")
os.environ.setdefault("TAU2_DATA_DIR", os.path.join(SRC, "data"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


class _AddictDict(dict):
    """Stands in for the `addict` package (not on this python3) with the one behaviour τ²'s update_db relies on:
    update() merges nested dicts recursively and replaces everything else."""

    def __init__(self, data=None):
        super().__init__()
        for k, v in (data or {}).items():
            self[k] = _AddictDict(v) if isinstance(v, dict) else v

    def update(self, other):
        for k, v in other.items():
            if k in self and isinstance(self[k], dict) and isinstance(v, dict):
                self[k].update(v)
            else:
                self[k] = _AddictDict(v) if isinstance(v, dict) else v

    def to_dict(self):
        return {k: v.to_dict() if isinstance(v, _AddictDict) else v for k, v in self.items()}


import types  # noqa: E402

sys.modules["addict"] = types.SimpleNamespace(Dict=_AddictDict)  # before τ²'s modules import it

from tau2_retail_parity import _StubMissing  # noqa: E402,F401  (installs the stub finder, puts τ² on sys.path)

from tau2.data_model.message import ToolCall  # noqa: E402
from tau2.domains.mock.environment import get_environment, get_tasks  # noqa: E402

EXTRA_CALLS = [
    ("create_task", {"user_id": "user_9", "title": "Nobody's task"}),
    ("update_task_status", {"task_id": "task_99", "status": "completed"}),
    ("create_task", {"user_id": "user_1"}),
    ("delete_task", {"task_id": "task_1"}),
    ("get_users", {}),
    ("create_task", {"user_id": "user_1", "title": "Après-ski ☃", "description": None}),
]


def main():
    out = []
    for task in get_tasks(None):
        env = get_environment()
        init = task.initial_state
        if init is not None:
            env.set_state(init.initialization_data, init.initialization_actions, init.message_history or [])
        initial_hash = env.get_db_hash()
        calls = []
        actions = (task.evaluation_criteria.actions if task.evaluation_criteria else None) or []
        for i, a in enumerate(actions):
            m = env.get_response(ToolCall(id=str(i), name=a.name, arguments=a.arguments, requestor=a.requestor))
            calls.append({"name": a.name, "arguments": a.arguments, "content": m.content, "error": m.error})
        db_hash = env.get_db_hash()
        assertions = []
        for a in (task.evaluation_criteria.env_assertions if task.evaluation_criteria else None) or []:
            if a.env_type != "assistant":
                continue
            assertions.append({"func_name": a.func_name, "arguments": a.arguments, "assert_value": a.assert_value, "met": env.run_env_assertion(a, raise_assertion_error=False)})
        extra = []
        for name, args in EXTRA_CALLS:
            m = env.get_response(ToolCall(id="x", name=name, arguments=args, requestor="assistant"))
            extra.append({"name": name, "arguments": args, "content": m.content, "error": m.error})
        out.append({"id": task.id, "initial_db_hash": initial_hash, "calls": calls, "db_hash": db_hash, "assertions": assertions, "extra_calls": extra, "db_hash_after_extra": env.get_db_hash()})
    json.dump({"source": "sierra-research/tau2-bench, domains/mock, replayed by scripts/parity/tau2_mock_parity.py", "tau2_commit": os.environ.get("TAU2_COMMIT", "unknown"), "tasks": out}, sys.stdout, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()

"""pass^k parity fixtures, computed by τ²-bench's own `pass_hat_k` and `is_successful`.

Both functions are taken from τ²'s src/tau2/metrics/agent_metrics.py as written (the module itself imports pandas,
loguru and τ²'s data model, which this python3 lacks, so only those two function definitions are executed, by ast).
The per-run aggregation follows τ²'s get_metrics_df / get_tasks_pass_hat_k / compute_metrics: success per trial,
max k = the fewest trials of any task, pass^k per task then the mean over tasks, avg reward over every trial.

Usage (τ²'s checkout from `fetch github:sierra-research/tau2-bench`, the file on disk):
  TAU2_METRICS=/tmp/agent_metrics.py python3 scripts/parity/tau2_pass_hat_k.py > tests/fixtures/parity/tau2-pass-hat-k.json
"""
import ast
import json
import math
import os
import sys

path = os.environ.get("TAU2_METRICS")
if not path:
    sys.exit("set TAU2_METRICS to tau2-bench's src/tau2/metrics/agent_metrics.py")
tree = ast.parse(open(path).read())
wanted = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in ("pass_hat_k", "is_successful")]
scope = {"math": math}
exec(compile(ast.Module(body=wanted, type_ignores=[]), path, "exec"), scope)
pass_hat_k, is_successful = scope["pass_hat_k"], scope["is_successful"]

table = []
for n in range(1, 17):
    for c in range(0, n + 1):
        for k in range(1, n + 1):
            table.append({"n": n, "c": c, "k": k, "passHatK": pass_hat_k(n, c, k)})
# A few large ones, where C(n, k) no longer fits a double exactly.
for n, c, k in [(40, 31, 20), (64, 50, 32), (100, 73, 10)]:
    table.append({"n": n, "c": c, "k": k, "passHatK": pass_hat_k(n, c, k)})

# A mixed agent: per task, the rewards of its trials (0.5 is partial credit, not a success).
mixed = {
    "task-a": [1.0, 1.0, 1.0, 1.0],
    "task-b": [1.0, 0.0, 1.0, 0.0],
    "task-c": [0.0, 0.0, 0.0, 0.0],
    "task-d": [1.0, 0.5, 1.0, 1.0],
    "task-e": [1.0, 1.0, 0.0, 1.0],
}
max_k = min(len(r) for r in mixed.values())
pass_hat_ks = {}
for k in range(1, max_k + 1):
    per_task = [pass_hat_k(len(r), sum(1 for x in r if is_successful(x)), k) for r in mixed.values()]
    pass_hat_ks[k] = sum(per_task) / len(per_task)
all_rewards = [x for r in mixed.values() for x in r]

json.dump(
    {
        "source": "sierra-research/tau2-bench src/tau2/metrics/agent_metrics.py (pass_hat_k, is_successful), commit a2c024725189473d2d7cea3a5cfdbcc67478e41f; MIT licence",
        "table": table,
        "mixed": {
            "trials": mixed,
            "successes": {t: [is_successful(x) for x in r] for t, r in mixed.items()},
            "passHatKs": pass_hat_ks,
            "avgReward": sum(all_rewards) / len(all_rewards),
        },
    },
    sys.stdout,
    separators=(",", ":"),
)

"""Scenarios for tests/integration/logging-clients.test.ts: a training loop using clients/python/rollout_lab_logger.py.

Usage: python3 client_scenarios.py SCENARIO URL TOKEN [ARG]. Each prints one JSON line of results last; warnings go to
stderr. Standard library only, except the "numpy" scenario, which needs numpy and says so when it is missing.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "clients", "python"))
from rollout_lab_logger import RolloutLabLogger  # noqa: E402

scenario, url, token = sys.argv[1], sys.argv[2], sys.argv[3]
arg = sys.argv[4] if len(sys.argv) > 4 else None


class Scalar:
    """numpy's scalar protocol (np.float32(0.5).item() -> 0.5), without numpy."""

    def __init__(self, value):
        self.value = value

    def item(self):
        return self.value


class Array:
    """numpy's array protocol (np.array([...]).tolist() -> [...]), without numpy."""

    def __init__(self, values):
        self.values = values

    def tolist(self):
        return [v.tolist() if isinstance(v, Array) else v for v in self.values]


def sample(step, k, reward, size=0):
    return {"id": "%d-%d" % (step, k), "step": step, "group": "p%d" % (k % 4), "reward": reward,
            "conversation": [{"role": "user", "content": "question %d" % (k % 4) + " pad" * (size // 4)},
                             {"role": "assistant", "content": "answer %d" % k}]}


def loop(rl, steps, per_step, first_step=0, scalar=Scalar, array=Array, size=0):
    for step in range(first_step, first_step + steps):
        rewards = [((step + k) % 3) / 2 for k in range(per_step)]
        rl.log_step(scalar(step), {"reward/mean": scalar(sum(rewards) / per_step), "loss": float("nan"),
                                   "rewards": array(rewards), "kl": scalar(0.01)})
        rl.log_samples([sample(step, k, scalar(r), size) for k, r in enumerate(rewards)])


def out(**values):
    print(json.dumps(values), flush=True)


if scenario == "stream":
    rl = RolloutLabLogger(url, token, flush_interval=0.2)
    rl.create_run(name="python stream", source="trl", config={"lr": Scalar(1e-6)}, policy_model="Qwen2.5-0.5B")
    loop(rl, int(arg or 100), 16)
    stats = rl.finish()
    out(run_id=rl.run_id, **stats)

elif scenario == "numpy":
    try:
        import numpy as np
    except ImportError:
        out(skipped="numpy is not installed for %s" % sys.executable)
        sys.exit(0)
    rl = RolloutLabLogger(url, token, flush_interval=0.2)
    rl.create_run(name="python numpy", source="trl")
    for step in range(np.int64(3)):
        rewards = np.array([0.0, 0.5, 1.0, 1.0], dtype=np.float32)
        rl.log_step(np.int64(step), {"reward/mean": rewards.mean(), "rewards": rewards, "count": np.int32(4),
                                     "ok": np.bool_(True), "nan": np.float32("nan")})
        rl.log_samples([{"id": "%d-%d" % (step, k), "step": np.int64(step), "reward": r, "advantage": r - rewards.mean(),
                         "rewardComponents": {"correct": r}, "task": {"ids": np.arange(3)},
                         "conversation": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a%d" % k}]}
                        for k, r in enumerate(rewards)])
    rl.log_samples([{"id": "nan-reward", "step": 0, "reward": np.float32("nan"),
                     "conversation": [{"role": "user", "content": "q"}]}])
    out(run_id=rl.run_id, numpy=np.__version__, **rl.finish())

elif scenario == "outage":
    # The server refuses or drops every data request until the test says it is back (a line on stdin).
    rl = RolloutLabLogger(url, token, flush_interval=0.1, max_backoff=0.3)
    rl.create_run(name="python outage", source="verl")
    loop(rl, 20, 8)
    out(loop_done=True, run_id=rl.run_id, **rl.stats)
    sys.stdin.readline()
    out(run_id=rl.run_id, **rl.finish())

elif scenario == "gone":
    rl = RolloutLabLogger(url, token, flush_interval=0.1, max_backoff=0.2, retry_for=1.5, max_queue_bytes=20_000)
    rl.create_run(name="python gone", source="verl")
    loop(rl, 10, 10, size=1000)
    out(loop_done=True)
    out(run_id=rl.run_id, **rl.finish(timeout=30))

elif scenario == "resume":
    # Run twice with the same key: the first time exits without finish() (a crash after the last log call).
    rl = RolloutLabLogger(url, token, flush_interval=0.2)
    rl.create_run(name="python resume", source="art", run_key=arg, resume="allow")
    first = rl.start_step
    loop(rl, 5, 4, first_step=first)
    if first == 0:
        out(run_id=rl.run_id, resumed=rl.resumed, start_step=first)
        sys.exit(0)  # atexit flushes the queue
    out(run_id=rl.run_id, resumed=rl.resumed, start_step=first, **rl.finish())

elif scenario == "upsert":
    rl = RolloutLabLogger(url, token, flush_interval=0.1)
    rl.create_run(name="python upsert", source="trl")
    rl.log_samples([sample(0, k, 0.0) for k in range(4)])
    rl.flush()
    late = sample(0, 2, 1.0)
    late["reasoning"] = "judged again"
    bad = sample(0, 7, 1.0)
    bad["reward"] = "high"
    rl.log_samples([sample(0, 0, 0.0), late, bad, sample(0, 5, 0.5, size=6000)] + [sample(1, k, 1.0, 6000) for k in range(200)])
    out(run_id=rl.run_id, **rl.finish())

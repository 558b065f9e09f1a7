"""Parity fixture for BFCL's API classes off the gold path: random trajectories (scripts/parity/bfcl_trajectories.py)
executed turn by turn by gorilla's executor on gorilla's classes and by AWorld EnvTuning's executor on its fork of them.

For each trajectory: gorilla's result of every call (the text the model sees) and, after the last turn, each involved
class's public state in this project's shape (GorillaFileSystem: its tree; the others: their public attributes but
long_context), as canonical JSON; for EnvTuning only the results and states that differ from gorilla's, keyed
"turn.call". Texts over 48 characters and states are kept as sha256 prefixes, also with integral floats printed as
integers (35.0 -> 35). The output holds figures only, no code from either repository.

Usage (gorilla from `fetch github:ShishirPatil/gorilla`, AWorld-RL from `fetch github:inclusionAI/AWorld-RL`):
  GORILLA_BFCL=/tmp/gorilla/berkeley-function-call-leaderboard ENVTUNING=/tmp/aworld/EnvTuning \\
    python3 scripts/parity/bfcl_nongold_parity.py > tests/fixtures/parity/bfcl-nongold.json
"""
import hashlib
import itertools
import json
import os
import random
import re
import sys

from bfcl_trajectories import FUNC_DOC_FILES, load_func_docs, trajectories
from stub_missing import stub_missing_modules

GORILLA = os.environ.get("GORILLA_BFCL")
ENVTUNING = os.environ.get("ENVTUNING")
if not GORILLA or not ENVTUNING:
    sys.exit("set GORILLA_BFCL to gorilla's berkeley-function-call-leaderboard folder and ENVTUNING to AWorld-RL's EnvTuning")
sys.path[:0] = [GORILLA, ENVTUNING]
stub_missing_modules("bfcl_eval")

import importlib  # noqa: E402
import inspect  # noqa: E402

from bfcl_env.multi_turn_utils import execute_multi_turn_func_call as envtuning_execute  # noqa: E402
from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING  # noqa: E402
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import execute_multi_turn_func_call as gorilla_execute  # noqa: E402

DATA = os.path.join(GORILLA, "bfcl_eval/data")
CATEGORIES = ["base", "miss_param", "miss_func", "long_context"]
PER_ENTRY = int(os.environ.get("PER_ENTRY", "1"))
TEXT_LIMIT = int(os.environ.get("TEXT_LIMIT", "48"))  # longer texts are kept as hashes
INTEGRAL_FLOAT = re.compile(r"(?<![\w.])(-?\d+)\.0(?![\d])")
_names = itertools.count()


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def compact(text):
    # A message printing a set stays in full: the order Python prints a set in is salted per process.
    if len(text) <= TEXT_LIMIT or "Must be one of {" in text:
        return text
    return {"sha256": sha(text), "sha256_int_floats": sha(INTEGRAL_FLOAT.sub(r"\1", text))}


def plain(value):
    """A Python attribute value as JSON data in this project's state shape."""
    if hasattr(value, "contents") and hasattr(value, "name"):
        return {"name": value.name, "contents": {k: plain(v) for k, v in value.contents.items()}}
    if hasattr(value, "content") and hasattr(value, "name"):
        return {"name": value.name, "content": value.content}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, set):
        return sorted(plain(v) for v in value)
    return value


def state_of(cls, instance):
    if cls == "GorillaFileSystem":
        return plain(instance.root)
    return {k: plain(v) for k, v in vars(instance).items() if not k.startswith("_") and k != "long_context"}


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def read_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def run(execute, entry, calls):
    """The trajectory on fresh instances of one system: results per turn, states after the last turn."""
    model = f"nongold{next(_names)}"
    results, instances = [], {}
    for turn in calls:
        res, instances = execute(
            turn, entry["initial_config"], entry["involved_classes"], model, entry["id"],
            long_context="long_context" in entry["id"], is_evaL_run=True,
        )
        # power's results are kept in full: the test tells a last-digit difference of pow from others.
        results.append([r if call.startswith("power(") else compact(r) for call, r in zip(turn, res)])
    states = {cls: sha(INTEGRAL_FLOAT.sub(r"\1", canonical(state_of(cls, inst)))) for cls, inst in instances.items()}
    return {"results": results, "states": states}


def gorilla_signatures():
    """Each public method's parameters in order, from gorilla's classes, for calls made positional."""
    out = {}
    for cls, module in CLASS_FILE_PATH_MAPPING.items():
        if cls in FUNC_DOC_FILES:
            for name, fn in inspect.getmembers(getattr(importlib.import_module(module), cls), inspect.isfunction):
                if not name.startswith("_"):
                    out[name] = list(inspect.signature(fn).parameters)[1:]
    return out


def main():
    rng = random.Random(20261127)
    docs = load_func_docs(DATA)
    signatures = gorilla_signatures()
    out = []
    for category in CATEGORIES:
        name = f"BFCL_v4_multi_turn_{category}.json"
        answers = {a["id"]: a["ground_truth"] for a in read_lines(os.path.join(DATA, "possible_answer", name))}
        for entry in read_lines(os.path.join(DATA, name)):
            # Every entry gets well-typed trajectories; one in four also a mistyped one.
            gt = answers[entry["id"]]
            plays = [(False, c) for c in trajectories(entry, gt, docs, rng, PER_ENTRY, signatures=signatures)]
            if rng.random() < 0.25:
                plays += [(True, c) for c in trajectories(entry, gt, docs, rng, 1, mistyped=True, signatures=signatures)]
            for mistyped, calls in plays:
                gorilla, envtuning = run(gorilla_execute, entry, calls), run(envtuning_execute, entry, calls)
                out.append({"id": entry["id"], **({"mistyped": True} if mistyped else {}), "calls": calls, "gorilla": gorilla, "envtuning": {
                    "results": {f"{t}.{i}": r for t, turn in enumerate(envtuning["results"]) for i, r in enumerate(turn)
                                if r != gorilla["results"][t][i]},
                    "states": {cls: h for cls, h in envtuning["states"].items() if h != gorilla["states"][cls]},
                }})
    json.dump({
        "source": "ShishirPatil/gorilla bfcl_eval (Apache-2.0) and inclusionAI/AWorld-RL EnvTuning bfcl_env (MIT): executors and API "
                  f"classes, run by scripts/parity/bfcl_nongold_parity.py on python {sys.version.split()[0]}",
        "gorilla_commit": os.environ.get("GORILLA_COMMIT", "unknown"),
        "envtuning_commit": os.environ.get("ENVTUNING_COMMIT", "unknown"),
        "trajectories": out,
    }, sys.stdout, ensure_ascii=False, separators=(",", ":"))


if __name__ == "__main__":
    main()

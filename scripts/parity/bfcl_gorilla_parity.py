"""Parity fixtures for BFCL multi-turn, computed by gorilla's own Python code (bfcl_eval's executor and checker).

For every entry of the categories given: the execution result of each ground-truth call, turn by turn (gorilla's
execute_multi_turn_func_call, the strings the model and the response checker see), and gorilla's
multi_turn_checker verdict on a few model outputs derived from the ground truth (itself; a turn left out; calls
made early in a turn whose ground truth is empty; a call dropped). The output holds figures only, no gorilla code.

Usage (gorilla's checkout from `fetch github:ShishirPatil/gorilla`, berkeley-function-call-leaderboard on disk):
  GORILLA_BFCL=/tmp/gorilla/berkeley-function-call-leaderboard \\
    python3 scripts/parity/bfcl_gorilla_parity.py base miss_param miss_func > tests/fixtures/parity/bfcl-gorilla.json
"""
import hashlib
import itertools
import json
import os
import re
import sys

from stub_missing import stub_missing_modules

ROOT = os.environ.get("GORILLA_BFCL")
if not ROOT:
    sys.exit("set GORILLA_BFCL to gorilla's berkeley-function-call-leaderboard folder")
sys.path.insert(0, ROOT)


stub_missing_modules("bfcl_eval")

from bfcl_eval.constants.default_prompts import DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING  # noqa: E402
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker  # noqa: E402
from bfcl_eval.utils import populate_test_cases_with_predefined_functions  # noqa: E402
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import execute_multi_turn_func_call  # noqa: E402

_names = itertools.count()


def fresh_name(prefix):
    """gorilla caches API instances by model name and entry id: every replay gets its own name."""
    return f"{prefix}{next(_names)}"


INTEGRAL_FLOAT = re.compile(r"(?<![\w.])(-?\d+)\.0(?![\d])")


def compact(result):
    """Long results as sha256 and head; also the sha256 with integral floats printed as integers (35.0 -> 35),
    which is how results compare where the TypeScript port cannot tell a Python float from an int."""
    if len(result) <= 120:
        return result
    sha = lambda s: hashlib.sha256(s.encode()).hexdigest()  # noqa: E731
    return {"sha256": sha(result), "sha256_int_floats": sha(INTEGRAL_FLOAT.sub(r"\1", result)), "head": result[:60]}


def read_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def apply(gt, op):
    """A model output near the ground truth, one step per turn (a list of call strings; [] for no step):
    gt: the ground truth itself; leave_out: turn k makes no call; early_and_again: turn k (empty ground truth)
    already makes turn k+1's calls, which turn k+1 makes again; move_early: turn k makes them and turn k+1 none;
    drop_first_call: turn k without its first call."""
    turns = [list(t) for t in gt]
    k = op.get("turn")
    if op["op"] == "leave_out":
        turns[k] = []
    elif op["op"] == "early_and_again":
        turns[k] = list(gt[k + 1])
    elif op["op"] == "move_early":
        turns[k], turns[k + 1] = list(gt[k + 1]), []
    elif op["op"] == "drop_first_call":
        turns[k] = turns[k][1:]
    return [[t] if t else [] for t in turns]


def variants(gt):
    out = [{"op": "gt"}]
    nonempty = [i for i, t in enumerate(gt) if t]
    if nonempty:
        out.append({"op": "leave_out", "turn": nonempty[0]})
    for e, turn in enumerate(gt):
        if not turn and e + 1 < len(gt) and gt[e + 1]:
            out += [{"op": "early_and_again", "turn": e}, {"op": "move_early", "turn": e}]
    several = [i for i, t in enumerate(gt) if len(t) > 1]
    if several:
        out.append({"op": "drop_first_call", "turn": several[-1]})
    return out


def main(categories):
    entries = []
    for category in categories:
        name = f"BFCL_v4_multi_turn_{category}.json"
        questions = read_lines(os.path.join(ROOT, "bfcl_eval/data", name))
        answers = {a["id"]: a["ground_truth"] for a in read_lines(os.path.join(ROOT, "bfcl_eval/data/possible_answer", name))}
        for entry in questions:
            gt = answers[entry["id"]]
            model = fresh_name("gt")
            results = []
            for turn in gt:
                res, _ = execute_multi_turn_func_call(
                    turn, entry["initial_config"], entry["involved_classes"], model, entry["id"],
                    long_context="long_context" in entry["id"], is_evaL_run=True,
                )
                results.append([compact(r) for r in res])
            verdicts = []
            for op in variants(gt):
                v = multi_turn_checker(apply(gt, op), gt, entry, entry["id"].rsplit("_", 1)[0], fresh_name("m"))
                verdicts.append({**op, "valid": v["valid"], "error_type": v.get("error_type")})
            record = {"id": entry["id"], "results": results, "verdicts": verdicts}
            if "missed_function" in entry:
                # miss_func: the user message gorilla's prompting handlers send at the turn that reveals functions.
                [populated] = populate_test_cases_with_predefined_functions([json.loads(json.dumps(entry))])
                record["reveal"] = {
                    turn: compact(DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING.format(functions=docs))
                    for turn, docs in populated["missed_function"].items()
                }
            entries.append(record)
    json.dump({"source": "ShishirPatil/gorilla berkeley-function-call-leaderboard, executed by scripts/parity/bfcl_gorilla_parity.py",
               "gorilla_commit": os.environ.get("GORILLA_COMMIT", "unknown"), "entries": entries}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main(sys.argv[1:] or ["base"])

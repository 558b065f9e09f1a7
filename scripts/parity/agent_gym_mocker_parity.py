"""Parity fixture for the sgd environment's tool mocker, computed by agent_gym's own mocker.

agent_gym (github.com/SebastianBosma/agent_gym, MIT) answers a service call with `LLMToolMocker.call`, the mocker
its `create_environment` builds by default: exact parameters -> fuzzy overlap >= 0.8 -> LLM mocker -> fuzzy
overlap >= 0.5 -> the method's first recording -> []. This script builds that mocker over the vendored SGD sample
(tests/fixtures/shared/data/sgd/train), perturbs every recorded call in a few seeded ways (a value swapped for
another recorded one, case, a prefix, a parameter dropped, renamed or added, every value unseen, a differently
written time, an unknown method) and writes, per call, the stage that answered it and which recording's results
came back (by dialogue id and turn index), or the results when they are no recording's. The output holds figures
only, no agent_gym code.

Run offline, as it is here: `dspy` is not installed, so it is stubbed (stub_missing.py). The LLM stage is still
reached: `_generate_with_llm` is agent_gym's, and without GOOGLE_API_KEY its own try/except returns [] (what
agent_gym does with no key), after which its lower fuzzy stage and first-recording fallback answer. A wrapper
only logs that the stage was reached.

Usage (agent_gym from `fetch github:SebastianBosma/agent_gym`, checked out to a folder):
  AGENT_GYM=/tmp/agent_gym AGENT_GYM_COMMIT=<sha> python3 scripts/parity/agent_gym_mocker_parity.py \\
    > tests/fixtures/parity/agent-gym-mocker.json
"""
import json
import os
import random
import sys

AGENT_GYM = os.environ.get("AGENT_GYM")
if not AGENT_GYM:
    sys.exit("set AGENT_GYM to an agent_gym checkout")
HERE = os.path.dirname(os.path.abspath(__file__))
SGD = os.path.join(HERE, "..", "..", "tests", "fixtures", "shared", "data", "sgd")
sys.path[:0] = [HERE, AGENT_GYM]
os.environ.pop("GOOGLE_API_KEY", None)

from stub_missing import stub_missing_modules  # noqa: E402

stub_missing_modules("src")
from src.data.sgd_loader import SGDLoader  # noqa: E402
from src.tool_mocker.sgd_mocker import LLMToolMocker  # noqa: E402

loader = SGDLoader(SGD)
mocker = LLMToolMocker.from_loader(loader, "train", use_llm_fallback=True)

# Where each recording came from, by the identity of its results list (what `call` returns for a recorded answer).
origin = {}
for dialogue in loader.load_dialogues("train"):
    for i, turn in enumerate(dialogue.turns):
        if turn.service_call and turn.service_results is not None:
            origin[id(turn.service_results)] = {"dialogue_id": dialogue.dialogue_id, "turn": i}

stages = []
original_exact, original_fuzzy, original_llm = mocker._exact_match, mocker._fuzzy_match, mocker._generate_with_llm


def logged_exact(method, parameters):
    found = original_exact(method, parameters)
    stages.append(("exact", bool(found)))
    return found


def logged_fuzzy(method, parameters, min_match_ratio=0.5):
    found = original_fuzzy(method, parameters, min_match_ratio=min_match_ratio)
    stages.append((f"fuzzy>={min_match_ratio}", bool(found)))
    return found


def logged_llm(method, parameters, num_results=3):
    found = original_llm(method, parameters, num_results)
    stages.append(("llm", bool(found)))
    return found


mocker._exact_match, mocker._fuzzy_match, mocker._generate_with_llm = logged_exact, logged_fuzzy, logged_llm


def answer(method, parameters):
    del stages[:]
    results = mocker.call(method, parameters)
    reached = [name for name, _ in stages]
    answered = next((name for name, hit in stages if hit), None)
    if answered is None:
        answered = "first" if results else "none"
    where = origin.get(id(results))
    return {"reached": reached, "stage": answered, "recording": where, **({} if where else {"results": results})}


rng = random.Random(20261201)
recorded = [(d.dialogue_id, i, t.frames, t.service_call) for d in loader.load_dialogues("train") for i, t in enumerate(d.turns) if t.service_call]
values_by_slot = {}
for _, _, _, call in recorded:
    for k, v in call["parameters"].items():
        values_by_slot.setdefault((call["method"], k), set()).add(v)

TIMES = {"17:30": "5:30 pm", "18:00": "6 pm", "19:00": "7 pm", "12:00": "noon"}


def perturb(kind, params, method):
    p = dict(params)
    keys = sorted(p)
    k = rng.choice(keys) if keys else None
    if kind == "as_recorded":
        return p
    if kind == "other_value" and k:
        others = sorted(values_by_slot[(method, k)] - {p[k]})
        if not others:
            return None
        p[k] = rng.choice(others)
    elif kind == "upper_case" and k:
        p[k] = p[k].upper()
    elif kind == "prefix" and k:
        if len(p[k]) < 4:
            return None
        p[k] = p[k][: len(p[k]) // 2]
    elif kind == "drop_one" and k:
        del p[k]
    elif kind == "unknown_parameter":
        p[rng.choice(["notes", "seating", "occasion"])] = rng.choice(["window seat", "birthday", "quiet table"])
    elif kind == "renamed_parameter" and k:
        p[k + "_name"] = p.pop(k)
    elif kind == "all_unseen":
        p = {key: f"zz{rng.randint(100, 999)}" for key in keys}
    elif kind == "spoken_time":
        if p.get("time") not in TIMES:
            return None
        p["time"] = TIMES[p["time"]]
    else:
        return None
    return p


KINDS = ["other_value", "upper_case", "prefix", "drop_one", "unknown_parameter", "renamed_parameter", "all_unseen", "spoken_time"]
cases = []
for dialogue_id, turn, _, call in recorded:
    method, params = call["method"], call["parameters"]
    chosen = ["as_recorded"] if rng.random() < 0.3 else []
    chosen += rng.sample(KINDS, 3)
    for kind in chosen:
        p = perturb(kind, params, method)
        if p is None:
            continue
        cases.append({"from": {"dialogue_id": dialogue_id, "turn": turn}, "kind": kind, "method": method, "parameters": p, **answer(method, p)})
for method in ["FindRestaurant", "BookTable"]:
    cases.append({"from": None, "kind": "unknown_method", "method": method, "parameters": {"city": "San Jose"}, **answer(method, {"city": "San Jose"})})

json.dump({"source": "SebastianBosma/agent_gym src/tool_mocker/sgd_mocker.py LLMToolMocker (create_environment's default mocker), "
           "over tests/fixtures/shared/data/sgd/train, run by scripts/parity/agent_gym_mocker_parity.py",
           "agent_gym_commit": os.environ.get("AGENT_GYM_COMMIT", "unknown"), "licence": "agent_gym: MIT (its README); SGD data: CC BY-SA 4.0",
           "cases": cases}, sys.stdout, ensure_ascii=False, indent=1)

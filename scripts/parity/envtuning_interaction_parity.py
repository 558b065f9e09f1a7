"""Parity fixture for AWorld EnvTuning's BFCL interaction, computed by its own code.

Scripted policy messages are played through EnvTuning's `MultiTurnFunctionCallInteraction.generate_response`
(env_tuning/interaction/new_multi_turn_fc.py, on its bfcl_env fork of BFCL's API classes), one episode per script:
the ground truth with its first turn that has calls answered without calling, and a random play mixing perturbed calls
(scripts/parity/bfcl_trajectories.py), format errors, six format errors in a row (a forced quit), call names Python
cannot parse (`my-func`), an empty call list, and `<answer>`s holding a JSON call list. Recorded per message: its
score code (-1 / -2 / -3 or a turn's 0 / 1), whether the episode ended and the text returned; per episode, its
`bfcl_reward.compute_score` / `format_reward.compute_score` figures. The output holds figures only, no EnvTuning code.

The next user question is a placeholder `<question k>` (EnvTuning's data pipeline writes it; its text is not under test).

Usage (AWorld-RL from `fetch github:inclusionAI/AWorld-RL`, gorilla for the data):
  GORILLA_BFCL=/tmp/gorilla/berkeley-function-call-leaderboard ENVTUNING=/tmp/aworld/EnvTuning \\
    python3 scripts/parity/envtuning_interaction_parity.py > tests/fixtures/parity/envtuning-interaction.json
"""
import ast
import asyncio
import hashlib
import itertools
import json
import os
import random
import re
import sys
import types

from bfcl_trajectories import load_func_docs, trajectories

GORILLA, ENVTUNING = os.environ.get("GORILLA_BFCL"), os.environ.get("ENVTUNING")
if not GORILLA or not ENVTUNING:
    sys.exit("set GORILLA_BFCL to gorilla's berkeley-function-call-leaderboard folder and ENVTUNING to AWorld-RL's EnvTuning")
sys.path[:0] = [ENVTUNING]

# EnvTuning's interaction subclasses verl's BaseInteraction, whose constructor only keeps the config.
for name in ["verl", "verl.interactions"]:
    sys.modules[name] = types.ModuleType(name)
base = types.ModuleType("verl.interactions.base")


class BaseInteraction:
    def __init__(self, config):
        self.config = config


base.BaseInteraction = BaseInteraction
sys.modules["verl.interactions.base"] = base

from env_tuning.bfcl_reward import compute_score as progress_score  # noqa: E402
from env_tuning.format_reward import compute_score as format_score  # noqa: E402
from env_tuning.interaction.new_multi_turn_fc import MultiTurnFunctionCallInteraction  # noqa: E402

DATA = os.path.join(GORILLA, "bfcl_eval/data")
CATEGORIES = ["base", "miss_param", "miss_func", "long_context"]
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../..")
# The entries a plain clone of this project has (tests/fixtures/shared/data/bfcl, tests/fixtures/bfcl-gorilla): the
# interaction's rules do not depend on which entry is played, and the fixture stays small.
SAMPLES = [os.path.join(REPO, "tests/fixtures/shared/data/bfcl/BFCL_v4_multi_turn_base.json")] + [
    os.path.join(REPO, f"tests/fixtures/bfcl-gorilla/BFCL_v4_multi_turn_{c}.json") for c in CATEGORIES[1:]]
INTEGRAL_FLOAT = re.compile(r"(?<![\w.])(-?\d+)\.0(?![\d])")
FORMAT_ERRORS = [
    "I will list the files.",
    "<think>a</think><think>b</think><answer>x</answer>",
    "<think>t</think><tool_call>[]</tool_call><answer>x</answer>",
    "<think>t</think>",
    "<think>t</think> extra <answer>x</answer>",
    "<think>t</think><answer>a</answer><answer>b</answer>",
    "<think>t</think><tool_call>{not json</tool_call>",
]
ODD_NAMES = ["my-func", "class", "unknown_function", " pwd ", "GorillaFileSystem.ls", "kill"]
_ids = itertools.count()


def to_json_calls(call_strings):
    """BFCL call strings as EnvTuning's JSON tool calls (keyword arguments only, as its format has)."""
    out = []
    for text in call_strings:
        node = ast.parse(text, mode="eval").body
        out.append({"name": node.func.id, "arguments": {k.arg: ast.literal_eval(k.value) for k in node.keywords}})
    return out


def tool(calls):
    return f"<think>t</think>\n<tool_call>{json.dumps(calls)}</tool_call>"


def answer(text="Done."):
    return f"<think>t</think>\n<answer>{text}</answer>"


def random_turn(rng, gt_turn, calls):
    """Messages for one user turn of a random play."""
    if not gt_turn:
        return [answer()] if rng.random() < 0.6 else [tool(to_json_calls(calls[:1]) or [{"name": "ls", "arguments": {}}])]
    if rng.random() < 0.15:
        return [answer()]  # the turn skipped
    messages = []
    json_calls = to_json_calls(calls)
    while json_calls:
        take = rng.randint(1, len(json_calls))
        chunk, json_calls = json_calls[:take], json_calls[take:]
        roll = rng.random()
        if roll < 0.1:
            messages.append(rng.choice(FORMAT_ERRORS))
        if roll > 0.93:
            messages.append(answer(json.dumps(chunk)))  # an <answer> holding calls
        else:
            messages.append(tool(chunk))
    roll = rng.random()
    if roll < 0.05:
        messages.append(tool([{"name": rng.choice(ODD_NAMES), "arguments": {"a": 1}}]))
    elif roll < 0.08:
        messages.append(tool([]))
    elif roll < 0.11:
        messages.extend(rng.choice(FORMAT_ERRORS) for _ in range(6))
    elif roll < 0.13:
        messages.append(tool([{"name": "ls", "arguments": {"a": {}}}]))
    messages.append(answer())
    return messages


def scripts(entry, gt, docs, rng):
    """The gold play with its first turn that has calls answered without calling, and a random play."""
    nonempty = [i for i, t in enumerate(gt) if t]
    skipped = nonempty[0] if nonempty else None
    gold = [[answer()] if i == skipped or not t else [tool(to_json_calls(t)), answer()] for i, t in enumerate(gt)]
    plays = [("gold_skip", gold)]
    for calls in trajectories(entry, gt, docs, rng, 1):
        plays.append(("random", [random_turn(rng, gt[i], calls[i]) for i in range(len(gt))]))
    return plays


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()[:12]


TEXT_LIMIT = int(os.environ.get("TEXT_LIMIT", "160"))  # longer texts are kept as hashes


def compact(text):
    """A long execution feedback as hashes: as is, and with integral floats printed as integers."""
    if len(text) <= TEXT_LIMIT or not text.startswith("Here are the function's execution results"):
        return text
    return {"sha256": sha(text), "sha256_int_floats": sha(INTEGRAL_FLOAT.sub(r"\1", text))}


async def play(entry, gt, turns):
    interaction = MultiTurnFunctionCallInteraction({})
    instance = f"et{next(_ids)}"
    questions = [f"<question {k}>" for k in range(1, len(gt))]
    await interaction.start_interaction(
        instance_id=instance, id=entry["id"], initial_config=json.dumps(entry["initial_config"]),
        involved_classes=entry["involved_classes"], ground_truth=gt, processed_question=list(questions), question=questions,
    )
    steps, codes = [], []
    for message in [m for turn in turns for m in turn]:
        done, content, score, _ = await interaction.generate_response(instance, [{"role": "assistant", "content": message}], id=entry["id"])
        steps.append({"message": message, "score": score, "done": done, "content": compact(content)})
        codes.append(score)
        if done:
            break
    fmt = format_score({"user_turn_rewards": codes}, gt)
    return {"steps": steps, "progress": progress_score({"user_turn_rewards": codes}, gt)["score"], "format": fmt["score"],
            "format_reward": fmt["format_reward"], "tool_call_reward": fmt["tool_call_reward"]}


def read_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


async def main():
    rng = random.Random(20261128)
    docs = load_func_docs(DATA)
    episodes = []
    sample_ids = {e["id"] for f in SAMPLES for e in read_lines(f)}
    for category in CATEGORIES:
        name = f"BFCL_v4_multi_turn_{category}.json"
        answers = {a["id"]: a["ground_truth"] for a in read_lines(os.path.join(DATA, "possible_answer", name))}
        for entry in read_lines(os.path.join(DATA, name)):
            if entry["id"] not in sample_ids:
                continue
            gt = answers[entry["id"]]
            for kind, turns in scripts(entry, gt, docs, rng):
                episodes.append({"id": entry["id"], "kind": kind, **(await play(entry, gt, turns))})
    return {
        "source": "inclusionAI/AWorld-RL EnvTuning (MIT): env_tuning/interaction/new_multi_turn_fc.py, bfcl_reward.py, format_reward.py, run by scripts/parity/envtuning_interaction_parity.py",
        "envtuning_commit": os.environ.get("ENVTUNING_COMMIT", "unknown"),
        "gorilla_commit": os.environ.get("GORILLA_COMMIT", "unknown"),
        "episodes": episodes,
    }


if __name__ == "__main__":
    real_stdout, sys.stdout = sys.stdout, sys.stderr  # EnvTuning prints as it goes
    fixture = asyncio.run(main())
    json.dump(fixture, real_stdout, ensure_ascii=False, separators=(",", ":"))

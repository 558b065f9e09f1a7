"""Parity fixture for `runs export --layout simia`: the files Simia-RL's own GeneralSimulated env writes for a run.

Simia-RL (Simia-Agent-Training, Simia-RL/subtrees/ragen/ragen/env/simulated_General/env.py, MIT) saves one record per
judged episode with `_save_trajectory_record`, under its `training_record_dir`, in a folder per dataset sample and a
file named after the environment slot, the slot's episode counter and the time. This script plays a small GRPO run
through that class — 4 environment slots in groups of 2 (Simia's `group_size` kwarg), 2 training episodes each, so
Simia's own sampler picks the samples — with a stand-in OpenAI client that answers from a script, and a clock that
gives each episode a known time (so file names and timestamps can be compared exactly). The 8 episodes cover an
ordinary one (a tool call, then the user ends it), an unparsable judgement, the step limit, and non-ASCII text;
a 9th is a validation episode (Simia's `mode="val"`).

It writes what a TypeScript test must reproduce: the dataset, each episode's placement and script, and every file
Simia wrote — its path relative to the record folder, its text — with each GPT prompt (Simia's prose) replaced by its
sha256. No Simia code or prose is copied.

Usage (Simia from `fetch github:xinyuangui2/Simia-Agent-Training`, extracted to a folder):
  SIMIA=/tmp/simia SIMIA_COMMIT=<sha> python3 scripts/parity/simia_layout_parity.py \\
    > tests/fixtures/parity/simia-layout.json
"""
import contextlib
import datetime as real_datetime
import hashlib
import json
import os
import sys
import tempfile
import types
from pathlib import Path

SIMIA = os.environ.get("SIMIA")
if not SIMIA:
    sys.exit("set SIMIA to a Simia-Agent-Training checkout")
RAGEN = os.path.join(SIMIA, "Simia-RL", "subtrees", "ragen")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, RAGEN]

from stub_missing import stub_missing_modules  # noqa: E402

stub_missing_modules("ragen")
for name in ("ragen", "ragen.env"):  # packages without their __init__, which imports every other environment
    pkg = types.ModuleType(name)
    pkg.__path__ = [os.path.join(RAGEN, *name.split("."))]
    sys.modules[name] = pkg
from ragen.env.simulated_General import env as simia_env  # noqa: E402
from ragen.env.simulated_General.config import SimulatedEnvConfig  # noqa: E402

NOW = [None]


class Clock(real_datetime.datetime):
    """Simia's `datetime`, reading the episode's scripted time (Simia reads `utcnow()` for every call and the file)."""

    @classmethod
    def utcnow(cls):
        return NOW[0]


simia_env.datetime = Clock


class ScriptedClient:
    def __init__(self, replies):
        self.replies = list(replies)
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self.create))

    def create(self, **params):
        message = types.SimpleNamespace(content=self.replies.pop(0))
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])


def sample(i, system, opening, answer):
    return {"system": system, "conversations": [{"from": "human", "value": opening}, {"from": "gpt", "value": answer}]}


DATASET = [
    sample(0, "You are a retail agent. Verify the user before any change.", "Where is order #W100?", "It has shipped."),
    sample(1, "You are an airline agent.", "  Change my flight to Friday.\n", "Done."),
    sample(2, "You are a bank agent.\nNever share a balance by e-mail.", "What is my balance?", "It is $12."),
    sample(3, "Sie sind ein Kundendienst-Agent. Antworten Sie höflich — 東京 🚚", "Wo ist meine Bestellung\u2028#W200?", "Unterwegs."),
    sample(4, "You are a calendar agent.", "Book a meeting at 10:00.", "Booked."),
]
CALL = '<tool_call>\n{"name": "get_order", "arguments": {"order_id": "#W100"}}\n</tool_call>'
KINDS = {
    "ordinary": {"actions": [CALL, "It has shipped and arrives Friday."],
                 "replies": ['{"status": "shipped", "eta": "Friday"}', "Great, thanks! [TERMINATE]",
                             '{"reasoning": "Looked the order up and told the user.", "reward": 1}']},
    "unparsable judgement": {"actions": ["Let me check that for you."],
                             "replies": ["Thanks. [TERMINATE]", "The agent was polite; I would say it passed."]},
    "step limit": {"actions": ["Let me check.", "Still checking.", "One more moment."],
                   "replies": ["Sure.", "Okay?", '{"reasoning": "Never answered.", "reward": 0}']},
    "unicode": {"actions": ["  Ihre Bestellung 🚚 ist unterwegs — Größe M, 東京\u2028Lager.\t"],
                "replies": ["<think>gut</think>\nDanke schön! 👍 \"Perfekt\" [TERMINATE]",
                            '{"reasoning": "Höflich und korrekt ✓ — \\u00e9 \\"quoted\\"", "reward": 1.0}']},
}
GROUP_SIZE, SLOTS, STEPS, MAX_STEPS = 2, 4, 2, 3
ORDER = ["ordinary", "unparsable judgement", "step limit", "unicode"]
BASE = real_datetime.datetime(2025, 3, 4, 5, 6, 7, 250000)


def sha(text):
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def hide_prompts(record, text):
    for call in record["gpt_call_history"]:
        text = text.replace(json.dumps(call["prompt"], ensure_ascii=False), json.dumps(sha(call["prompt"])))
        call["prompt"] = sha(call["prompt"])
    return record, text


def main():
    episodes, files = [], []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data.json"
        data.write_text(json.dumps(DATASET, ensure_ascii=False), encoding="utf-8")
        records = Path(tmp) / "training_record"
        with contextlib.redirect_stdout(sys.stderr):
            envs = [simia_env.SimulatedGeneralEnv(SimulatedEnvConfig(
                env_id=str(slot), train_data_path=str(data), training_record_dir=str(records), api_type="openai",
                max_simulation_steps=MAX_STEPS), group_size=GROUP_SIZE) for slot in range(SLOTS)]
        for step in range(STEPS):
            for slot, env in enumerate(envs):
                n = step * SLOTS + slot
                kind = ORDER[(slot + step) % len(ORDER)]
                # One episode at whole seconds: Python's isoformat() then leaves out the fraction.
                NOW[0] = BASE + real_datetime.timedelta(seconds=61 * n, microseconds=-250000 if n == 5 else 125000 * n)
                env.client = ScriptedClient(KINDS[kind]["replies"])
                with contextlib.redirect_stdout(sys.stderr):
                    env.reset(mode="train")
                    for action in KINDS[kind]["actions"]:
                        if env.step(action)[2]:
                            break
                episodes.append({"split": "train", "step": step, "slot": slot, "group": slot // GROUP_SIZE,
                                 "index_in_group": slot % GROUP_SIZE, "sample_index": env.sample_index, "kind": kind,
                                 "time": NOW[0].isoformat()})
        # A validation episode after the two steps (Simia's mode="val": the slot's fixed sample, no episode counted).
        env = envs[1]
        NOW[0] = BASE + real_datetime.timedelta(seconds=61 * STEPS * SLOTS, microseconds=1000)
        env.client = ScriptedClient(KINDS["ordinary"]["replies"])
        with contextlib.redirect_stdout(sys.stderr):
            env.reset(mode="val")
            for action in KINDS["ordinary"]["actions"]:
                if env.step(action)[2]:
                    break
        episodes.append({"split": "eval", "step": STEPS, "slot": 1, "group": 0, "index_in_group": 1,
                         "sample_index": env.sample_index, "kind": "ordinary", "time": NOW[0].isoformat()})
        for path in sorted(records.rglob("*")):
            rel = path.relative_to(records).as_posix()
            if path.is_dir():
                files.append({"path": rel + "/", "dir": True})
                continue
            text = path.read_text(encoding="utf-8")
            files.append({"path": rel, "text": hide_prompts(json.loads(text), text)[1]})
    return {"source": "xinyuangui2/Simia-Agent-Training, Simia-RL/subtrees/ragen/ragen/env/simulated_General "
            "(SimulatedGeneralEnv._save_trajectory_record), run by scripts/parity/simia_layout_parity.py",
            "simia_commit": os.environ.get("SIMIA_COMMIT", "unknown"), "licence": "Simia-Agent-Training: MIT (its LICENSE)",
            "group_size": GROUP_SIZE, "max_steps": MAX_STEPS, "dataset": DATASET, "kinds": KINDS, "episodes": episodes,
            "files": files}


json.dump(main(), sys.stdout, ensure_ascii=False, indent=1)

"""Parity fixture for `rollout-lab sgd optimize-user`, computed by agent_gym's own simulated-user optimisation.

agent_gym (scripts/optimize_simulated_user.py with src/agent/simulated_user.py, MIT) optimises its DSPy user module
on examples cut from SGD dialogues (`extract_user_training_examples`), scores a simulated message against the real
one with `compute_user_simulation_similarity` (its metric, `create_user_simulation_metric`), evaluates on examples of
the dev split and trains on examples of the train split. What needs no LLM is compared:

- `metric`: agent_gym's metric on (candidate, real message) pairs — real user turns of the vendored SGD sample, each
  against itself perturbed (casing, punctuation, unicode, whitespace, repeated and shuffled words), against another
  turn, and empty texts — through `create_user_simulation_metric()`;
- `examples`: what `extract_user_training_examples` makes of every dialogue of the sample (per dialogue, each
  example's kind — initial or response —, its history lines, and the real message and assistant response as short
  sha256s);
- `selection`: which dialogues and examples `main()` evaluates on and trains on, with its default flags, on the
  sample cut into a train split (its first 28 dialogues) and a dev split (the last 12): `evaluate_simulated_user` and
  `optimize_bootstrap` are replaced by recorders (no model is called); an example is named [dialogue id, its index
  among that dialogue's examples].

dspy is not installed: a minimal stand-in provides `dspy.Example` (fields and `with_inputs`) and the names the modules
subclass; the code under test is agent_gym's. No agent_gym code is copied.

Usage: AGENT_GYM=/tmp/agym AGENT_GYM_COMMIT=<sha> python3 scripts/parity/agent_gym_user_opt_parity.py \\
  > tests/fixtures/parity/agent-gym-user-opt.json
"""
import contextlib
import hashlib
import importlib.util
import json
import os
import random
import sys
import tempfile
import types
import unicodedata
from pathlib import Path
from types import SimpleNamespace

AGENT_GYM = os.environ.get("AGENT_GYM")
if not AGENT_GYM:
    sys.exit("set AGENT_GYM to an agent_gym checkout")
HERE = os.path.dirname(os.path.abspath(__file__))
SGD = os.path.join(HERE, "..", "..", "tests", "fixtures", "shared", "data", "sgd")
sys.path[:0] = [HERE, AGENT_GYM]


class Example:
    """dspy.Example's part that agent_gym's extraction uses: named fields, `with_inputs` returning the example."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def with_inputs(self, *names):
        self._inputs = names
        return self


class _Any:
    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return _Any()


class _Stand(types.ModuleType):
    def __getattr__(self, name):  # Signature, Module, InputField, Predict, Prediction, LM, configure, ...
        return _Any


dspy = _Stand("dspy")
dspy.Example = Example
teleprompt = _Stand("dspy.teleprompt")
dspy.teleprompt = teleprompt
sys.modules["dspy"], sys.modules["dspy.teleprompt"] = dspy, teleprompt

from stub_missing import stub_missing_modules  # noqa: E402

stub_missing_modules("src")
from src.agent.simulated_user import create_user_simulation_metric, extract_user_training_examples  # noqa: E402
from src.data.sgd_loader import SGDLoader  # noqa: E402

metric = create_user_simulation_metric()


def score(candidate, real):
    return metric(SimpleNamespace(user_message=real), SimpleNamespace(user_message=candidate))


def perturbations(text, other, rng):
    words = text.split()
    shuffled = words[:]
    rng.shuffle(shuffled)
    return {
        "same": text,
        "upper": text.upper(),
        "title": text.title(),
        "no punctuation": "".join(c for c in text if c.isalnum() or c.isspace()),
        "punctuation spaced": " ".join(text.replace(",", " ,").replace(".", " .").replace("?", " ?").split()),
        "trailing !": text.rstrip(".?!") + "!",
        "words repeated": " ".join(w for w in words for _ in (0, 1)),
        "first word x3": " ".join([words[0]] * 3 + words[1:]) if words else text,
        "shuffled": " ".join(shuffled),
        "half": " ".join(words[: max(1, len(words) // 2)]),
        "tabs and newlines": "\t".join(words[:3]) + "\n" + " ".join(words[3:]),
        "nbsp": "\u00a0".join(words),
        "ideographic space": "\u3000".join(words),
        "zero-width space": "\u200b".join(words),
        "U+001F separators": "\x1f".join(words),
        "NEL separators": "\x85".join(words),
        "BOM": "\ufeff" + text,
        "accents NFD": unicodedata.normalize("NFD", text.replace("e", "é")),
        "accents NFC": unicodedata.normalize("NFC", text.replace("e", "é")),
        "fullwidth": "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text),
        "dotted I": text.replace("i", "İ"),
        "sharp s": text + " Straße STRASSE",
        "final sigma": text + " ΟΔΟΣ οδος",
        "emoji": text + " 🙂👍",
        "curly apostrophe": text.replace("'", "\u2019"),
        "other turn": other,
        "empty candidate": "",
        "spaces only": "   ",
    }


def metric_pairs(dialogues):
    rng = random.Random(7)
    users = [t.utterance for d in dialogues for t in d.turns if t.speaker == "USER"]
    picked = rng.sample(users, 5)
    pairs = []
    for real in picked:
        for kind, cand in perturbations(real, rng.choice(users), rng).items():
            pairs.append({"kind": kind, "candidate": cand, "real": real})
    pairs += [{"kind": "empty real", "candidate": picked[0], "real": ""}, {"kind": "both empty", "candidate": "", "real": ""},
              {"kind": "spaces real", "candidate": "a b", "real": "  \t "}, {"kind": "punctuation only", "candidate": "?", "real": "?"},
              {"kind": "case of apostrophes", "candidate": "I'd LIKE it", "real": "i'd like IT."}]
    for i in range(40):  # random word soups over the sample's vocabulary, and random pairs of real turns
        vocab = " ".join(users).split()
        a = " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 12)))
        b = rng.choice(users) if i % 2 else " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 12)))
        pairs.append({"kind": "random", "candidate": a, "real": b})
    for p in pairs:
        p["score"] = score(p["candidate"], p["real"])
    return pairs


def short(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def examples_of(dialogues):
    """Per dialogue, its examples in order: [kind, history lines, sha256 of the real message, of the assistant response]."""
    out = []
    for d in dialogues:
        rows = []
        for ex in extract_user_training_examples([d]):
            response = getattr(ex, "assistant_response", None)
            history = getattr(ex, "conversation_history", None)
            assert list(ex._inputs) == (["user_goal", "conversation_history", "assistant_response"] if response else ["user_goal"])
            rows.append(["response" if response else "initial", len(history.split("\n")) if history else 0, short(ex.user_message),
                         short(response) if response else None])
        out.append({"dialogue_id": d.dialogue_id, "examples": rows})
    return out


def selection(dialogues_file):
    """main() with its default flags over a train / dev cut of the sample; the evaluation and the optimiser record."""
    raw = json.loads(Path(dialogues_file).read_text())
    seen = {"evaluated": [], "trained": None}
    with tempfile.TemporaryDirectory() as tmp:
        for split, part in (("train", raw[:28]), ("dev", raw[28:])):
            (Path(tmp) / split).mkdir()
            (Path(tmp) / split / "dialogues_001.json").write_text(json.dumps(part))
            (Path(tmp) / split / "schema.json").write_text((Path(SGD) / "train" / "schema.json").read_text())
        spec = importlib.util.spec_from_file_location("optimize_simulated_user", os.path.join(AGENT_GYM, "scripts", "optimize_simulated_user.py"))
        script = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(script)

        def evaluate(module, evalset, metric_fn, num_samples=None):
            used = evalset[:num_samples] if num_samples else evalset
            seen["evaluated"].append([e.ref for e in used])
            return {"overall": 0.5, "initial": 0.5, "response": 0.5, "num_samples": len(used)}

        def optimize(module, trainset, metric_fn, max_demos=4):
            seen["trained"] = {"examples": [e.ref for e in trainset], "max_demos": max_demos}
            return SimpleNamespace(save=lambda path: None)

        original_extract = script.extract_user_training_examples

        def extract(dialogues, **kw):
            """agent_gym's extraction, dialogue by dialogue, each example tagged [dialogue id, its index among the dialogue's examples]."""
            out = []
            for d in dialogues:
                for k, ex in enumerate(original_extract([d], **kw)):
                    ex.ref = [d.dialogue_id, k]
                    out.append(ex)
            return out

        script.evaluate_simulated_user, script.optimize_bootstrap, script.extract_user_training_examples = evaluate, optimize, extract
        os.environ.setdefault("GOOGLE_API_KEY", "unused")
        sys.argv = ["optimize_simulated_user.py", "--data-path", tmp, "--output", os.path.join(tmp, "out", "user.json")]
        with contextlib.redirect_stdout(sys.stderr):
            script.main()
    return {"train_dialogues": [d["dialogue_id"] for d in raw[:28]], "dev_dialogues": [d["dialogue_id"] for d in raw[28:]],
            "evaluated_before": seen["evaluated"][0], "evaluated_after": seen["evaluated"][1], "trained": seen["trained"]}


loader = SGDLoader(SGD)
dialogues = loader.load_dialogues("train")
json.dump({"source": "SebastianBosma/agent_gym, scripts/optimize_simulated_user.py and src/agent/simulated_user.py, "
           "run by scripts/parity/agent_gym_user_opt_parity.py", "agent_gym_commit": os.environ.get("AGENT_GYM_COMMIT", "unknown"),
           "licence": "agent_gym: MIT", "data": "tests/fixtures/shared/data/sgd/train (vendored SGD sample)",
           "metric": metric_pairs(dialogues), "examples": examples_of(dialogues),
           "selection": selection(os.path.join(SGD, "train", "dialogues_001.json"))}, sys.stdout, ensure_ascii=False)

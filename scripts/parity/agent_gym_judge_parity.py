"""Parity fixture for the sgd environment's turn-judge verdict mapping, computed by agent_gym's own judge.

agent_gym's `LLMJudge.evaluate` (src/reward/llm_judge.py, MIT) asks two DSPy predictors for a turn's quality and,
for a turn with a service call, whether the tool was right and a 0-100 argument score; it maps their text fields to
a JudgeResult (`_parse_quality`, the "yes"/"true"/"1" test, float(args) / 100 clamped to [0, 1], 0.5 when not a
number) and scores it with `total_score`. This script runs that method over a grid of field forms, with the two
predictors replaced by ones that return the form (dspy is not installed and is stubbed, stub_missing.py; the
mapping code under test is agent_gym's). Our judge answers one JSON object whose fields hold these forms: a JSON
string is the field's text as DSPy would pass it, any other JSON value its JSON text (85 -> "85", true -> "true").
A field that is absent is a DSPy parse failure, which agent_gym's own try/except turns into "acceptable" (quality)
or no tool verdict. Output: the forms and, for each combination, agent_gym's quality, tool verdict, argument score
and total. No agent_gym code is copied.

Usage: AGENT_GYM=/tmp/agent_gym AGENT_GYM_COMMIT=<sha> python3 scripts/parity/agent_gym_judge_parity.py \\
  > tests/fixtures/parity/agent-gym-judge.json
"""
import json
import os
import sys
from types import SimpleNamespace

AGENT_GYM = os.environ.get("AGENT_GYM")
if not AGENT_GYM:
    sys.exit("set AGENT_GYM to an agent_gym checkout")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, AGENT_GYM]

from stub_missing import stub_missing_modules  # noqa: E402

stub_missing_modules("src")
from src.reward.llm_judge import LLMJudge  # noqa: E402

ABSENT = {"absent": True}  # a field the reply leaves out
QUALITY = ["excellent", "Good", " POOR ", "acceptable.", "inappropriate", "very good", "not good", "Excellent!",
           "GOOD - asks for the city", "poor/inappropriate", "appropriate", "great", "", "unknown", "mediocre", 3, None, ABSENT]
TOOL = ["yes", "Yes", " YES ", "no", "No", "true", "True", "1", "0", "false", "y", "yes.", "correct", "", True, False, 1, 0, None, ABSENT]
ARGS = ["85", "100", "0", " 70 ", "150", "-20", "85%", "0.85", "1e2", "1_000", "N/A", "", "ninety", "inf", "nan", "50.5",
        85, 85.5, 150, -5, 0, 1e2, True, None, ABSENT]


def text(form):
    return form if isinstance(form, str) else json.dumps(form)


def predictor(**fields):
    """A stand-in for a dspy.Predict: returns the fields, or raises like a DSPy parse failure when one is absent."""
    def predict(**_inputs):
        if any(v is ABSENT for v in fields.values()):
            raise ValueError("output field missing")
        return SimpleNamespace(**{k: text(v) for k, v in fields.items()})
    return predict


judge = LLMJudge()
judge._ensure_configured = lambda: None
call = {"name": "FindRestaurants", "args": {"city": "San Jose"}}


NO_CALL = object()


def evaluate(quality, tool=NO_CALL, args=None):
    judge._response_judge = predictor(quality=quality, reasoning="r")
    judge._tool_judge = predictor(correct_tool=tool, correct_args=args, reasoning="t")
    r = judge.evaluate(history=[], user_message="u", response="a", available_tools=[], tool_call=None if tool is NO_CALL else call)
    return {"quality": r.quality.value, "tool_correct": r.tool_correct, "args_score": r.tool_args_score, "total": r.total_score}


def form(v):
    return "<absent>" if v is ABSENT else v


without_call = [{"quality": form(q), **evaluate(q)} for q in QUALITY]
with_call = [[[evaluate(q, t, a)["total"] for a in ARGS] for t in TOOL] for q in QUALITY]
tool_verdicts = [[{k: v for k, v in evaluate("good", t, a).items() if k in ("tool_correct", "args_score")} for a in ARGS] for t in TOOL]
json.dump({"source": "SebastianBosma/agent_gym src/reward/llm_judge.py LLMJudge.evaluate, run by scripts/parity/agent_gym_judge_parity.py",
           "agent_gym_commit": os.environ.get("AGENT_GYM_COMMIT", "unknown"), "licence": "agent_gym: MIT (its README)",
           "absent": "<absent>", "quality_forms": [form(q) for q in QUALITY], "tool_forms": [form(t) for t in TOOL],
           "args_forms": [form(a) for a in ARGS], "without_call": without_call, "tool_verdicts": tool_verdicts,
           "with_call_totals": with_call}, sys.stdout, ensure_ascii=False)

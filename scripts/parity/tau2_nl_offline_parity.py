"""Parity fixture for τ² NL assertions with no LLM: which retail tasks τ²-bench's own code can score offline.

τ²'s `NLAssertionsEvaluator.calculate_reward` (evaluator/evaluator_nl_assertions.py) scores a task's natural-language
assertions only by asking an LLM (`tau2.utils.llm_utils.generate`). This script runs it on every retail task for an
agent that only says "Sorry, I can't help with that.", with `generate` replaced by one that fails as a machine with
no LLM does, and writes per task its reward basis, its assertions and τ²'s outcome: a reward (tasks without
assertions) or the error τ² stops with. A test then checks that offline we leave exactly those episodes unscored,
never passed. The output holds τ²'s data and outcomes only, no τ² code.

Usage (τ²'s checkout from `fetch github:sierra-research/tau2-bench`, its src/ and data/ on disk):
  TAU2_SRC=/tmp/tau2src TAU2_COMMIT=<sha> python3 scripts/parity/tau2_nl_offline_parity.py \\
    > tests/fixtures/parity/tau2-nl-offline.json
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tau2_retail_parity import _StubMissing  # noqa: E402,F401  (installs the stub finder, puts τ² on sys.path)

import tau2.evaluator.evaluator_nl_assertions as nl_module  # noqa: E402
from tau2.data_model.message import AssistantMessage, UserMessage  # noqa: E402
from tau2.domains.retail.environment import get_tasks  # noqa: E402

SAID = "Sorry, I can't help with that."


def no_llm(**_kwargs):
    raise ConnectionError("no LLM reachable (offline)")


nl_module.generate = no_llm

out = []
for task in get_tasks(None):
    criteria = task.evaluation_criteria
    trajectory = [UserMessage(role="user", content="Hi, I need help with my order."), AssistantMessage(role="assistant", content=SAID)]
    try:
        info = nl_module.NLAssertionsEvaluator.calculate_reward(task, trajectory)
        outcome = {"reward": info.reward}
    except Exception as e:  # τ² cannot score this task's NL assertions without an LLM
        outcome = {"raises": f"{type(e).__name__}: {e}"}
    out.append({"id": task.id, "reward_basis": [b.value for b in criteria.reward_basis] if criteria else [],
                "nl_assertions": (criteria.nl_assertions or []) if criteria else [], "nl_assertion_evaluator": outcome})
json.dump({"source": "sierra-research/tau2-bench, NLAssertionsEvaluator on domains/retail, run by scripts/parity/tau2_nl_offline_parity.py",
           "tau2_commit": os.environ.get("TAU2_COMMIT", "unknown"), "licence": "tau2-bench: MIT", "agent_said": SAID, "tasks": out},
          sys.stdout, ensure_ascii=False, indent=1)

"""Parity fixtures for UserRL's TauGym (retail and airline), computed by tau-bench's own Python environment.

TauGym (SalesforceAIResearch/UserRL, gyms/TauGym) runs tau-bench's environment (sierra-research/tau-bench, the first
τ-bench): its retail tools on its retail data, and its reward when the user ends the conversation: 1 when the database
equals the one the task's gold actions produce and every required output was said to the user, else 0. For every
task of the domain in TauGym's task file this script replays the gold actions through tau-bench's tools, records what each
returned, and the reward tau-bench's `calculate_reward` gives to a few plays: the gold actions with the outputs said;
without saying them; without the last write; the gold actions in reverse order. It also writes the tools' schemas
(what `[search] tools` lists). Figures only; no tau-bench code.

Usage (tau-bench from `fetch github:sierra-research/tau-bench`, UserRL from `fetch github:SalesforceAIResearch/UserRL`):
  TAU_BENCH=/tmp/taubench TAUGYM_TASKS=/tmp/userrl/gyms/TauGym/taugym/data/tau_test.json \\
    python3 scripts/parity/taugym_parity.py retail > tests/fixtures/parity/taugym-retail.json   (or airline)
With --tools it prints only the tools' schemas (trainer/envs/userrl/tau/<domain>-tool-info.json).
"""
import hashlib
import json
import os
import sys

from stub_missing import stub_missing_modules

ROOT, TASKS = os.environ.get("TAU_BENCH"), os.environ.get("TAUGYM_TASKS")
if not ROOT or not TASKS:
    sys.exit("set TAU_BENCH to tau-bench's checkout and TAUGYM_TASKS to TauGym's tau_test.json (or tau_train.json)")
sys.path.insert(0, ROOT)


stub_missing_modules("tau_bench")

from tau_bench.envs.airline.env import MockAirlineDomainEnv  # noqa: E402
from tau_bench.envs.retail.env import MockRetailDomainEnv  # noqa: E402
from tau_bench.types import Action, Task, RESPOND_ACTION_NAME  # noqa: E402


def compact(text):
    if len(text) <= 200:
        return text
    return {"sha256": hashlib.sha256(text.encode()).hexdigest(), "head": text[:80]}


def play(env, task, actions, say_outputs):
    """The reward TauGym gives a play: the agent (if asked) first says the outputs, then takes the actions; the
    conversation ends at a transfer to a human (tau-bench scores it then), or else when the user stops afterwards."""
    env.task, env.data, env.actions = task, env.data_load_func(), []
    if say_outputs and task.outputs:
        env.actions.append(Action(name=RESPOND_ACTION_NAME, kwargs={"content": "Here you are: " + "; ".join(task.outputs)}))
    results = []
    for action in actions:
        response = env.step(action)
        results.append(response.observation)
        if response.done:
            return results, response.reward
    return results, env.calculate_reward().reward


DOMAIN = next((a for a in sys.argv[1:] if not a.startswith("--")), "retail")
WRITES = {
    "retail": {"cancel_pending_order", "exchange_delivered_order_items", "modify_pending_order_address", "modify_pending_order_items",
               "modify_pending_order_payment", "modify_user_address", "return_delivered_order_items"},
    "airline": {"book_reservation", "cancel_reservation", "send_certificate", "update_reservation_baggages", "update_reservation_flights",
                "update_reservation_passengers"},
}[DOMAIN]
ENV = {"retail": MockRetailDomainEnv, "airline": MockAirlineDomainEnv}[DOMAIN]
env = ENV(user_strategy="llm", user_model="none", user_provider="none", task_split="test", task_index=0)
if "--tools" in sys.argv:
    json.dump(env.tools_info, sys.stdout, ensure_ascii=False, indent=1)
    sys.exit(0)
records = []
for entry in json.load(open(TASKS)):
    if not entry["id"].startswith(DOMAIN):
        continue
    task = Task(**entry["info"]["task"])
    gold = list(task.actions)
    writes = [i for i, a in enumerate(gold) if a.name in WRITES]
    results, gold_reward = play(env, task, gold, True)
    rewards = {"gold": gold_reward, "no_outputs": play(env, task, gold, False)[1], "reversed": play(env, task, gold[::-1], True)[1]}
    if writes:
        rewards["drop_last_write"] = play(env, task, [a for i, a in enumerate(gold) if i != writes[-1]], True)[1]
    records.append({"id": entry["id"], "results": [compact(r) for r in results], "rewards": rewards})
json.dump({"source": f"sierra-research/tau-bench {DOMAIN} environment, run by scripts/parity/taugym_parity.py on UserRL TauGym tasks",
           "tau_bench_commit": os.environ.get("TAU_BENCH_COMMIT", "unknown"), "userrl_commit": os.environ.get("USERRL_COMMIT", "unknown"),
           "tasks": records}, sys.stdout, ensure_ascii=False, indent=0)

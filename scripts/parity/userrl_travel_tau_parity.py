"""Parity fixture for UserRL's TravelGym and TauGym, played through their own env code (step_async).

Each gym is built as UserRL's training builds it (verl/tools/env_manager.py's `_create_travelgym_environment` /
`_create_taugym_environment`) and plays seeded random episodes that mix well-formed and perturbed moves: no prefix, a
tag in other case, empty moves, malformed JSON and unknown tools in [answer], wrong ids, extra or missing arguments,
repeated searches, several option ids at once, [finish] early. The user and judges are scripted (userrl_shims): each
step carries the decision its LLM calls return (a search verdict, an utterance type and the preference it names, the
user's reply), and the project's test replays the same decisions.

Data: TravelGym's data files are empty in UserRL's snapshot, so TravelGym reads the two scenarios written in its shape
(tests/fixtures/userrl-shaped/travelgym_data_22.json; its other seven files are given as {}). TauGym runs tau-bench's
environment on the tasks of tests/fixtures/userrl/tau/tau_test.json, with tau-bench's data loader pointed at the
records vendored there (the project's test reads the same). Recorded per step: reward, done and the observation: for
TravelGym a label of which of its messages it was (its texts are not copied; user replies verbatim), for TauGym the
text (long ones as a sha256 prefix and length) plus a label for TauGym's own fixed messages.

Usage (UserRL from `fetch github:SalesforceAIResearch/UserRL`, tau-bench from `fetch github:sierra-research/tau-bench`;
extract each with `git --git-dir=<mirror> archive HEAD <paths> | tar -x`):
  USERRL=/tmp/userrl TAU_BENCH=/tmp/taubench python3 scripts/parity/userrl_travel_tau_parity.py \\
    > tests/fixtures/parity/userrl-travel-tau.json
"""
import asyncio
import copy
import hashlib
import json
import os
import random
import re
import sys
import tempfile
import types

from stub_missing import stub_missing_modules
from userrl_shims import ScriptedLlm, install_gymnasium, install_openai, load_file

ROOT, TAU_BENCH = os.environ.get("USERRL"), os.environ.get("TAU_BENCH")
if not ROOT or not TAU_BENCH:
    sys.exit("set USERRL to UserRL's checkout and TAU_BENCH to tau-bench's")
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "../../tests/fixtures")
TRAVEL_FILE = os.path.join(FIXTURES, "userrl-shaped/travelgym_data_22.json")
TAU_DIR = os.path.join(FIXTURES, "userrl/tau")
sys.path[:0] = [os.path.join(ROOT, "gyms/TravelGym"), os.path.join(ROOT, "gyms/TauGym"), TAU_BENCH]
install_gymnasium()
install_openai()
stub_missing_modules("tau_bench")  # litellm: the user's completion is replaced below
os.environ.setdefault("OPENAI_API_KEY", "unused")
env_manager = load_file("userrl_env_manager", os.path.join(ROOT, "verl/tools/env_manager.py")).EnvironmentManager()
rng = random.Random(20261203)

# ---- TravelGym --------------------------------------------------------------------------------------------------

import travelgym.env.task_data as travel_data  # noqa: E402

_travel_dir = tempfile.mkdtemp(prefix="travelgym-data-")
for wanted in ["22", "33", "44", "2222", "233", "334", "444", "333"]:
    with open(os.path.join(_travel_dir, f"travelgym_data_{wanted}.json"), "w") as f:
        f.write(open(TRAVEL_FILE).read() if wanted == "22" else "{}")
travel_data.get_data_path = lambda: __import__("pathlib").Path(_travel_dir)
SCENARIOS = json.load(open(TRAVEL_FILE))


def travel_reply(step):
    """TravelGym's LLM calls (system prompt tells which): the search judge, the utterance judge, the user."""

    def reply(messages):
        system, user = messages[0]["content"], messages[1]["content"]
        if "evaluating whether an agent's search request" in system:
            return json.dumps({"alignment_judgement": step["judge"], "alignment_aspect": step.get("aspect", "")})
        if "evaluating the type of an agent's conversation" in system:
            kind = step["type"]
            available = re.findall(r"^Preference ID: (P\d+)", user, re.M)
            if kind == "2" and not available:
                kind = step["type"] = "3"
            if kind == "2":
                step["pref"] = available[int(step.pop("pick") * len(available))]
                return "```json\n" + json.dumps({"type": "2", "preference_id": step["pref"]}) + "\n```"
            step.pop("pick", None)
            return "```json\n" + json.dumps({"type": kind}) + "\n```"
        return json.dumps({"thought": "t", "response": step["reply"]})

    return reply


def travel_label(text):
    """Which of TravelGym's messages a feedback is (by its opening words); a user reply is kept verbatim."""
    m = re.match(r"You have provided the correct search request arguments\.\n\n.*?<(\w+)>:\n(.*)", text, re.S)
    if m:
        return f"listing:{m.group(1)}:{','.join(sorted(json.loads(line)['id'] for line in m.group(2).splitlines()))}"
    patterns = [
        (r"You have provided the correct search request arguments\. However, you have already got the search results for <(\w+)>", "searched_before:{}"),
        (r"There's something wrong within your searching request", "search_wrong"),
        (r"You have provided the correct search request arguments\. However, the arguments are not related", "search_unrelated"),
        (r"Currently the searching backend", "backend_error"),
        (r"This is a good question\. However, I do not have", "not_held"),
        (r"Your question is too vague", "too_vague"),
        (r"I'm sorry, I'm not sure how to respond", "user_fallback"),
        (r"Invalid option ID format detected for '(.*)'\.", "bad_id:{}"),
        (r"You have already recommended an option with the same initial '(.)'", "same_initial:{}"),
        (r"Your chosen options contain the best option!", "choice:best"),
        (r"Your chosen options contain the best option, but also contain some wrong", "choice:best+wrong"),
        (r"Your chosen options contain the correct option, but not the best option\. ", "choice:correct"),
        (r"Your chosen options contain the correct option, but not the best option, and also", "choice:correct+wrong"),
        (r"Your chosen options do not contain any", "choice:none"),
        (r"Your response format is wrong", "format_error"),
        (r"Session ended\.", "finish"),
    ]
    for pattern, label in patterns:
        m = re.match(pattern, text, re.S)
        if m:
            return label.format(*m.groups())
    return "user:" + text


REPLIES = ["Sounds good to me.", "I usually keep things simple when I travel.", "Hmm, let me think about that.", "Fine by me."]


def travel_steps(key):
    s = SCENARIOS[key]
    dims = s["dimensions"]
    aspect = lambda: rng.choice(dims)  # noqa: E731
    other_ids = lambda a: [o["id"] for k in ("wrong", "noise") for o in s[a]["options"].get(k, [])]  # noqa: E731
    initials = {"flight": "F", "hotel": "H", "restaurant": "R", "apartment": "A", "rental_car": "C"}

    def search():
        a = aspect()
        return {"action": f"[search] {a} {json.dumps(s[a]['arguments'])}", "judge": "True", "aspect": a}

    def ask():
        return {"action": f"[action] {rng.choice(['What do you prefer for the', 'Any wishes about the', 'Tell me about the'])} {aspect()}?",
                "type": rng.choice(["1", "2", "2", "2", "3", "4"]), "pick": rng.random(), "reply": rng.choice(REPLIES)}

    def answer():
        a = aspect()
        correct = [i for i in s[a]["correct_ids"] if i != s[a]["best_id"]] or [s[a]["best_id"]]
        return {"action": f"[answer] {rng.choice([s[a]['best_id'], rng.choice(correct), rng.choice(other_ids(a) or correct)])}"}

    def off_task_answer():
        free = [i for i in "AFHRC" if i not in [initials[d] for d in dims]]
        return {"action": f"[answer] {rng.choice(free)}{rng.randint(1, 4)}"}

    def several():
        a, b = rng.sample(dims, 2) if rng.random() < 0.7 else [aspect()] * 2
        return {"action": f"[answer] {s[a]['best_id']}, {rng.choice(s[b]['correct_ids'] + other_ids(b)[:2])}"}

    moves = [
        (search, 4), (ask, 6), (answer, 4), (several, 1), (off_task_answer, 1),
        (lambda: {"action": f"[search] {aspect()} near {rng.choice(['Boston', 'the airport'])}", "judge": "False"}, 1),
        (lambda: {"action": "[search] museums in town", "judge": "N/A"}, 1),
        (lambda: {"action": rng.choice(["[answer] h1", "[answer] Hotel H1", "[answer] F-2", "[answer] F1, hotel"])}, 1),
        (lambda: {"action": rng.choice(["I recommend F1", "What hotel do you like?", "answer: H1", "Let me search. [search] hotel"])}, 1),
        (lambda: {"action": rng.choice(["[action]", "[search]", "[answer]", "[action]   "]), "type": "1", "reply": "Sorry?", "judge": "False"}, 1),
        (lambda: {"action": rng.choice(["[ACTION] What do you like?", "[Answer] F1", "[Search] flight"]), "type": "1", "reply": "Okay.", "judge": "False"}, 1),
        (lambda: {"action": rng.choice(["[finish]", "[FINISH] done"])}, 1),
    ]
    # A detour: four off-target questions in a row (TravelGym's user is due to volunteer a preference on the fourth).
    detour = [{"action": f"[action] {q}", "type": t, "reply": "Okay."} for q, t in
              [("Nice weather today.", "1"), ("Do you travel often?", "1"), ("Any wishes at all?", "4"), ("How was your week?", "1")]]
    moves.append((lambda: [dict(d) for d in detour], 1))
    pool = [m for m, w in moves for _ in range(w)]
    drawn = [rng.choice(pool)() for _ in range(rng.randint(3, 14))]
    return [s for d in drawn for s in (d if isinstance(d, list) else [d])]


async def travel_play(key, steps, penalty, flip, max_turns):
    env = env_manager._create_travelgym_environment(max_turns=max_turns, id=key)
    env.config.step_penalty = penalty
    if flip:
        env.config.normalize_rewards = not env.config.normalize_rewards
    out = []
    for step in steps:
        ScriptedLlm.reply = travel_reply(step)
        obs, reward, terminated, truncated, _ = await env.step_async(step["action"])
        step.pop("pick", None)
        out.append({**step, "reward": reward, "done": bool(terminated or truncated), "obs": travel_label(obs["feedback"])})
        if out[-1]["done"]:
            break
    config = {"stepPenalty": penalty, "normalizeRewards": env.config.normalize_rewards, "flipNormalize": flip, "maxTurns": max_turns}
    return {"taskId": key, "config": config, "steps": out}


async def travel_episodes():
    plays = []
    for key in SCENARIOS:
        for _ in range(40):
            penalty, flip = rng.choice([0.0, 0.0, 0.05, 0.2]), rng.random() < 0.25
            plays.append(await travel_play(key, travel_steps(key), penalty, flip, rng.choice([6, 10, 20])))
    return plays


# ---- TauGym -----------------------------------------------------------------------------------------------------

import tau_bench.envs.airline.env as airline_env  # noqa: E402
import tau_bench.envs.retail.env as retail_env  # noqa: E402
import tau_bench.envs.user as tau_user  # noqa: E402


def sample_loader(domain, tables):
    def load():
        return {t: json.load(open(os.path.join(TAU_DIR, domain, f"{t}.json"))) for t in tables}
    return load


retail_env.load_data = sample_loader("retail", ["orders", "products", "users"])
airline_env.load_data = sample_loader("airline", ["flights", "reservations", "users"])


class TauUser:
    """tau-bench's LLM user answers through litellm's `completion`: here the step's scripted reply."""

    reply = "Hi, I need help."

    @staticmethod
    def completion(**kwargs):
        message = types.SimpleNamespace(content=TauUser.reply, model_dump=lambda: {"role": "assistant", "content": TauUser.reply})
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)], _hidden_params={"response_cost": 0.0})


tau_user.completion = TauUser.completion
TAU_TASKS = json.load(open(os.path.join(TAU_DIR, "tau_test.json")))
TAU_FIXED = [  # TauGym's own messages (labelled, not copied); anything else is tau-bench's or the user's text
    (r"You should choose from one of the following", "help"),
    (r"Search not supported for '(.*)'\.", "search_unsupported:{}"),
    (r"Tools information is already provided", "tools_again"),
    (r"Invalid tool call format\.", "invalid_tool_call"),
    (r"Invalid action format: ", "invalid_format"),
    (r"Episode finished\. Final reward: (.*)", "finish:{}"),
    (r"Error executing tool call: (.*)", "tool_call_error:{}"),
    (r"Error communicating with user: (.*)", "user_error:{}"),
]


def tau_obs(text):
    for pattern, label in TAU_FIXED:
        m = re.match(pattern, text, re.S)
        if m:
            return {"label": label.format(*m.groups())}
    if len(text) <= 160:
        return {"text": text}
    return {"sha256": hashlib.sha256(text.encode()).hexdigest()[:16], "length": len(text), "head": text[:40]}


def wrong_value(v):
    return "#W0000000" if v.startswith("#W") else ("#HAT000" if v.startswith("#") else v + "x")


def tau_steps(task):
    gold = [a for a in task["info"]["task"]["actions"]]
    outputs = task["info"]["task"]["outputs"]
    state = {"next": 0}

    def call(action, form="json"):
        if form == "json":
            return "[answer] " + json.dumps({"name": action["name"], "arguments": action["kwargs"]})
        return f"[answer] {action['name']}: {json.dumps(action['kwargs'])}"

    def gold_move():
        if state["next"] >= len(gold):
            return {"action": "[action] Is there anything else I can do?", "reply": "###STOP###"}
        a = gold[state["next"]]
        state["next"] += 1
        return {"action": call(a, rng.choice(["json", "json", "colon"]))}

    def perturbed():
        a = copy.deepcopy(gold[min(state["next"], len(gold) - 1)]) if gold else {"name": "get_user_details", "kwargs": {"user_id": "x"}}
        kind = rng.choice(["wrong_id", "extra", "missing", "unknown", "malformed", "not_dict", "no_name"])
        strings = [k for k, v in a["kwargs"].items() if isinstance(v, str)]
        if kind == "wrong_id" and strings:
            k = rng.choice(strings)
            a["kwargs"][k] = wrong_value(a["kwargs"][k])
        elif kind == "extra":
            a["kwargs"]["note"] = "rush"
        elif kind == "missing":
            a["kwargs"] = {}
        elif kind == "unknown":
            return {"action": '[answer] {"name": "refund_everything", "arguments": {}}'}
        elif kind == "malformed":
            return {"action": f'[answer] {{"name": "{a["name"]}", "arguments": {{"id": }}'}
        elif kind == "not_dict":
            return {"action": f'[answer] {{"name": "{a["name"]}", "arguments": "all"}}'}
        elif kind == "no_name":
            return {"action": '[answer] {"arguments": {}}'}
        return {"action": call(a)}

    talk = ["Could you confirm your details?", "Which order is it about?", "Shall I go ahead?"]
    moves = [
        (gold_move, 8), (perturbed, 4),
        (lambda: {"action": rng.choice(["[search] tools", "[search] Tools ", "[search] help", "[search] refunds"])}, 2),
        (lambda: {"action": f"[action] {rng.choice(talk)}", "reply": rng.choice(["Yes, please.", "It's the one I mentioned.", "Sure."])}, 3),
        (lambda: {"action": '[answer] {"name": "respond", "arguments": {"content": "One moment please."}}', "reply": "Okay."}, 1),
        (lambda: {"action": "[action] Here you are: " + "; ".join(outputs), "reply": rng.choice(["Thanks.", "###STOP###"])}, 1 if outputs else 0),
        (lambda: {"action": rng.choice(["get_user_details", "Hello, how can I help?", "I will call a tool [answer] {}"])}, 1),
        (lambda: {"action": rng.choice(["[action]", "[answer]", "[search]"]), "reply": "Sorry, what?"}, 1),
        (lambda: {"action": rng.choice(["[Action] Hello?", "[ANSWER] {\"name\": \"calculate\", \"arguments\": {\"expression\": \"1+1\"}}"]), "reply": "Hello."}, 1),
        (lambda: {"action": '[answer] {"name": "transfer_to_human_agents", "arguments": {"summary": "needs a human"}}'}, 1),
        (lambda: {"action": "[finish]"}, 1),
    ]
    pool = [m for m, w in moves for _ in range(w)]
    steps = [rng.choice(pool)() for _ in range(rng.randint(3, 10 + len(gold)))]
    return steps + ([{"action": "[action] Here you are: " + "; ".join(outputs) + ". Anything else?", "reply": "###STOP###"}] if rng.random() < 0.5 else [])


async def tau_play(task, steps, max_turns):
    env = env_manager._create_taugym_environment(max_turns=max_turns, id=task["id"])
    # TauGym plays tau-bench's own task list by index; the project reads TauGym's task file: they must be one task.
    assert env.current_task.instruction == task["info"]["task"]["instruction"], task["id"]
    out = []
    for step in steps:
        TauUser.reply = step.get("reply", "(no reply scripted)")
        obs, reward, terminated, truncated, _ = await env.step_async(step["action"])
        out.append({**step, "reward": reward, "done": bool(terminated or truncated), "obs": tau_obs(obs["feedback"])})
        if out[-1]["done"]:
            break
    return {"taskId": task["id"], "config": {"maxTurns": max_turns}, "steps": out}


async def tau_episodes():
    plays = []
    for task in TAU_TASKS:
        for _ in range(2):
            plays.append(await tau_play(task, tau_steps(task), rng.choice([8, 15, 30])))
    return plays


def main():
    real, sys.stdout = sys.stdout, sys.stderr  # the gyms print as they go
    result = {
        "source": "SalesforceAIResearch/UserRL TravelGym and TauGym (step_async, as env_manager.py builds them; TauGym on sierra-research/tau-bench), run by scripts/parity/userrl_travel_tau_parity.py",
        "userrl_commit": os.environ.get("USERRL_COMMIT", "unknown"),
        "tau_bench_commit": os.environ.get("TAU_BENCH_COMMIT", "unknown"),
        "license": "UserRL: Apache-2.0, tau-bench: MIT (figures and labels computed by their code; records from tests/fixtures)",
        "travel": asyncio.run(travel_episodes()),
        "tau": asyncio.run(tau_episodes()),
    }
    sys.stdout = real
    json.dump(result, sys.stdout, ensure_ascii=False, separators=(",", ":"))


if __name__ == "__main__":
    main()

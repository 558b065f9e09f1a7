"""Parity fixtures for UserRL's gyms and turn credits, computed by UserRL's own code.

Episodes: each gym is built as UserRL's training builds it (verl/tools/env_manager.py's `_create_*_environment`, on the
records of tests/fixtures/userrl), then played step by step through `step_async` with a scripted user/judge: every
step carries the decision its LLM calls return (a Yes/No/Maybe answer, a judgment, a grade per criterion, the details
a question covers, a stance), rendered into the reply format that gym parses. Random plays per task mix questions,
right and wrong answers, off-format probes and [finish], with a step penalty of 0, 0.01, 0.05 or 0.2 and
normalize_rewards at the gym's default or flipped. Recorded per step: UserRL's reward, whether the episode ended and,
for FunctionGym (no LLM), its feedback text.

Also: TurtleGym's score of every story for random grades (its `parse_llm_response` on the story's `evaluation`
criteria), and `compute_turn_credits` / `compute_grpo_multiturn_advantage` (verl/trainer/ppo/core_algos.py) on
random turn rewards and on the group the issue names. The output holds figures only, no UserRL code.

Usage (UserRL from `fetch github:SalesforceAIResearch/UserRL`; PersuadeGym's statements file is not in that snapshot,
so first write it from UserRL's persuasion parquet files with scripts/parity/userrl_statements.ts):
  npx tsx scripts/parity/userrl_statements.ts /tmp/userrl > /tmp/userrl/gyms/PersuadeGym/persuadegym/data/all_statements_refined.json
  USERRL=/tmp/userrl python3 scripts/parity/userrl_gyms_parity.py > tests/fixtures/parity/userrl-gyms.json
"""
import asyncio
import json
import os
import random
import re
import sys

from userrl_shims import ScriptedLlm, install_gymnasium, install_openai, install_torch, load_file

ROOT = os.environ.get("USERRL")
if not ROOT:
    sys.exit("set USERRL to UserRL's checkout")
SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../tests/fixtures/userrl")
GYMS = ["TelepathyGym", "TurtleGym", "FunctionGym", "IntentionGym", "PersuadeGym", "SearchGym"]
sys.path[:0] = [os.path.join(ROOT, "gyms", g) for g in GYMS]
install_gymnasium()
install_openai()
to_tensor = install_torch()
env_manager = load_file("userrl_env_manager", os.path.join(ROOT, "verl/tools/env_manager.py")).EnvironmentManager()
core_algos = load_file("userrl_core_algos", os.path.join(ROOT, "verl/trainer/ppo/core_algos.py"))

# The gyms refuse to start without API keys; no request leaves this process (the clients are the scripted stand-ins).
os.environ.setdefault("SERPER_API_KEY", "unused")
os.environ.setdefault("OPENAI_API_KEY", "unused")
import searchgym.env.search_env as search_env  # noqa: E402
import turtlegym.env.prompts as turtle_prompts  # noqa: E402

# SearchGym calls Serper's web API; a search's text does not enter any reward.
search_env.search_serper = lambda query, num=10: f"(results for {query})"
rng = random.Random(20261127)
PENALTIES = [0.0, 0.0, 0.01, 0.05, 0.2]


def load(name):
    with open(os.path.join(SAMPLES, name)) as f:
        return json.load(f)


def js(obj):
    return json.dumps(obj)


def telepathy_reply(step):
    def reply(messages):
        if step["action"].startswith("[answer]"):
            return "```json\n" + js({"thought": "t", "judgment": step["judge"], "feedback": "f"}) + "\n```"
        return js({"thought": "t", "response": step["reply"]})
    return reply


def turtle_reply(step):
    def reply(messages):
        if step["action"].startswith("[answer]"):
            return js({"scores": [{"statement": "s", "thought": "t", "score": g} for g in step["grades"]], "feedback": "f"})
        return js({"thought": "t", "response": step["reply"]})
    return reply


def intention_reply(step):
    def reply(messages):
        text = messages[-1]["content"]
        if "MISSING DETAILS THAT NEED TO BE CLARIFIED" not in text:
            return js({"response": step["reply"]})
        listed = {m.group(2): int(m.group(1)) for m in re.finditer(r"^(\d+)\. \[\w+\] (.*)$", text, re.M)}
        return js({"analysis": "a", "is_task_related": True, "covered_detail_indices": [listed[d] for d in step["covers"] if d in listed]})
    return reply


def persuade_reply(step):
    return lambda messages: js({"thought": "t", "response": "r", "stance": step["stance"]})


def search_reply(step):
    return lambda messages: js({"reasoning": "t", "judgment": step["judge"], "feedback": "f"})


def no_llm(step):
    def reply(messages):
        raise AssertionError("FunctionGym makes no LLM call")
    return reply


def yes_no(p_yes=0.5):
    return "Yes" if rng.random() < p_yes else "No"


def telepathy_steps(entity):
    title = entity["title"]
    moves = [
        lambda: {"action": f"[action] Is it {rng.choice(['alive', 'a person', 'big', 'old', 'famous'])}?", "reply": rng.choice(["Yes", "No", "Maybe"])},
        lambda: {"action": f"[answer] {title}", "judge": yes_no(0.6)},
        lambda: {"action": f"[answer] {title.lower()}", "judge": yes_no(0.6)},
        lambda: {"action": "[answer] a cat", "judge": yes_no(0.15)},
        lambda: {"action": f"[answer] {title.split()[0]}", "judge": yes_no(0.4)},
    ]
    return [rng.choice(moves)() for _ in range(rng.randint(2, 7))] + ([{"action": "[finish]"}] if rng.random() < 0.3 else [])


def turtle_steps(story):
    n = len(story["evaluation"])
    grades = lambda: [rng.choice([0, 0, 0.5, 1, 1]) for _ in range(n)]  # noqa: E731
    moves = [
        lambda: {"action": "[action] Was someone killed?", "reply": rng.choice(["Yes", "No", "Maybe"])},
        lambda: {"action": f"[answer] {story['new_bottom'][:120]}", "grades": grades()},
        lambda: {"action": "[answer] It was all a dream.", "grades": grades()},
        lambda: {"action": f"[answer] {story['new_bottom']}", "grades": [1] * n},
    ]
    return [rng.choice(moves)() for _ in range(rng.randint(2, 7))] + ([{"action": "[finish]"}] if rng.random() < 0.3 else [])


def function_steps(fn):
    a, b, c, d = fn["test_case"]
    expected = fn["expected_result"]
    probe = lambda: " ".join(str(rng.choice([rng.randint(-9, 20), round(rng.uniform(-5, 9), rng.choice([1, 2]))])) for _ in range(4))  # noqa: E731
    moves = [
        lambda: {"action": f"[action] {probe()}"},
        lambda: {"action": f"[action] {a} {b} {c} {d}"},
        lambda: {"action": f"[action] {a}, {b}, {c}, {d}"},
        lambda: {"action": "[action] 0 0 0 0"},
        lambda: {"action": "[action] 1 2 3"},
        lambda: {"action": "[action] a=2, b=3.5, c=-1, d=10"},
        lambda: {"action": "[action] 1e3 2 3 4"},
        lambda: {"action": "[action]"},
        lambda: {"action": rng.choice(["[search] test", "[search] TEST ", "[search] the test case", "[search]"])},
        lambda: {"action": f"[answer] {rng.choice([repr(float(expected)), str(expected), str(int(expected)) if float(expected).is_integer() else repr(expected)])}"},
        lambda: {"action": f"[answer] {rng.choice([f'{expected} points', f'The answer is {expected}', f' {expected} ', f'{expected}e0', f'+{expected}', '1_000', 'inf', 'nan', '', expected + 1, expected + 1e-7, expected - 1e-5])}"},
    ]
    return [rng.choice(moves)() for _ in range(rng.randint(2, 7))] + ([{"action": "[finish]"}] if rng.random() < 0.3 else [])


def intention_steps(task):
    details = [d["description"] for d in task["missing_details"]]
    moves = [
        lambda: {"action": "[action] What exactly do you need?", "covers": rng.sample(details, rng.randint(0, min(2, len(details)))), "reply": "Something specific."},
        lambda: {"action": "[action] Could you say more?", "covers": [], "reply": "Not sure."},
        lambda: {"action": "[action] Which option do you prefer?", "covers": [rng.choice(details)], "reply": "The first."},
    ]
    return [rng.choice(moves)() for _ in range(rng.randint(2, 6))] + ([{"action": "[finish]"}] if rng.random() < 0.4 else [])


STANCES = ["Strongly Agree", "Agree", "Partly Agree", "Neutral", "Partly Disagree", "Disagree", "Strongly Disagree"]


def persuade_steps(statement):
    steps = [{"action": f"[{rng.choice(['action', 'answer'])}] Consider the costs.", "stance": rng.choice(STANCES[:6] * 3 + STANCES[6:])} for _ in range(rng.randint(2, 6))]
    return steps + ([{"action": "[finish]"}] if rng.random() < 0.4 else [])


def search_steps(question):
    moves = [
        lambda: {"action": f"[search] {question['question'][:40]}"},
        lambda: {"action": "[answer] no idea", "judge": yes_no(0.2)},
        lambda: {"action": f"[answer] {question['answer']}", "judge": "No"},
        lambda: {"action": f"[answer] {question['answer']} maybe", "judge": yes_no(0.5)},
    ]
    return [rng.choice(moves)() for _ in range(rng.randint(2, 8))] + ([{"action": "[finish]"}] if rng.random() < 0.3 else [])


def stories():
    return [{**s, "key": k} for k, s in load("all_stories_refined.json").items()]


GAMES = {
    # gym: (env_manager kind, records, the kwargs naming a record, this project's task id for it, steps, reply)
    "telepathy": ("TelepathyGym", load("all_entities_refined.json"), lambda e: {"title": e["title"]}, lambda e: e["id"], telepathy_steps, telepathy_reply),
    "turtle": ("TurtleGym", stories(), lambda s: {"title": s["new_title"]}, lambda s: f"turtle-{s['key']}", turtle_steps, turtle_reply),
    "function": ("FunctionGym", load("functions.json"), lambda f: {"id": f["id"]}, lambda f: f["id"], function_steps, no_llm),
    "intention": ("IntentionGym", load("all_intentions_test.json"), lambda t: {"id": t["id"]}, lambda t: t["id"], intention_steps, intention_reply),
    "persuade": ("PersuadeGym", None, lambda s: {"id": s["id"]}, lambda s: s["id"], persuade_steps, persuade_reply),
    "search": ("SearchGym", load("questions.json"), lambda q: {"id": q["id"]}, lambda q: q["id"], search_steps, search_reply),
}
PERSUADE_IDS = 6  # the first statements of UserRL's persuasion test parquet (vendored in tests/fixtures/userrl)


async def play(kind, kwargs, steps, reply, penalty, flip, max_turns):
    env = getattr(env_manager, f"_create_{kind.lower()}_environment")(max_turns=max_turns, **kwargs)
    env.config.step_penalty = penalty
    if flip:
        env.config.normalize_rewards = not env.config.normalize_rewards
    config = {"stepPenalty": penalty, "normalizeRewards": env.config.normalize_rewards, "flipNormalize": flip, "maxTurns": max_turns}
    out = []
    for step in steps:
        ScriptedLlm.reply = reply(step)
        observation, reward, terminated, truncated, _ = await env.step_async(step["action"])
        record = {**step, "reward": reward, "done": bool(terminated or truncated)}
        if kind == "FunctionGym":
            record["feedback"] = observation["feedback"]
        out.append(record)
        if record["done"]:
            break
    return {"config": config, "steps": out}


async def episodes():
    persuade_records = json.load(open(os.path.join(ROOT, "gyms/PersuadeGym/persuadegym/data/all_statements_refined.json")))
    games = {}
    for gym, (kind, records, kwargs, task_id, make_steps, reply) in GAMES.items():
        if gym == "persuade":
            records = [r for r in persuade_records if r.get("split") == "test"][:PERSUADE_IDS]
        plays = []
        for record in records:
            for _ in range(4):
                penalty, flip = rng.choice(PENALTIES), rng.random() < 0.25
                played = await play(kind, kwargs(record), make_steps(record), reply, penalty, flip, rng.choice([4, 8, 15]))
                plays.append({"taskId": task_id(record), **played})
        games[gym] = plays
    return games


def turtle_scores():
    """TurtleGym's score of an answer for given grades, on every story of the data file (its parse_llm_response)."""
    with open(os.path.join(ROOT, "gyms/TurtleGym/turtlegym/data/all_stories_refined.json")) as f:
        data = json.load(f)
    out = []
    for key, story in data.items():
        if story.get("judgment") != "Yes":
            continue
        criteria = story["evaluation"]
        for _ in range(1):
            grades = [rng.choice([0, 0.5, 1]) for _ in criteria]
            text = js({"scores": [{"statement": c["statement"], "thought": "t", "score": g} for c, g in zip(criteria, grades)], "feedback": "f"})
            _, score, _ = turtle_prompts.parse_llm_response(text, True, {"evaluation_criteria": criteria})
            out.append({"story": key, "grades": grades, "score": score})
    return out


def credits():
    values = [0.0, 0.0, 0.0, 1.0, 0.4, 0.7, 0.5, 0.8, 0.2, 0.1667, 0.3333, 0.6667, 0.8333, 0.25, 0.125, 0.0625, 0.49999999999999994]
    cases = []
    for _ in range(600):
        rewards = [rng.choice(values) for _ in range(rng.randint(1, 8))]
        history = [{"reward": r} for r in rewards]
        entry = {"rewards": rewards}
        for method in ["Equalized", "R2G", "EM"]:
            entry[method] = core_algos.compute_turn_credits(history, 0.8, method, "Sum")[0]
        for score in ["Sum", "R2G"]:
            entry[f"score_{score}"] = core_algos.compute_turn_credits(history, 0.8, "Equalized", score)[1]
        cases.append(entry)
    return cases


def advantage_groups():
    """Token advantages of whole groups: the one the issue names ([[0,0,1],[0,0,0] x 3]) and random ones."""
    groups = [[[0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]
    for _ in range(15):
        groups.append([[rng.choice([0.0, 0.0, 0.4, 0.7, 1.0]) for _ in range(rng.randint(1, 4))] for _ in range(rng.randint(2, 5))])
    out = []
    for g, group in enumerate(groups):
        for method, score in [("R2G", "Sum"), ("R2G", "R2G"), ("Equalized", "Sum"), ("EM", "Sum")]:
            rows = []
            for rewards in group:
                # Each turn: a few policy tokens (mask 1) then a few observation tokens (mask 0).
                boundaries, mask = [], []
                for _ in rewards:
                    policy, obs = rng.randint(1, 4), rng.randint(0, 3)
                    boundaries += [1] + [0] * (policy + obs - 1)
                    mask += [1] * policy + [0] * obs
                rows.append((rewards, boundaries, mask))
            width = max(len(r[1]) for r in rows)
            pad = lambda xs: xs + [0] * (width - len(xs))  # noqa: E731
            advantages, _ = core_algos.compute_grpo_multiturn_advantage(
                to_tensor([[0.0] * width for _ in rows]), to_tensor([pad(r[2]) for r in rows]), to_tensor([pad(r[1]) for r in rows]),
                [[{"reward": x} for x in r[0]] for r in rows], ["d"] * len(rows), [g] * len(rows),
                gamma=0.8, epsilon=1e-6, turn_level_method=method, trajectory_score_method=score,
            )
            out.append({
                "method": method, "score": score,
                "rows": [{"rewards": r[0], "boundaries": pad(r[1]), "mask": pad(r[2]), "advantages": [round(float(a), 9) for a in adv]}
                         for r, adv in zip(rows, advantages)],
            })
    return out


def main():
    sys.stdout_real = sys.stdout
    sys.stdout = sys.stderr  # the gyms and core_algos print as they go
    games = asyncio.run(episodes())
    result = {
        "source": "SalesforceAIResearch/UserRL gyms (step_async, as env_manager.py builds them) and verl/trainer/ppo/core_algos.py, run by scripts/parity/userrl_gyms_parity.py",
        "userrl_commit": os.environ.get("USERRL_COMMIT", "unknown"),
        "license": "UserRL: Apache-2.0 (figures computed by its code; records from tests/fixtures/userrl)",
        "episodes": games,
        "turtle_scores": turtle_scores(),
        "turn_credits": credits(),
        "advantage_groups": advantage_groups(),
    }
    sys.stdout = sys.stdout_real
    json.dump(result, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()

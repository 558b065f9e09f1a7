"""Parity fixture for PersuadeGym's reading of its simulated user's reply, computed by UserRL's own code.

Each case is a stance held and a reply the user LLM returns; UserRL's `evaluate_action` (gyms/PersuadeGym/persuadegym/
env/prompts.py) is run with an OpenAI stand-in that returns the reply, and its feedback, new stance, reward and
success flag are recorded. The replies vary the way a user model's do: JSON, fenced JSON, Python dicts, JSON in prose,
JSON holding true/null, trailing commas, stances in other cases or off the scale. The output holds figures only.

Usage (prompts.py from `fetch github:SalesforceAIResearch/UserRL`):
  PERSUADE_PROMPTS=/tmp/userrl/gyms/PersuadeGym/persuadegym/env/prompts.py \\
    /usr/bin/python3 scripts/parity/userrl_persuade_replies_parity.py > tests/fixtures/parity/userrl-persuade-replies.json
"""
import contextlib
import importlib.util
import io
import json
import os
import sys
import types

reply_box = {"text": ""}


class _Completions:
    def create(self, **_kwargs):
        msg = types.SimpleNamespace(content=reply_box["text"])
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=msg)])


class _OpenAI:
    def __init__(self, **_kwargs):
        self.chat = types.SimpleNamespace(completions=_Completions())


sys.modules["openai"] = types.SimpleNamespace(OpenAI=_OpenAI, AsyncOpenAI=_OpenAI)
spec = importlib.util.spec_from_file_location("persuade_prompts", os.environ["PERSUADE_PROMPTS"])
prompts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(prompts)

STANCES = ["Strongly Agree", "Agree", "Partly Agree", "Neutral", "Partly Disagree", "Disagree", "Strongly Disagree"]


def forms(stance):
    """The reply shapes a user model writes, for one stated stance."""
    s = json.dumps(stance)
    return [
        '{"thought": "t", "response": "I see.", "stance": %s}' % s,
        '```json\n{"thought": "t", "response": "I see.", "stance": %s}\n```' % s,
        "{'thought': 't', 'response': 'I see.', 'stance': '%s'}" % stance,
        '{"thought": "t", "response": "I see.", "stance": %s,}' % s,
        'Here is my answer: {"thought": "t", "response": "I see.", "stance": %s}' % s,
        '{"thought": "t", "response": "I see.", "stance": %s, "changed": true}' % s,
        '{"thought": null, "response": "I see.", "stance": %s}' % s,
        '{"thought": "t", "response": "I see.", "stance": %s}' % json.dumps(stance.lower()),
        '{"thought": "t", "response": "I see.", "stance": %s}' % json.dumps(stance.upper()),
        '  {"thought": "t", "response": "I see.", "stance": %s}  ' % s,
        "I see, but I still hold my view.",
    ]


cases = []
statement = {"claim": "A claim.", "argument": "A reason."}
config = {"api_key": "x", "base_url": "x", "model_name": "x", "temperature": 0, "max_tokens": 10, "timeout": 1}
for held in ["Strongly Agree", "Partly Agree", "Neutral"]:
    for said in STANCES + ["Somewhat Agree"]:
        for reply in forms(said):
            reply_box["text"] = reply
            with contextlib.redirect_stdout(io.StringIO()):  # its error prints are not the result
                feedback, new_stance, reward, _json, ok = prompts.evaluate_action("[action] x", statement, config, [], held)
            cases.append({"held": held, "reply": reply, "feedback": feedback, "stance": new_stance, "reward": reward, "ok": ok})
json.dump(cases, sys.stdout)

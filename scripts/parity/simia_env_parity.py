"""Parity fixture for the simulated environment's Simia mode, computed by Simia-RL's own GeneralSimulated env.

Simia-RL (Simia-Agent-Training, Simia-RL/subtrees/ragen/ragen/env/simulated_General/env.py, MIT) runs an episode as
`SimulatedGeneralEnv.reset` + `step(action)`: each agent message goes to one GPT simulator, the conversation is
judged by GPT at the end, and `_save_trajectory_record` writes the episode's record. This script runs that class on
scripted episodes with a stand-in for the OpenAI client that answers from a script and records every request, and
writes what a TypeScript test must reproduce:

- `templates`: Simia's simulator and judge prompts with our `{{placeholder}}`s in place of what Simia fills in,
  made by running its own prompt builders on placeholder values (so a test can render Simia's text through our
  templating without this repository containing it);
- `scenarios`: per episode, every request Simia sent (prompt, temperature, max_completion_tokens), what `step`
  returned, and the record file Simia wrote;
- `judge_replies`: for each judge reply, the reward and reasoning Simia's `_evaluate_final_performance` returns,
  or the exception it raises.

The azure / openai packages are not installed and are stubbed (stub_missing.py): the client is replaced before
any call. Simia's `ragen/env/__init__.py` imports every other environment (gym, sokoban, ...), so the two modules
of this one are loaded without it. No Simia code is copied.

Usage (Simia from `fetch github:xinyuangui2/Simia-Agent-Training`, checked out to a folder):
  SIMIA=/tmp/Simia-Agent-Training SIMIA_COMMIT=<sha> python3 scripts/parity/simia_env_parity.py \\
    > tests/fixtures/parity/simia-env.json
"""
import contextlib
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
for name in ("ragen", "ragen.env"):  # packages without their __init__ (see above)
    pkg = types.ModuleType(name)
    pkg.__path__ = [os.path.join(RAGEN, *name.split("."))]
    sys.modules[name] = pkg
from ragen.env.simulated_General.config import SimulatedEnvConfig  # noqa: E402
from ragen.env.simulated_General.env import SimulatedGeneralEnv  # noqa: E402

Simia = SimulatedGeneralEnv


class ScriptedClient:
    """Stands in for the OpenAI client: replies from a script, records each request's parameters."""

    def __init__(self, replies):
        self.replies, self.requests = list(replies), []
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self.create))

    def create(self, **params):
        self.requests.append({"prompt": params["messages"][0]["content"], "model": params["model"], "temperature": params["temperature"],
                              "max_completion_tokens": params["max_completion_tokens"], "timeout": params["timeout"]})
        message = types.SimpleNamespace(content=self.replies.pop(0))
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])


def make_env(sample, record_dir, max_steps=25):
    data = Path(record_dir) / "data.json"
    data.write_text(json.dumps([sample]))
    config = SimulatedEnvConfig(env_id="0", train_data_path=str(data), training_record_dir=str(Path(record_dir) / "records"),
                                api_type="openai", max_simulation_steps=max_steps)
    with contextlib.redirect_stdout(sys.stderr):
        return Simia(config)


def templates():
    """Simia's two prompts, rendered by its own builders with placeholders for what it fills in."""
    env = Simia.__new__(Simia)
    env.system_prompt, env.current_step, env.gpt_call_history, env.config = "{{system_prompt}}", 1, [], SimulatedEnvConfig()
    env._format_reference_conversations = lambda: "{{reference}}"
    env._format_history_for_prompt = lambda: "{{history}}"
    env._save_trajectory_record = lambda reward, reasoning: None
    prompts = []
    env._call_gpt = lambda messages: prompts.append(messages[0]["content"]) or '{"reasoning": "x", "reward": 1}'
    env._generate_next_environment_message("{{agent_message}}")
    env._evaluate_final_performance()
    return {"simulator": prompts[0], "judge": prompts[1]}


SAMPLE = {
    "system": "You are a retail agent. Verify the user before any change.\n<tools>\n"
              '{"type": "function", "function": {"name": "get_order", "description": "Look up an order", "parameters": '
              '{"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}}\n</tools>',
    "conversations": [
        {"from": "human", "value": "  Where is order #W100?\n"},
        {"from": "gpt", "value": '<tool_call>\n{"name": "get_order", "arguments": {"order_id": "#W100"}}\n</tool_call>'},
        {"from": "human", "value": '<tool_response>\n{"status": "shipped", "eta": "Friday"}\n</tool_response>'},
        {"from": "gpt", "value": "It has shipped and arrives Friday."},
        {"from": "human", "value": "Great, thanks!"},
        {"from": "gpt", "value": ""},
    ],
}
CALL = '<tool_call>\n{"name": "get_order", "arguments": {"order_id": "#W100"}}\n</tool_call>'
SCENARIOS = [
    {"name": "tool call, answer, user ends", "max_steps": 25,
     "actions": [CALL, "It has shipped and arrives Friday."],
     "replies": ['\n<tool_response>\n{"status": "shipped", "eta": "Friday"}\n</tool_response>\n', "Great, thanks! [TERMINATE]",
                 '{"reasoning": "Looked the order up and told the user.", "reward": 1}']},
    {"name": "thinking agent and simulator", "max_steps": 25,
     "actions": ["<think>I should look the order up.</think>\n" + CALL, "  <think>Done.</think> It has shipped.  "],
     "replies": ['<think>The call is well formed.</think>\n\n{"status": "shipped"}', "<think>Ending.</think>Thanks [TERMINATE]",
                 '<think>Let me check {the call}.</think>\n```json\n{"reasoning": "Fine.", "reward": 1}\n```']},
    {"name": "empty agent messages, unparsable judgement", "max_steps": 25,
     "actions": ["", "   ", "Your order #W100 has shipped."],
     "replies": ["Hello? Are you there?", "Please answer me.", "[TERMINATE]", "The agent eventually answered; I would say it passed."]},
    {"name": "step limit, nested braces in the judgement", "max_steps": 3,
     "actions": ["Let me check.", CALL, "It arrives Friday."],
     "replies": ["Sure, go ahead.", '{"status": "shipped"}',
                 'Verdict: {"reasoning": "Called {get_order} correctly", "details": {"calls": 1}, "reward": 1}']},
]


def run_scenario(s):
    with tempfile.TemporaryDirectory() as tmp:
        env = make_env(SAMPLE, tmp, s["max_steps"])
        env.client = ScriptedClient(s["replies"])
        steps = []
        with contextlib.redirect_stdout(sys.stderr):
            opening = env.reset(mode="val")
            for action in s["actions"]:
                observation, reward, done, _ = env.step(action)
                steps.append({"observation": observation, "reward": reward, "done": done})
                if done:
                    break
        [record_file] = list((Path(tmp) / "records").rglob("*.json"))
        record = json.loads(record_file.read_text())
        return {**s, "opening": opening, "requests": env.client.requests, "steps": steps, "record": record}


JUDGE_REPLIES = [
    '{"reasoning": "ok", "reward": 1}', '{"reasoning": "no", "reward": 0}', '{"reasoning": "ok", "score": 1}',
    '```json\n{"reasoning": "ok", "reward": 1}\n```', 'Here it is:\n```json\n{"reasoning": "ok", "reward": 1}\n```\nDone.',
    '```\n{"reasoning": "ok", "reward": 1}\n```', 'Result: {"reasoning": "ok", "reward": 1}',
    'Result: {"reasoning": "ok", "components": {"calls": 1}, "reward": 1}', '{"reasoning": "ok", "components": {"calls": 1}, "reward": 1}',
    '{"reward": 1}', '{"reasoning": "ok", "reward": "1"}', '{"reasoning": "ok", "reward": true}', '{"reasoning": "ok", "reward": 0.5}',
    '{"reasoning": "ok", "reward": 2}', '{"reasoning": "ok", "reward": -1}', '{"reasoning": "ok", "reward": "yes"}',
    '{"reasoning": "ok", "reward": null}', '<think>let me see {x}</think>{"reasoning": "ok", "reward": 1}',
    '</think>\n{"reasoning": "ok", "reward": 1}', "I think it went fine.", '{"reasoning": "a", "reward": 0} {"reasoning": "b", "reward": 1}',
    '{\n    "reasoning": "ok"\n    "reward": 1,\n}', '{"reasoning": "ok", "reward": NaN}', '{"reasoning": "ok", "reward": "0"}',
    '[{"reasoning": "ok", "reward": 1}]', '{"reasoning": "ok", "reward": 1, "reward": 0}', '{"reasoning": 5, "reward": 1}',
    '{"reasoning": "ok", "reward": " 1.0 "}', '{"reasoning": "ok", "reward": [1]}', '{"reasoning": "ok", "reward": "1_0"}', "",
    "{'reasoning': 'ok', 'reward': 1}", '{"reasoning": "ok", "reward": 1, "confidence": Infinity}', '  {"reasoning": "ok", "reward": 1}  \n',
]


def judge(reply):
    """Simia's verdict on one judge reply: `_evaluate_final_performance` after a one-message conversation."""
    with tempfile.TemporaryDirectory() as tmp:
        env = make_env(SAMPLE, tmp)
        env.client = ScriptedClient([reply])
        with contextlib.redirect_stdout(sys.stderr):
            env.reset(mode="val")
            env.current_step = 1
            env.conversation_history.append({"role": "assistant", "content": "It has shipped."})
            try:
                reward, reasoning = env._evaluate_final_performance()
            except Exception as e:  # Simia raises out of step(): the training run stops
                return {"reply": reply, "raises": f"{type(e).__name__}: {e}"}
        if reward != reward:
            return {"reply": reply, "reward": "NaN", "reasoning": reasoning}
        return {"reply": reply, "reward": reward, "reasoning": reasoning}


json.dump({"source": "xinyuangui2/Simia-Agent-Training, Simia-RL/subtrees/ragen/ragen/env/simulated_General (SimulatedGeneralEnv), "
           "run by scripts/parity/simia_env_parity.py", "simia_commit": os.environ.get("SIMIA_COMMIT", "unknown"),
           "licence": "Simia-Agent-Training: MIT (its LICENSE)", "config_defaults": {"temperature": SimulatedEnvConfig.temperature,
           "max_tokens": SimulatedEnvConfig.max_tokens, "deployment": SimulatedEnvConfig.deployment},
           "sample": SAMPLE, "templates": templates(), "scenarios": [run_scenario(s) for s in SCENARIOS],
           "judge_replies": [judge(r) for r in JUDGE_REPLIES]}, sys.stdout, ensure_ascii=False, indent=1)

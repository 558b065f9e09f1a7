"""Stand-ins that let UserRL's gym and advantage code run on a machine without its dependencies.

- `gymnasium`: the gyms subclass `gym.Env` and declare `spaces`; neither is used by `step_async` or the scoring.
- `openai`: the gyms' LLM calls (their user simulators and judges) are the input of a parity case, so the client
  answers each `chat.completions.create` with `reply(messages)` from the case being played.
- `torch`: UserRL's `compute_grpo_multiturn_advantage` makes a dozen torch calls on small tensors. torch is not
  installable here, so they run on numpy (float64 where torch would use float32: figures agree to ~1e-7).
"""
import importlib.util
import sys
import types
from unittest import mock

import numpy as np


def install_gymnasium():
    gym = types.ModuleType("gymnasium")

    class Env:
        def reset(self, seed=None, options=None):
            return None

    gym.Env = Env
    gym.register = lambda *a, **k: None
    gym.spaces = mock.MagicMock()
    sys.modules["gymnasium"] = gym
    sys.modules["gymnasium.spaces"] = gym.spaces


class ScriptedLlm:
    """`reply(messages) -> str` answers every chat completion; set it before each step."""

    reply = None
    calls = 0


def install_openai():
    openai = types.ModuleType("openai")

    def create(**kwargs):
        ScriptedLlm.calls += 1
        text = ScriptedLlm.reply(kwargs["messages"])
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=types.SimpleNamespace(content=text))])

    async def acreate(**kwargs):
        return create(**kwargs)

    class OpenAI:
        def __init__(self, *a, **k):
            self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=create))

    class AsyncOpenAI:
        def __init__(self, *a, **k):
            self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=acreate))

    openai.OpenAI, openai.AsyncOpenAI = OpenAI, AsyncOpenAI
    sys.modules["openai"] = openai


class _Tensor(np.ndarray):
    device = "cpu"

    def clone(self):
        return self.copy()


def _t(x):
    return np.asarray(x, dtype=np.float64).view(_Tensor)


def install_torch():
    torch = types.ModuleType("torch")

    class _NoGrad:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    torch.Tensor = torch.FloatTensor = _Tensor
    torch.no_grad = _NoGrad
    torch.tensor = lambda x, device=None, dtype=None: _t(x)
    torch.zeros_like = lambda x: _t(np.zeros_like(x))
    torch.where = lambda cond: tuple(a.view(np.ndarray) for a in np.where(np.asarray(cond)))
    torch.sum = lambda x: _t(np.sum(x))
    torch.stack = lambda xs: _t(np.stack([np.asarray(x) for x in xs]))
    torch.mean = lambda x: _t(np.mean(x))
    torch.std = lambda x: _t(np.std(x, ddof=1))  # torch.std is unbiased by default
    torch.count_nonzero = lambda x: _t(np.count_nonzero(x))
    sys.modules["torch"] = torch
    verl = types.ModuleType("verl")
    utils = types.ModuleType("verl.utils")
    utils.torch_functional = mock.MagicMock()
    sys.modules.update({"verl": verl, "verl.utils": utils, "verl.utils.torch_functional": utils.torch_functional})
    return _t


def load_file(name, path):
    """A module from its file, without importing the package around it (UserRL's verl/__init__ pulls in ray)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

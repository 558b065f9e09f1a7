"""Lets a parity script import a research system's Python code on a machine without all its dependencies.

Top-level modules this python3 lacks (dotenv, tqdm, litellm, ...) become MagicMocks, except the system's own package:
replaying tools and checkers never calls them.
"""
import importlib.abc
import importlib.machinery
import sys
from unittest import mock


class _StubMissing(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, own_package):
        self.own_package = own_package

    def find_spec(self, name, path, target=None):
        top = name.split(".")[0]
        if top == self.own_package or top in sys.builtin_module_names or importlib.machinery.PathFinder.find_spec(top):
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        module = mock.MagicMock()
        module.__path__, module.__spec__, module.__name__ = [], spec, spec.name
        return module

    def exec_module(self, module):
        pass


def stub_missing_modules(own_package):
    """Install the stubbing finder; `own_package` (e.g. "bfcl_eval") is always imported for real."""
    sys.meta_path.append(_StubMissing(own_package))

"""Cases for lib/python-literal.test.ts, computed by this python3's ast.literal_eval (what UserRL's PersuadeGym reads
its simulated user's reply with, after stripping and cutting a ```json fence).

Usage: /usr/bin/python3 scripts/parity/python_literal_cases.py > tests/fixtures/parity/python-literal.json
"""
import ast
import json
import sys

inputs = [
    "{'stance': 'Disagree', 'response': 'ok'}",
    '{"stance": "Agree", "response": "fine"}',
    '{"a": true}', '{"a": null}', "{'a': True, 'b': None, 'c': False}",
    "{'a': 1,}", "[1, 2,]", "(1, 2)", "{'a': (1, 'x')}", "{'a': -1.5e3, 'b': 1_000, 'c': .5}",
    "  {'a': 1}", "\n{'a': 1}\n", "\t{'a': 1}", "{'a': 'it\\'s'}", "{'a': \"say \\\"hi\\\"\"}",
    "{'a': '\\u00e9\\x41\\n'}", "{'a': 'C:\\\\path\\\\q'}", "{'a': 'unknown \\q escape'}",
    'Here is my answer: {"a": 1}', '{"a": 1} trailing', "{'a': 1} # note", "{'a' 'b': 1}",
    "{1: 'x', 'y': 2}", "{'a': [1, {'b': 'c'}]}", "{}", "{'a': 'line\nbreak'}", "{'a': 01}", "{'a': 1.}",
    "{'a': inf}", "{'a': -True}", "'just a string'", "42", "{'a': 1} {'b': 2}", "{'a': {'b': {'c': []}}}",
]


def plain(v):
    if isinstance(v, tuple):
        return [plain(x) for x in v]
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    return v


def evaluated(text):
    try:
        return {"value": plain(ast.literal_eval(text))}
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return {"error": True}


json.dump([[t, evaluated(t)] for t in inputs], sys.stdout, ensure_ascii=False)

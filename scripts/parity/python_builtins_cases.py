"""Cases for trainer/envs/bfcl/python-builtins.test.ts: built-ins a policy calls as tools, as gorilla's and EnvTuning's
executors run them (eval of the call string; a str result as it is, anything else str()'d; an exception as its text).

Usage: /usr/bin/python3 scripts/parity/python_builtins_cases.py > tests/fixtures/parity/python-builtins.json
"""
import contextlib
import io
import json
import sys

calls = [
    "round(number=3.14159, ndigits=2)", "round(3.5)", "round(2.5)", "round(-0.5)", "round(number=7)", "round(2.675, 2)",
    "round()", "round(x=1)", "round(1.5, number=2)", "round('a')", "round(1.25, 1.5)", "round(1, 2, 3)",
    "print()", "print('hello', 'world')", "print(x=1)", "print(sep='-')",
    "str(object=5)", "str()", "str(5)", "str(2.5)", "str(True)", "str(None)", "str([1, 'a'])", "str({'a': 1})", "str(x=1)",
    "str(5, 'utf-8')", "len('abc')", "len([1, 2])", "len({'a': 1})", "len(x=1)", "len(5)", "len()", "abs(-2.5)", "abs(-3)",
    "abs(True)", "abs(x=1)", "abs('a')", "abs(1, 2)",
]
out = []
for c in calls:
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # print()'s output is not the result
            r = eval(c)
        out.append({"call": c, "result": r if isinstance(r, str) else str(r)})
    except Exception as e:
        out.append({"call": c, "result": f"Error during execution: {e}"})
json.dump(out, sys.stdout)

"""Cases for lib/python-json.test.ts, computed by this python3: repr, round(x, 2), round(x, n) for n < 0 and n > 100,
and json.dumps of strings.

Usage: python3 scripts/parity/python_json_cases.py > tests/fixtures/parity/python-json.json
"""
import json
import random

rng = random.Random(20261125)
floats = [0.0, -0.0, 1.0, 100.0, 54.04, 0.1 + 0.2, 1e-4, 1e-5, 0.00012345, 1e15, 1e16, 123456789012345678.0,
          2.675, 0.125, 0.375, -0.125, 2.5, 1.005, -17.985, 652.61 - 642.72, 1e22, 5e-324, 1.7976931348623157e308]
floats += [round(rng.uniform(-3000, 3000), rng.choice([2, 3, 6])) for _ in range(150)]
floats += [rng.uniform(-1, 1) * 10 ** rng.randint(-8, 18) for _ in range(100)]
floats += [rng.randint(-4000, 4000) / 8 for _ in range(50)]
strings = ["plain", 'quote " and \\ backslash', "tab\tnew\nline\r", "\x00\x1f\x7f", "café", "日本", "emoji 😀", "\u2028"]
def calculate(expression):
    """τ²'s retail `calculate` tool, as its tool message reads (success or "Error: ...")."""
    try:
        if not all(char in "0123456789+-*/(). " for char in expression):
            raise ValueError("Invalid characters in expression")
        return str(round(float(eval(expression, {"__builtins__": None}, {})), 2))
    except Exception as e:  # τ²'s environment turns any exception into "Error: <message>"
        return f"Error: {e}"


ops = ["+", "-", "*", "/", "//", "**"]
expressions = ["2 + 2", "3131.1 + 4777.75 + 367.38", "135.24 - 153.23", "1/0", "1.0/0", "1//0", "1.0//0", "2**-1",
               "-2**2", "7//2", "-7//2", "7.5//2", "(1", "1+", "", "05", "1..2", "10**20", "3 - - 2", ".5", "5.",
               "2(3)", "1)", "0.125*2", "1e5", "(2+3)*4", "-(3.5)", "2**0.5", "(-8)**0.5", "10**400", "0**-1",
               "1.005 * 100", "2.675", "100 / 3", "-1 // 3", "-1.0 // 3", "5 // -2.5", "((((1))))"]
for _ in range(150):
    parts = [str(rng.choice([rng.randint(0, 999), round(rng.uniform(0, 999), rng.choice([1, 2]))]))]
    for _ in range(rng.randint(1, 4)):
        parts += [rng.choice(ops[:5]), str(round(rng.uniform(0, 500), 2))]
    expressions.append(" ".join(parts))

# round(x, n) beyond what toFixed reaches: tens, hundreds... (n < 0) and n > 100 (gorilla's round_number takes any n).
wide_rng = random.Random(20261127)
wide = [(x, n) for x, n in [(15.0, -1), (25.0, -1), (-35.0, -1), (1e300, -299), (5e-324, 330), (0.1, 150), (1234.5678, -2)]]
wide += [(wide_rng.choice([wide_rng.uniform(-1e6, 1e6), wide_rng.uniform(-1, 1) * 10 ** wide_rng.randint(-30, 30), wide_rng.randint(-999, 999) * 5.0]),
          wide_rng.choice([-1, -2, -3, -5, -10, -300, -320, 101, 150, 320, 330])) for _ in range(300)]

json.dump(
    {
        "calculate": [[e, calculate(e)] for e in expressions],
        "floats": floats,
        "repr": [repr(x) for x in floats],
        "round2": [repr(round(x, 2)) for x in floats],
        "round_wide": [[x, n, repr(round(x, n))] for x, n in wide],
        "strings": strings,
        "dumped": [json.dumps(s) for s in strings],
        "nested": {"value": {"b": [1, 2.5, "x"], "a": {"é": None, "c": True}}, "sorted": json.dumps({"b": [1, 2.5, "x"], "a": {"é": None, "c": True}}, sort_keys=True)},
    },
    __import__("sys").stdout,
)

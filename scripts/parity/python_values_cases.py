"""Cases for lib/python-values.test.ts, computed by this python3: str.strip(), float(x) and json.loads.
float() reads any Unicode decimal digit ("١" Arabic-Indic, "１" full-width, "𝟗" mathematical) and strips any Unicode
whitespace, so those forms are here too: a judge that writes its score in another script is read as Python reads it.

Usage: python3 scripts/parity/python_values_cases.py > tests/fixtures/parity/python-values.json
"""
import json
import sys

strip_inputs = [" a ", "\t\n\x0b\x0c\r a \r\n", "\x1c\x1d\x1e\x1fa\x85", "\xa0\u2003a\u3000", "\ufeffa\ufeff", "", "   ", "a b", "\u200ba\u200b"]
float_inputs = ["1", " 1.0 ", "-2.5", "+3", "1e2", "1E-2", "1_000", "1__000", "_1", "1_", "1_000.5", "1e1_0", ".5", "5.", ".", "inf", "-Infinity",
                "nAn", "infinit", "0x10", "1,5", "", "  ", "yes", "85%", "\u00a01\u00a0", "1 2", "--1", "1e", "e1", "0.1e-3_0",
                # Unicode decimal digits, separators and spaces
                "\u0661", "\u0667\u0665", "-\u0661.\u0665", "\u0661\u066b\u0665", "\uff11\uff12", "\U0001d7d7", "\U0001d7ce\U0001d7ff",
                "\u09e7\u09e6", "\u0e51", "\u07c0", "\u0663e\u0662", "\u0661_\u0660", "\u0661__\u0660", "\u00b2", "\u216b",
                "\u20071\u2007", "\u20281\u2029", "\x1c1\x1f", "1\u200b", "\ufeff1", "inf\u00a0", "\uff0d1", "\u2212" + "1", "1\u3000",
                "\u0660x10", "\u0966\u0967\u0968", "\U000104a9", "\U0001e950"]
json_inputs = ['{"reward": 1}', '{"reward": NaN}', '{"a": [Infinity, -Infinity], "b": "NaN"}', '{"a": "Infinity \\" NaN"}', "NaN", "nan",
               '{"a": 1,}', "[1, 2]", ' {"a": 1} \n', "{'a': 1}", '{"a": 1} {"b": 2}', '{"a": -NaN}', '"x"', "", "\ufeff{}"]


def floated(x):
    try:
        return {"value": plain(float(x))}
    except (ValueError, TypeError) as e:
        return {"error": type(e).__name__}


def plain(v):
    """Non-finite floats as {"float": "NaN" | "Infinity" | "-Infinity"}, so the fixture stays standard JSON."""
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return {"float": "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


def loaded(x):
    try:
        return {"value": plain(json.loads(x))}
    except ValueError:
        return {"error": True}


json.dump({"strip": [[s, s.strip()] for s in strip_inputs],
           "float": [[s, floated(s)] for s in float_inputs] + [[v, floated(v)] for v in [True, False, 2, 2.5, None, [1], {"a": 1}]],
           "loads": [[s, loaded(s)] for s in json_inputs]}, sys.stdout, ensure_ascii=False, allow_nan=False)

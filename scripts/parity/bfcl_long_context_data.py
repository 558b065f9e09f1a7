"""The data gorilla's BFCL API classes add to their state in the long_context category, as JSON.

gorilla keeps it as Python literals in func_source_code/long_context.py (extra watch-list symbols, transaction
history, moving averages, credit cards, bookings, file contents, weather, car metadata). The TypeScript ports in
trainer/envs/bfcl/apis read the same values from long-context.json; this script writes it, unchanged.

Usage (gorilla's checkout from `fetch github:ShishirPatil/gorilla`, berkeley-function-call-leaderboard on disk):
  GORILLA_BFCL=/tmp/gorilla/berkeley-function-call-leaderboard \\
    python3 scripts/parity/bfcl_long_context_data.py > trainer/envs/bfcl/apis/long-context.json
"""
import importlib.util
import json
import os
import sys

ROOT = os.environ.get("GORILLA_BFCL")
if not ROOT:
    sys.exit("set GORILLA_BFCL to gorilla's berkeley-function-call-leaderboard folder")
path = os.path.join(ROOT, "bfcl_eval/eval_checker/multi_turn_eval/func_source_code/long_context.py")
spec = importlib.util.spec_from_file_location("long_context", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
constants = {name: value for name, value in vars(module).items() if name.isupper()}


class LiteralEllipsis(json.JSONEncoder):
    """WATCH_LIST_EXTENSION ends in a literal `...` (Python's Ellipsis), which gorilla returns as it is."""

    def default(self, o):
        if o is Ellipsis:
            return {"$python": "Ellipsis"}
        return super().default(o)


json.dump(
    {"source": "ShishirPatil/gorilla bfcl_eval/eval_checker/multi_turn_eval/func_source_code/long_context.py (Apache-2.0)",
     "gorilla_commit": os.environ.get("GORILLA_COMMIT", "unknown"), **constants},
    sys.stdout, ensure_ascii=False, cls=LiteralEllipsis,
)

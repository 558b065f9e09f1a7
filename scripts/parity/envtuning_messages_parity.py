"""Parity fixture for EnvTuning's rewritten tool error messages.

AWorld-RL's EnvTuning (EnvTuning/bfcl_env/func_source_code) trains on its own copy of BFCL's API classes whose error
messages were rewritten to tell the model what to do next ("Paths are not allowed. Specify only file name in current
directory.", "You can use 'list_all_airports' ..."). This script runs the same probe calls through gorilla's executor
and EnvTuning's executor, each on its own classes, and prints both results. Probes are chosen where the two differ
only in wording, not in behaviour. The output holds figures only, no code from either repository.

Usage (gorilla from `fetch github:ShishirPatil/gorilla`, AWorld-RL from `fetch github:inclusionAI/AWorld-RL`):
  GORILLA_BFCL=/tmp/gorilla/berkeley-function-call-leaderboard ENVTUNING=/tmp/aworld/EnvTuning \\
    python3 scripts/parity/envtuning_messages_parity.py > tests/fixtures/parity/envtuning-messages.json
"""
import itertools
import json
import os
import sys

GORILLA, ENVTUNING = os.environ.get("GORILLA_BFCL"), os.environ.get("ENVTUNING")
if not GORILLA or not ENVTUNING:
    sys.exit("set GORILLA_BFCL to gorilla's berkeley-function-call-leaderboard folder and ENVTUNING to AWorld-RL's EnvTuning")
sys.path[:0] = [GORILLA, ENVTUNING]

from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import execute_multi_turn_func_call as gorilla_execute  # noqa: E402
from bfcl_env.multi_turn_utils import execute_multi_turn_func_call as envtuning_execute  # noqa: E402

FILES = {
    "root": {
        "alex": {
            "type": "directory",
            "contents": {
                "notes.txt": {"type": "file", "content": "hello\nthere"},
                "other.txt": {"type": "file", "content": "hello\nworld"},
                "docs": {"type": "directory", "contents": {"a.txt": {"type": "file", "content": "x"}}},
                "full": {"type": "directory", "contents": {"notes.txt": {"type": "file", "content": "old"}}},
                "empty": {"type": "directory", "contents": {}},
            },
        }
    }
}
TRAVEL = {
    "credit_card_list": {"card1": {"card_number": "1111", "expiration_date": "12/30", "cardholder_name": "A B", "card_verification_number": 123, "balance": 5000}},
    "booking_record": {},
    "access_token": "tok",
    "token_type": "Bearer",
    "token_expires_in": 100,
    "token_scope": "read_write",
    "user_first_name": "A",
    "user_last_name": "B",
    "budget_limit": None,
}
PROBES = {
    "GorillaFileSystem": (FILES, [
        "cd(folder='nowhere')", "cd(folder='docs/sub')",
        "mkdir(dir_name='a/b')", "mkdir(dir_name='bad|name')", "mkdir(dir_name='docs')",
        "touch(file_name='a/b.txt')", "touch(file_name='bad*.txt')", "touch(file_name='notes.txt')",
        "echo(content='hi', file_name='a/b.txt')", "echo(content='hi', file_name='bad?.txt')",
        "cat(file_name='docs')", "cat(file_name='missing.txt')",
        "wc(file_name='a/b.txt')", "wc(file_name='docs')", "wc(file_name='missing.txt')",
        "sort(file_name='a/b.txt')", "sort(file_name='docs')", "sort(file_name='missing.txt')",
        "grep(file_name='a/b.txt', pattern='x')", "grep(file_name='docs', pattern='x')", "grep(file_name='missing.txt', pattern='x')",
        "tail(file_name='a/b.txt')", "tail(file_name='docs')", "tail(file_name='missing.txt')",
        "diff(file_name1='a/b.txt', file_name2='notes.txt')", "diff(file_name1='m1.txt', file_name2='m2.txt')",
        "diff(file_name1='m1.txt', file_name2='notes.txt')", "diff(file_name1='notes.txt', file_name2='m2.txt')",
        "diff(file_name1='docs', file_name2='empty')", "diff(file_name1='docs', file_name2='notes.txt')",
        "diff(file_name1='notes.txt', file_name2='docs')",
        "mv(source='a/b.txt', destination='x')", "mv(source='missing.txt', destination='x')",
        "mv(source='notes.txt', destination='x/y')", "mv(source='notes.txt', destination='full')",
        "mv(source='notes.txt', destination='other.txt')",
        "rm(file_name='a/b.txt')", "rm(file_name='missing.txt')",
        "rmdir(dir_name='a/b')", "rmdir(dir_name='full')", "rmdir(dir_name='missing')",
        "cp(source='a/b.txt', destination='x')", "cp(source='missing.txt', destination='x')",
        "cp(source='notes.txt', destination='x/y')",
    ]),
    "VehicleControlAPI": ({}, [
        "get_outside_temperature_from_weather_com()", "estimate_distance(cityA='00000', cityB='11111')",
    ]),
    "TravelAPI": (TRAVEL, [
        "get_flight_cost(travel_from='XXX', travel_to='LAX', travel_date='2024-11-15', travel_class='economy')",
        "get_flight_cost(travel_from='SFO', travel_to='YYY', travel_date='2024-11-15', travel_class='economy')",
        "get_flight_cost(travel_from='XXX', travel_to='YYY', travel_date='2024-11-15', travel_class='economy')",
        "get_flight_cost(travel_from='BOS', travel_to='CIA', travel_date='2024-11-15', travel_class='economy')",
        "compute_exchange_rate(base_currency='USD', target_currency='XYZ', value=10.0)",
    ]),
}

_names = itertools.count()


def run(execute, cls, config, call):
    """One probe on a fresh instance (each executor caches instances by model name and entry id)."""
    results, _ = execute([call], {cls: json.loads(json.dumps(config))}, [cls], f"probe{next(_names)}", "entry", is_evaL_run=True)
    return results[0]


probes = []
for cls, (config, calls) in PROBES.items():
    for call in calls:
        probes.append({"class": cls, "config": config, "call": call,
                       "gorilla": run(gorilla_execute, cls, config, call), "envtuning": run(envtuning_execute, cls, config, call)})
json.dump({"source": "gorilla (bfcl_eval) and AWorld-RL EnvTuning (bfcl_env) executors, run by scripts/parity/envtuning_messages_parity.py",
           "gorilla_commit": os.environ.get("GORILLA_COMMIT", "unknown"), "envtuning_commit": os.environ.get("ENVTUNING_COMMIT", "unknown"),
           "probes": probes}, sys.stdout, ensure_ascii=False, indent=1)

"""Random BFCL multi-turn trajectories off the gold path, shared by the gorilla and EnvTuning parity scripts.

A trajectory is one list of call strings per user turn, in BFCL's Python syntax. Each is the entry's ground truth
perturbed call by call (a value changed to another of its type or to an edge value; an argument dropped, added or
passed positionally; a call dropped, repeated or moved to another turn) plus calls of the involved classes' other
functions with arguments drawn from their func docs. A "mistyped" trajectory also passes values of the wrong type
(None, a list, a dict, a number as a string). Deterministic for a seed.
"""
import ast
import json
import os
import random

FUNC_DOC_FILES = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "VehicleControlAPI": "vehicle_control.json",
}
# EnvTuning's fork has functions BFCL v4 dropped (and v4 has some the fork lacks); both are called.
EXTRA_CALLS = {
    "TradingBot": ["make_transaction(account_id=12345, xact_type='deposit', amount=100.0)",
                   "make_transaction(account_id=1, xact_type='withdrawal', amount=10)",
                   "make_transaction(account_id=12345, xact_type='withdrawal', amount=5.5)",
                   "update_stock_price(symbol='AAPL', new_price=230.5)", "update_stock_price(symbol='XXXX', new_price=1.0)",
                   "update_market_status(current_time_str='10:30 AM')", "withdraw_funds(amount=50.0)"],
    "TravelAPI": ["book_flight(access_token='abc', card_id='card_1', travel_date='2024-12-01', travel_from='SFO', travel_to='LAX', travel_class='economy', travel_cost=300.0)",
                  "get_booking_history(access_token='abc')"],
    "MessageAPI": ["delete_message(receiver_id='USR002', message_index=0)"],
}
STRINGS = ["", "nonexistent", "a/b", "..", "/", "docs", "USR001", "12345", "AAPL", "économie", "x" * 3]


def load_func_docs(data_dir):
    docs = {}
    for cls, name in FUNC_DOC_FILES.items():
        with open(os.path.join(data_dir, "multi_turn_func_doc", name)) as f:
            docs[cls] = [json.loads(line) for line in f if line.strip()]
    return docs


def literal(value):
    return ast.unparse(ast.Constant(value)) if not isinstance(value, (list, dict)) else repr(value)


INTS = [0, -1, 1, 100, 250000, 12345]
FLOATS = [2.5, -0.5, 0.0, -2.0, 3.75, 250000.5]


def random_value(rng, schema=None, mistyped=False):
    kind = (schema or {}).get("type")
    if mistyped and rng.random() < 0.3:
        return rng.choice([None, "1", 1, [], {}])
    if kind == "string" or (kind is None and (not mistyped or rng.random() < 0.5)):
        enum = (schema or {}).get("enum")
        return rng.choice(enum) if enum and rng.random() < 0.7 else rng.choice(STRINGS)
    if kind == "integer":
        return rng.choice(INTS)
    if kind in ("float", "number"):
        return rng.choice(FLOATS)
    if kind == "boolean":
        return rng.choice([True, False])
    if kind == "array":
        return [random_value(rng, (schema or {}).get("items"), mistyped) for _ in range(rng.randint(0, 3))]
    if kind == "dict":
        return {}
    return rng.choice([None, 0, "x", [], True])


def other_value(rng, value, mistyped=False):
    """Another value of the same type or an edge value; in a mistyped trajectory sometimes one of another type."""
    if mistyped and rng.random() < 0.4:
        return str(value) if not isinstance(value, str) else rng.choice([0, 1.5, None, [value]])
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return rng.choice(INTS + [value * 2, -value, value + 1])
    if isinstance(value, float):
        return rng.choice(FLOATS + [value * 2, -value, value + 0.5])
    if isinstance(value, str):
        return rng.choice(STRINGS + [value.upper(), value + "x", value[:-1], f"{value}/{value}"])
    if isinstance(value, list):
        return rng.choice([[], value[:1], value + value[:1]] + ([[str(v) for v in value]] if mistyped else []))
    return value


def perturb_call(call, rng, docs_by_name, mistyped, signatures):
    tree = ast.parse(call, mode="eval").body
    if not isinstance(tree, ast.Call):
        return call
    name = tree.func.id if isinstance(tree.func, ast.Name) else tree.func.attr
    kwargs = [(k.arg, ast.literal_eval(k.value)) for k in tree.keywords]
    args = [ast.literal_eval(a) for a in tree.args]
    op = rng.choice(["value", "value", "drop", "extra", "positional", "too_many"] + (["type"] if mistyped else []))
    if op == "value" and kwargs:
        i = rng.randrange(len(kwargs))
        kwargs[i] = (kwargs[i][0], other_value(rng, kwargs[i][1], mistyped))
    elif op == "type" and kwargs:
        i = rng.randrange(len(kwargs))
        kwargs[i] = (kwargs[i][0], rng.choice([None, "1", 1, [], {}]))
    elif op == "drop" and kwargs:
        kwargs.pop(rng.randrange(len(kwargs)))
    elif op == "extra":
        taken = {k for k, _ in kwargs}
        kwargs.append((rng.choice([k for k in ["extra", "unknown_arg", "path"] if k not in taken]), rng.choice([1, "x", True])))
    elif op == "positional" and kwargs:
        # In the method's own parameter order, when the arguments given are its first ones (else a value would land
        # in another parameter: a type error of this script's making, not a model's).
        order = signatures.get(name) or list(docs_by_name.get(name, {}).get("parameters", {}).get("properties", {}))
        if sorted(k for k, _ in kwargs) == sorted(order[: len(kwargs)]):
            kwargs.sort(key=lambda kv: order.index(kv[0]))
            args, kwargs = args + [v for _, v in kwargs], []
    elif op == "too_many":
        params = docs_by_name.get(name, {}).get("parameters", {}).get("properties", {})
        args = [random_value(rng, {"type": "string"}) for _ in range(len(params) + 1 + len(args))]
        kwargs = []
    parts = [literal(a) for a in args] + [f"{k}={literal(v)}" for k, v in kwargs]
    return f"{name}({', '.join(parts)})"


def random_call(rng, docs, mistyped):
    doc = rng.choice(docs)
    props = doc.get("parameters", {}).get("properties", {})
    required = doc.get("parameters", {}).get("required", [])
    chosen = [p for p in props if p in required or rng.random() < 0.4]
    if chosen and rng.random() < 0.15:
        chosen.pop(rng.randrange(len(chosen)))
    return f"{doc['name']}({', '.join(f'{p}={literal(random_value(rng, props[p], mistyped))}' for p in chosen)})"


def trajectories(entry, ground_truth, func_docs, rng, count, mistyped=False, signatures=None):
    """`signatures`: method name -> its parameter names in order (without self), for calls made positional."""
    signatures = signatures or {}
    classes = [c for c in entry["involved_classes"] if c in func_docs]
    docs = [d for c in classes for d in func_docs[c]]
    docs_by_name = {d["name"]: d for d in docs}
    extra = [c for cls in classes for c in EXTRA_CALLS.get(cls, [])]
    out = []
    for _ in range(count):
        turns = []
        for gt_turn in ground_truth:
            calls = []
            for call in gt_turn:
                roll = rng.random()
                if roll < 0.1:
                    continue  # dropped
                calls.append(perturb_call(call, rng, docs_by_name, mistyped, signatures) if roll < 0.55 else call)
                if rng.random() < 0.05:
                    calls.append(call)  # repeated
            while docs and rng.random() < 0.35:
                calls.insert(rng.randint(0, len(calls)), random_call(rng, docs, mistyped))
            if extra and rng.random() < 0.1:
                calls.insert(rng.randint(0, len(calls)), rng.choice(extra))
            turns.append(calls)
        if len(turns) > 1 and rng.random() < 0.2:  # a turn's calls made one turn early
            k = rng.randrange(len(turns) - 1)
            turns[k], turns[k + 1] = turns[k] + turns[k + 1], []
        out.append(turns)
    return out

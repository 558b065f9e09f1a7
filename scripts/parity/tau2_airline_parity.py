"""Parity fixtures for the τ²-bench airline domain, computed by τ²-bench's own Python code.

τ²'s airline db.json is not in any snapshot this project can fetch, so the database is built from tau-bench's
airline data (flights.json, users.json, reservations.json of sierra-research/tau-bench, which τ²'s FlightDB
validates once each user carries its user_id), cut down to what τ²'s 50 airline tasks touch: their users, those
users' reservations, and every flight on the dates the tasks and reservations name. τ²'s own code then replays each
task's gold actions on it; the cut database (vendored in tests/fixtures/tau2-airline) and every output and hash
are the fixture. The code under test is τ²'s; the data is a faithful subset.

Usage:
  TAU2_SRC=/tmp/tau2src TAUBENCH_AIRLINE=/tmp/taubench \\
    python3 scripts/parity/tau2_airline_parity.py tests/fixtures/tau2-airline > tests/fixtures/parity/tau2-airline.json
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tau2_retail_parity import _StubMissing, compact  # noqa: E402,F401  (stub finder; τ² on sys.path)

from tau2.data_model.message import ToolCall  # noqa: E402
from tau2.domains.airline.data_model import FlightDB  # noqa: E402
from tau2.domains.airline.environment import get_environment, get_tasks  # noqa: E402

SOURCE = os.environ.get("TAUBENCH_AIRLINE")
OUT_DIR = sys.argv[1] if len(sys.argv) > 1 else None
if not SOURCE or not OUT_DIR:
    sys.exit("set TAUBENCH_AIRLINE (tau-bench's airline data folder) and give the output folder for the cut database")


def load(name):
    with open(os.path.join(SOURCE, f"{name}.json")) as f:
        return json.load(f)


def cut_database(tasks):
    flights, users, reservations = load("flights"), load("users"), load("reservations")
    for uid, u in users.items():
        u["user_id"] = uid
    wanted_users, wanted_dates = set(), set()
    for t in tasks:
        text = json.dumps(t.model_dump(mode="json"))
        wanted_users.update(u for u in users if u in text)
        for r in re.findall(r'"([A-Z0-9]{6})"', text):
            if r in reservations:
                wanted_users.add(reservations[r]["user_id"])
        wanted_dates.update(re.findall(r"2024-05-\d\d", text))
    kept_reservations = {r: reservations[r] for u in sorted(wanted_users) for r in users[u]["reservations"] if r in reservations}
    for r in kept_reservations.values():
        wanted_dates.update(f["date"] for f in r["flights"])
    # Next days too: one-stop searches continue after a +1 arrival.
    wanted_dates.update(f"2024-05-{int(d[-2:]) + 1:02d}" for d in list(wanted_dates) if int(d[-2:]) < 31)
    kept_flights = {n: {**f, "dates": {d: s for d, s in f["dates"].items() if d in wanted_dates}} for n, f in flights.items()}
    return {"flights": kept_flights, "users": {u: users[u] for u in sorted(wanted_users)}, "reservations": kept_reservations}


U = "ethan_martin_2396"
PAX = {"first_name": "Ethan", "last_name": "Martin", "dob": "1963-01-12"}
TRIP = {"user_id": U, "origin": "JFK", "destination": "MIA", "flight_type": "one_way", "cabin": "economy",
        "flights": [{"flight_number": "HAT014", "date": "2024-05-20"}], "passengers": [PAX],
        "total_baggages": 1, "nonfree_baggages": 1, "insurance": "yes"}
# 143 (economy) + 30 (insurance) + 50 (one paid bag) = 223
EDGE_CALLS = [
    ("get_user_details", {"user_id": "nobody_1"}),
    ("get_user_details", {}),
    ("get_user_details", {"user_id": U, "verbose": True}),
    ("get_reservation_details", {"reservation_id": "ZZZZZZ"}),
    ("get_flight_status", {"flight_number": "HAT999", "date": "2024-05-15"}),
    ("get_flight_status", {"flight_number": "HAT001", "date": "2024-06-01"}),
    ("get_flight_status", {"flight_number": "HAT001", "date": "2024-05-03"}),
    ("list_all_airports", {}),
    ("search_direct_flight", {"origin": "JFK", "destination": "MIA", "date": "2024-05-20"}),
    ("search_onestop_flight", {"origin": "JFK", "destination": "LAX", "date": "2024-05-20"}),
    ("search_onestop_flight", {"origin": "SEA", "destination": "BOS", "date": "2024-05-05"}),
    ("calculate", {"expression": "(143 + 30) * 2 / 3"}),
    ("calculate", {"expression": "1 / 0"}),
    ("calculate", {"expression": "import os"}),
    ("delete_reservation", {"reservation_id": "GXWCPN"}),
    ("book_reservation", {**TRIP, "payment_methods": [{"payment_id": "credit_card_5447957", "amount": 200}]}),
    ("book_reservation", {**TRIP, "payment_methods": [{"payment_id": "gift_card_5853954", "amount": 100}, {"payment_id": "credit_card_5447957", "amount": 123}]}),
    ("book_reservation", {**TRIP, "payment_methods": [{"payment_id": "paypal_1", "amount": 223}]}),
    ("book_reservation", {**TRIP, "flights": [{"flight_number": "HAT001", "date": "2024-05-04"}], "payment_methods": [{"payment_id": "credit_card_5447957", "amount": 223}]}),
    ("book_reservation", {**TRIP, "flights": [{"flight_number": "HAT079", "date": "2024-05-20"}], "cabin": "basic_economy", "payment_methods": [{"payment_id": "credit_card_5447957", "amount": 172}]}),
    ("book_reservation", {**TRIP, "payment_methods": [{"payment_id": "gift_card_5853954", "amount": 71}, {"payment_id": "certificate_7365778", "amount": 100}, {"payment_id": "credit_card_5447957", "amount": 52}]}),
    ("get_user_details", {"user_id": U}),
    ("book_reservation", {**TRIP, "insurance": "no", "nonfree_baggages": 0, "flights": [{"flight_number": "HAT014", "date": "2024-05-20"}, {"flight_number": "HAT023", "date": "2024-05-20"}], "passengers": [PAX, {**PAX, "first_name": "Ana"}], "payment_methods": [{"payment_id": "credit_card_5447957", "amount": 668}]}),
    ("book_reservation", {**TRIP, "payment_methods": [{"payment_id": "certificate_5449394", "amount": 223}]}),
    ("book_reservation", {**TRIP, "payment_methods": [{"payment_id": "credit_card_5447957", "amount": 223}]}),
    ("send_certificate", {"user_id": U, "amount": 150}),
    ("send_certificate", {"user_id": U, "amount": 75}),
    ("send_certificate", {"user_id": U, "amount": 50}),
    ("send_certificate", {"user_id": U, "amount": 25}),
    ("send_certificate", {"user_id": "nobody_1", "amount": 25}),
    ("update_reservation_baggages", {"reservation_id": "HATHAT", "total_baggages": 3, "nonfree_baggages": 2, "payment_id": "certificate_3221322"}),
    ("update_reservation_baggages", {"reservation_id": "HATHAT", "total_baggages": 3, "nonfree_baggages": 3, "payment_id": "credit_card_5447957"}),
    ("update_reservation_baggages", {"reservation_id": "HATHAT", "total_baggages": 1, "nonfree_baggages": 0, "payment_id": "credit_card_5447957"}),
    ("update_reservation_flights", {"reservation_id": "HATHAU", "cabin": "business", "flights": [{"flight_number": "HAT014", "date": "2024-05-20"}, {"flight_number": "HAT023", "date": "2024-05-20"}], "payment_id": "gift_card_5853954"}),
    ("update_reservation_flights", {"reservation_id": "HATHAU", "cabin": "economy", "flights": [{"flight_number": "HAT060", "date": "2024-05-20"}, {"flight_number": "HAT023", "date": "2024-05-20"}], "payment_id": "credit_card_5447957"}),
    ("update_reservation_flights", {"reservation_id": "HATHAU", "cabin": "basic_economy", "flights": [{"flight_number": "HAT060", "date": "2024-05-20"}], "payment_id": "credit_card_5447957"}),
    ("update_reservation_flights", {"reservation_id": "GXWCPN", "cabin": "economy", "flights": [{"flight_number": "HAT001", "date": "2024-05-03"}], "payment_id": "credit_card_5447957"}),
    ("update_reservation_passengers", {"reservation_id": "HATHAU", "passengers": [PAX]}),
    ("update_reservation_passengers", {"reservation_id": "HATHAT", "passengers": [{**PAX, "last_name": "Marten"}]}),
    ("cancel_reservation", {"reservation_id": "HATHAV"}),
    ("cancel_reservation", {"reservation_id": "HATHAV"}),
    ("get_reservation_details", {"reservation_id": "HATHAV"}),
    ("transfer_to_human_agents", {"summary": "Wants a refund to the gift card."}),
    ("get_user_details", {"user_id": U}),
]


def run_calls(env, calls):
    out = []
    for i, (name, args) in enumerate(calls):
        m = env.get_response(ToolCall(id=str(i), name=name, arguments=args, requestor="assistant"))
        out.append({"name": name, "arguments": args, "content": compact(m.content), "error": m.error})
    return out


def main():
    tasks = get_tasks(None)
    db = cut_database(tasks)
    os.makedirs(OUT_DIR, exist_ok=True)
    with open(os.path.join(OUT_DIR, "db.json"), "w") as f:
        json.dump(db, f, separators=(",", ":"))
    out = []
    initial_hash = FlightDB.model_validate(db).get_hash()
    for task in tasks:
        env = get_environment(db=FlightDB.model_validate(json.loads(json.dumps(db))))
        calls = []
        for i, a in enumerate((task.evaluation_criteria.actions if task.evaluation_criteria else None) or []):
            m = env.get_response(ToolCall(id=str(i), name=a.name, arguments=a.arguments, requestor=a.requestor))
            calls.append({"name": a.name, "arguments": a.arguments, "content": compact(m.content), "error": m.error})
        out.append({"id": task.id, "calls": calls, "db_hash": env.get_db_hash()})
    env = get_environment(db=FlightDB.model_validate(json.loads(json.dumps(db))))
    edge = run_calls(env, EDGE_CALLS)
    edge_hash = env.get_db_hash()
    json.dump({"source": "sierra-research/tau2-bench domains/airline on a cut of tau-bench's airline data, by scripts/parity/tau2_airline_parity.py",
               "tau2_commit": os.environ.get("TAU2_COMMIT", "unknown"), "initial_db_hash": initial_hash, "tasks": out,
               "edge_calls": edge, "db_hash_after_edge": edge_hash}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()

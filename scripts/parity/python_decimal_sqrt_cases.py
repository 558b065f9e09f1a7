"""Cases for trainer/envs/bfcl/apis/decimal-sqrt.test.ts, computed by this python3's decimal module as gorilla's
square_root runs it: `getcontext().prec = precision; str(Decimal(number).sqrt())`.

Usage: python3 scripts/parity/python_decimal_sqrt_cases.py > tests/fixtures/parity/python-decimal-sqrt.json
"""
import json
import random
import sys
from decimal import Decimal, getcontext

rng = random.Random(20261127)
numbers = [0.0, -0.0, 1, 2, 4, 100, 2.25, 3.75, 0.01, 1e-300, 5e-324, 1.7976931348623157e308, 250000.5]
numbers += [rng.choice([rng.uniform(0, 1e6), rng.uniform(0, 1) * 10 ** rng.randint(-30, 30), rng.randint(0, 10**6)]) for _ in range(300)]
cases = []
for x in numbers:
    precision = rng.choice([1, 2, 3, 5, 10, 17, 28, 50, 100])
    getcontext().prec = precision
    cases.append([x, precision, str(Decimal(x).sqrt())])
json.dump({"source": f"python {sys.version.split()[0]} decimal module", "cases": cases}, sys.stdout)

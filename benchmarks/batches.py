"""`python -m benchmarks.batches`: a 1,000-item batch's wall time, as the serving issue sets it.

`python -m service` as shipped (2 workers), one batch at a time, each sent three times: 1,000
`medium` moves on 15x15 (which search nothing; target under 1 s) and 1,000 moves searched
for 5 ms each (5,000 ms of budgets; target at most 5.25 s, the budgets and 250 ms).

    python -m benchmarks.batches
"""

from __future__ import annotations

import argparse
import json
import os
import time

from scripts.servers import start_server

ROUNDS = 3
OPENING = "." * 112 + "X" + "." * 112
BATCHES = {
    "1,000 medium moves on 15x15": [
        {"board": OPENING, "difficulty": "medium", "seed": seed} for seed in range(1000)
    ],
    "1,000 moves searched for 5 ms": [{"board": OPENING, "budget_ms": 5}] * 1000,
}


def measure() -> dict[str, list[float]]:
    """Start the server; return each batch's wall times in seconds, every answer 200."""
    with open(os.devnull, "wb") as quiet:
        server = start_server({"ACCESS_LOG": "false"}, stdout=quiet, stderr=quiet)
    try:
        found: dict[str, list[float]] = {}
        for name, items in BATCHES.items():
            body = json.dumps({"requests": items}).encode()
            for _ in range(ROUNDS):
                started = time.perf_counter()
                status, _headers, answer = server.request("POST", "/v1/moves", body, timeout=60)
                seconds = time.perf_counter() - started
                results = json.loads(answer)["results"]
                if status != 200 or any("move" not in result for result in results):
                    raise RuntimeError(f"{name}: answered {status}, or an item was refused")
                found.setdefault(name, []).append(round(seconds, 3))
        return found
    finally:
        server.stop()


def main() -> None:
    """Measure and print the wall times as JSON."""
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    print(json.dumps(measure(), indent=2))


if __name__ == "__main__":
    main()

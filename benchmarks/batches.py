"""`python -m benchmarks.batches`: 1,000-item batches, as the serving issue sets them.

`python -m service` as shipped (2 workers), on the largest board (20x20) unless `--side`
says otherwise. First one batch at a time, each sent three times: 1,000 `medium` moves
(which search nothing; target under 1 s) and 1,000 moves searched for 5 ms each (5,000 ms
of budgets; target at most 5.25 s, the budgets and 250 ms). Then four clients send the
medium batch back to back for 20 s while a fifth asks `/healthz` every 50 ms: the probes'
p99 (target under 150 ms) and failures (target none).

    python -m benchmarks.batches [--side 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import threading
import time
from typing import Any

from scripts.servers import RunningServer, start_server
from service.game.rules import MAX_SIDE

ROUNDS = 3
BATCH_CLIENTS = 4
LOADED_SECONDS = 20
PROBE_INTERVAL_SECONDS = 0.05


def batches(side: int) -> dict[str, list[dict[str, object]]]:
    """Return the two batches on a side x side board, each item X's opening in the centre."""
    cells = side * side
    opening = "." * (cells // 2) + "X" + "." * (cells - cells // 2 - 1)
    return {
        f"1,000 medium moves on {side}x{side}": [
            {"board": opening, "difficulty": "medium", "seed": seed} for seed in range(1000)
        ],
        f"1,000 moves searched for 5 ms on {side}x{side}": [{"board": opening, "budget_ms": 5}]
        * 1000,
    }


def measure(side: int) -> dict[str, Any]:
    """Start the server; return each batch's wall times in seconds (every answer 200), then
    the probes' figures under four clients' batches."""
    with open(os.devnull, "wb") as quiet:
        server = start_server({"ACCESS_LOG": "false"}, stdout=quiet, stderr=quiet)
    sent = batches(side)
    try:
        found: dict[str, list[float]] = {}
        for name, items in sent.items():
            body = json.dumps({"requests": items}).encode()
            for _ in range(ROUNDS):
                started = time.perf_counter()
                status, _headers, answer = server.request("POST", "/v1/moves", body, timeout=60)
                seconds = time.perf_counter() - started
                results = json.loads(answer)["results"]
                if status != 200 or any("move" not in result for result in results):
                    raise RuntimeError(f"{name}: answered {status}, or an item was refused")
                found.setdefault(name, []).append(round(seconds, 3))
        medium = next(iter(sent.values()))
        return {**found, **probes_under_batches(server, medium)}
    finally:
        server.stop()


def probes_under_batches(server: RunningServer, items: list[dict[str, object]]) -> dict[str, Any]:
    """Four clients send `items` as batches back to back while `/healthz` is asked every
    50 ms; return the probes' latencies and every failure of either."""
    body = json.dumps({"requests": items}).encode()
    until = time.monotonic() + LOADED_SECONDS
    batches: list[int] = []
    failures: list[str] = []

    def send_batches() -> None:
        while time.monotonic() < until:
            try:
                batches.append(server.request("POST", "/v1/moves", body, timeout=60)[0])
            except OSError as error:
                failures.append(f"batch: {error!r}")

    clients = [threading.Thread(target=send_batches) for _ in range(BATCH_CLIENTS)]
    for client in clients:
        client.start()
    probes_ms: list[float] = []
    while time.monotonic() < until:
        started = time.perf_counter()
        try:
            status = server.request("GET", "/healthz", timeout=5)[0]
        except OSError as error:
            failures.append(f"probe: {error!r}")
        else:
            probes_ms.append((time.perf_counter() - started) * 1000)
            if status != 200:
                failures.append(f"probe: {status}")
        time.sleep(PROBE_INTERVAL_SECONDS)  # the probe's period, as an orchestrator's
    for client in clients:
        client.join()
    failures += [f"batch: {status}" for status in batches if status != 200]
    return {
        "batches answered under load": len(batches),
        "probes under load": len(probes_ms),
        "probe p50 ms": round(statistics.median(probes_ms), 1),
        "probe p99 ms": round(statistics.quantiles(probes_ms, n=100)[98], 1),
        "failures": failures,
    }


def main() -> None:
    """Measure and print the wall times as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", type=int, default=MAX_SIDE, choices=range(5, MAX_SIDE + 1))
    print(json.dumps(measure(parser.parse_args().side), indent=2))


if __name__ == "__main__":
    main()

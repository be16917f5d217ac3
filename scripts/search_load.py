#!/usr/bin/env python3
"""Searches under load against `python -m service` on 127.0.0.1, as shipped (two workers).

    python -m scripts.search_load            # 20 s a phase
    python -m scripts.search_load --short    # a few seconds a phase, as CI runs it

Three phases, each measured in this run:

1. **Probes alone**: `/healthz`, `/readyz`, a 3x3 and a 4x4 answer, a few a second each:
   the baseline latency.
2. **One search at a time** (the server not saturated): 15x15 searches at the default
   budget, one after another. The budget holds: the time each search reports, and the
   whole request, at p99 at most budget + 50 ms.
3. **Searches on every core**: more clients searching than there are slots, so every slot
   is busy and the rest are refused, while the probes go on. Probes and table answers: all
   200, p99 at most 150 ms (an orchestrator must not kill a busy pod). Searches: 200 or
   503 `busy` with Retry-After, refused fast, and never another 5xx.

It prints each figure and a verdict, as JSON lines, and exits 1 if a check fails. Latencies
are what a client on the same machine sees; the machine is shared, so the ratios to phase 1
say more than the absolute figures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from scripts import servers

GOMOKU = json.dumps({"board": "." * 112 + "X" + "." * 112}).encode()
PROBES: dict[str, tuple[str, str, bytes | None]] = {
    "healthz": ("GET", "/healthz", None),
    "readyz": ("GET", "/readyz", None),
    "3x3": ("POST", "/v1/move", b'{"board": "X...O...."}'),
    "4x4": ("POST", "/v1/move", b'{"board": "XO..............", "rules": {"k": 3}}'),
}
BUDGET_MS = 250
#: What the issue asks: budget + 50 ms for a search alone, 150 ms for probes under searches.
BUDGET_SLACK_MS = 50
PROBE_P99_MS = 150
#: Searching clients in phase 3: twice the slots of a 2-core machine, so some are refused.
SEARCHERS = 4


@dataclass
class Timings:
    """Latencies (ms) and statuses, by what was asked; safe to add to from many threads."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    statuses: dict[str, dict[int, int]] = field(default_factory=dict)
    search_ms: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, status: int, milliseconds: float) -> None:
        with self.lock:
            self.latencies.setdefault(name, []).append(milliseconds)
            counts = self.statuses.setdefault(name, {})
            counts[status] = counts.get(status, 0) + 1


def p99(values: list[float]) -> float:
    """Return the 99th percentile (the largest value for fewer than 100)."""
    if len(values) < 100:
        return max(values)
    return statistics.quantiles(values, n=100)[98]


def send(
    port: int, method: str, path: str, body: bytes | None
) -> tuple[int, dict[str, str], bytes]:
    """Send one request on a new connection; return status, headers and body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def repeat(until: float, action: Callable[[], None], pause: float = 0.0) -> None:
    while time.monotonic() < until:
        action()
        if pause:
            time.sleep(pause)  # the pace of a client, part of the load being measured


def probe(port: int, timings: Timings, until: float) -> list[threading.Thread]:
    """Start one thread per probe, each sending about ten a second until `until`."""

    def one(name: str) -> None:
        method, path, body = PROBES[name]
        started = time.perf_counter()
        try:
            status = send(port, method, path, body)[0]
        except OSError:
            status = 0
        timings.add(name, status, (time.perf_counter() - started) * 1000)

    threads = [
        threading.Thread(target=repeat, args=(until, lambda name=name: one(name), 0.1))
        for name in PROBES
    ]
    for thread in threads:
        thread.start()
    return threads


def searcher(port: int, timings: Timings, until: float) -> threading.Thread:
    """Start a thread sending 15x15 searches one after another until `until`."""

    def one() -> None:
        started = time.perf_counter()
        try:
            status, headers, body = send(port, "POST", "/v1/move", GOMOKU)
        except OSError:
            status, headers, body = 0, {}, b""
        elapsed = (time.perf_counter() - started) * 1000
        name = "search" if status == 200 else "refused" if status == 503 else "search_failed"
        timings.add(name, status, elapsed)
        if status == 200:
            with timings.lock:
                timings.search_ms.append(json.loads(body)["search"]["time_ms"])
        elif status == 503 and (
            not headers.get("Retry-After", "").isdigit()
            or int(headers["Retry-After"]) < 1
            or json.loads(body)["code"] != "busy"
        ):
            timings.add("refused_badly", status, elapsed)
        elif status == 503:
            time.sleep(0.05)  # a client that is refused comes back soon, not at once

    thread = threading.Thread(target=repeat, args=(until, one))
    thread.start()
    return thread


def run_phase(port: int, seconds: float, searchers: int) -> Timings:
    timings = Timings()
    until = time.monotonic() + seconds
    threads = probe(port, timings, until) if searchers != 1 else []
    threads += [searcher(port, timings, until) for _ in range(searchers)]
    for thread in threads:
        thread.join()
    return timings


def report(name: str, passed: bool, figures: dict[str, object]) -> bool:
    print(json.dumps({"check": name, "verdict": "PASS" if passed else "FAIL", **figures}))
    return passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--short", action="store_true", help="a few seconds a phase")
    parser.add_argument("--tables-dir", type=Path, help="where the solved tables are kept")
    options = parser.parse_args()
    seconds = 4.0 if options.short else 20.0
    with tempfile.TemporaryDirectory() as workdir:
        log = Path(workdir) / "server.log"
        with log.open("wb") as output:
            server = servers.start_server(
                {"ACCESS_LOG": "false", "SEARCH_SLOTS": "2"},
                stdout=output,
                stderr=output,
                tables_dir=options.tables_dir,
            )
        try:
            baseline = run_phase(server.port, seconds, searchers=0)
            alone = run_phase(server.port, seconds, searchers=1)
            loaded = run_phase(server.port, seconds, searchers=SEARCHERS)
        finally:
            server.stop()
    verdicts = [
        check_baseline(baseline),
        check_budget(alone),
        check_probes_under_searches(baseline, loaded),
        check_refusals(loaded),
    ]
    sys.exit(0 if all(verdicts) else 1)


def probe_figures(timings: Timings) -> dict[str, object]:
    return {
        f"{name}_p99_ms": round(p99(timings.latencies[name]), 1)
        for name in PROBES
        if name in timings.latencies
    }


def probe_failures(timings: Timings) -> int:
    """Return how many probes and table answers were not 200."""
    return sum(
        count
        for name in PROBES
        for status, count in timings.statuses.get(name, {}).items()
        if status != 200
    )


def check_baseline(baseline: Timings) -> bool:
    return report(
        "probes alone (the baseline)",
        probe_failures(baseline) == 0,
        {
            "requests": sum(len(v) for v in baseline.latencies.values()),
            "probe_failures": probe_failures(baseline),
            **probe_figures(baseline),
        },
    )


def check_budget(alone: Timings) -> bool:
    searches = alone.latencies.get("search", [])
    reported = p99(alone.search_ms) if alone.search_ms else float("inf")
    request = p99(searches) if searches else float("inf")
    limit = BUDGET_MS + BUDGET_SLACK_MS
    return report(
        f"one search at a time, budget {BUDGET_MS} ms",
        bool(searches) and reported <= limit and request <= limit
        and set(alone.statuses) == {"search"},
        {"searches": len(searches), "search_time_p99_ms": round(reported, 1),
         "request_p99_ms": round(request, 1), "limit_ms": limit},
    )  # fmt: skip


def check_probes_under_searches(baseline: Timings, loaded: Timings) -> bool:
    figures = probe_figures(loaded)
    worst = max(p99(loaded.latencies[name]) for name in PROBES)
    base = max(p99(baseline.latencies[name]) for name in PROBES)
    return report(
        f"probes and tables while {SEARCHERS} clients search on 2 slots",
        probe_failures(loaded) == 0 and worst <= PROBE_P99_MS,
        {"probes": sum(len(loaded.latencies[name]) for name in PROBES),
         "probe_failures": probe_failures(loaded), **figures,
         "worst_p99_ms": round(worst, 1), "limit_ms": PROBE_P99_MS,
         "worst_p99_over_baseline": round(worst / base, 1)},
    )  # fmt: skip


def check_refusals(loaded: Timings) -> bool:
    searched = len(loaded.latencies.get("search", []))
    refused = loaded.latencies.get("refused", [])
    failed = len(loaded.latencies.get("search_failed", []))
    badly = len(loaded.latencies.get("refused_badly", []))
    return report(
        "searches beyond the slots are refused busy, fast",
        searched > 0 and bool(refused) and failed == 0 and badly == 0,
        {"searched": searched, "refused_busy": len(refused),
         "refused_p99_ms": round(p99(refused), 1) if refused else None,
         "other_failures": failed, "busy_without_retry_after": badly},
    )  # fmt: skip


if __name__ == "__main__":
    main()

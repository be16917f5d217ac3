"""`python -m benchmarks`: run every benchmark, print the tables, write docs/PERFORMANCE.md."""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from benchmarks import app_bench, engine_bench, family_bench, family_http, http_bench

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {
    "engine": 100_000,
    "throughput": 0.90,
    "p99": 1.25,
    "batch": 20,
    "startup": 1.0,
    "rss": 60.0,
    "family_throughput": 0.8,
    "family_p99": 1.5,
    "first_request": 1.0,
    "server_pss": 400.0,
    "family_startup": 2.0,
    "first_start": 60.0,
}


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def report(seconds: float, rounds: int) -> str:
    """Run everything and return the markdown report."""
    engine = engine_bench.measure()
    layers = app_bench.layer_costs()
    json_figures = app_bench.json_choices()
    http = http_bench.measure(seconds=seconds, rounds=rounds)
    family = family_http.measure(seconds=seconds, rounds=rounds)
    members = family_bench.measure()
    family_ratios = family_http.ratios(family)
    slowest_first = max(family.first_requests.values())
    family_startup = max([*family.startup_seconds, *family.container_startup_seconds])

    floor = http_bench.median_run(http.floor)
    service = http_bench.median_run(http.service)
    throughput = statistics.median(r.per_second for r in http.service) / statistics.median(
        r.per_second for r in http.floor
    )
    p99 = statistics.median(r.p99_ms for r in http.service) / statistics.median(
        r.p99_ms for r in http.floor
    )
    engine_ratio = engine.textbook_empty / engine.engine_empty
    single = http.batches[1].per_second
    batch_ratio = http.batches[1000].per_second * 1000 / single
    startup = statistics.median(http.startup_seconds)
    rss = max(http.worker_rss_mb)

    lines = [
        "# Performance",
        "",
        "Every figure below comes from one run of `python -m benchmarks` on "
        f"{datetime.now(UTC):%Y-%m-%d} ({platform.python_implementation()} "
        f"{platform.python_version()}, {os.cpu_count()} cores). Ratios compare measurements "
        "taken in the same run, so the machine's speed cancels out; absolute figures are for "
        "orientation only, on a shared and noisy machine.",
        "",
        # The hand-written reading of these figures lives in its own file, never in this one:
        # the next run rewrites this file whole.
        "This file is written by `python -m benchmarks` and never edited by hand. What the "
        "figures mean, how the hot path got here, and the figures of the other benchmarks "
        "(start-up and memory with the compiled search, the answer cache): "
        "[performance-analysis.md](performance-analysis.md).",
        "",
        "## Targets",
        "",
        "| target | measured | |",
        "|---|---|---|",
        f"| engine at least 100,000x faster than textbook minimax on the empty board | "
        f"{engine_ratio:,.0f}x | {verdict(engine_ratio >= TARGETS['engine'])} |",
        f"| POST /v1/move throughput at least 0.90 of the floor's | {throughput:.2f} | "
        f"{verdict(throughput >= TARGETS['throughput'])} |",
        f"| POST /v1/move p99 latency at most 1.25x the floor's | {p99:.2f}x | "
        f"{verdict(p99 <= TARGETS['p99'])} |",
        f"| batches of 1,000: at least 20x the positions per second of single requests | "
        f"{batch_ratio:.1f}x | {verdict(batch_ratio >= TARGETS['batch'])} |",
        f"| start-up to ready under 1 s | {startup:.2f} s | "
        f"{verdict(startup < TARGETS['startup'])} |",
        f"| resident memory per worker under 60 MB | {rss:.1f} MB | "
        f"{verdict(rss < TARGETS['rss'])} |",
        *(
            f"| {name}: throughput at least 0.8 of 3x3's, p99 at most 1.5x | "
            f"{rate:.2f}, {tail:.2f}x | "
            f"{verdict(rate >= TARGETS['family_throughput'] and tail <= TARGETS['family_p99'])} |"
            for name, (rate, tail) in family_ratios.items()
        ),
        f"| the first request of every game, once ready, within 1 s | slowest "
        f"{slowest_first * 1e3:,.0f} ms | {verdict(slowest_first <= TARGETS['first_request'])} |",
        f"| the whole server (master and 2 workers), proportional set size, at most 400 MB | "
        f"{family.pss_mb:.0f} MB | {verdict(family.pss_mb <= TARGETS['server_pss'])} |",
        f"| ready within 2 s, every start after the first, checkout and container "
        f"(--read-only) | {family_startup:.2f} s"
        + ("" if family.container_startup_seconds else " (no Docker engine: checkout only)")
        + f" | {verdict(family_startup <= TARGETS['family_startup'])} |",
        f"| the first start of a fresh install (every table solved) ready within 60 s | "
        f"{family.first_start_seconds:.1f} s | "
        f"{verdict(family.first_start_seconds <= TARGETS['first_start'])} |",
        "",
        "## 1. Engine",
        "",
        "`python -m benchmarks.engine_bench`. Time per best move, in one process: the engine "
        "(legality, a table lookup, the position after the move) against the textbook "
        "recursive minimax (no pruning, no memo) and alpha-beta (no memo).",
        "",
        f"| search | empty board | per position, sample of {engine.sample_size} legal positions |",
        "|---|---|---|",
        f"| textbook minimax | {engine.textbook_empty * 1e3:,.0f} ms | "
        f"{engine.textbook_sample * 1e6:,.0f} us |",
        f"| alpha-beta | {engine.alpha_beta_empty * 1e3:,.1f} ms | "
        f"{engine.alpha_beta_sample * 1e6:,.1f} us |",
        f"| bestmove engine | {engine.engine_empty * 1e6:,.1f} us | "
        f"{engine.engine_sample * 1e6:,.1f} us |",
        "",
        f"Every one of the {engine.positions:,} legal unfinished positions (either side to move): "
        f"{engine.engine_per_move * 1e6:.1f} us per best move on average. Building the table "
        f"at start-up: {engine.build_seconds * 1e3:.0f} ms; it holds "
        f"{engine.table_bytes / 1e3:,.0f} kB (tracemalloc).",
        "",
        "## 2. HTTP against the floor",
        "",
        "`python -m benchmarks.http_bench`. The floor is plain `gunicorn -w 2` (sync workers) "
        "serving `benchmarks/floor_app.py`, a Flask app that parses the same JSON body and "
        "answers a constant. The service runs as shipped: `python -m service` with 2 workers, "
        "access log, metrics, CORS and request ids on. wrk: 1 thread, "
        f"{http_bench.CONNECTIONS} connections, {seconds:g} s a run after a 2 s warm-up, "
        "pinned to core 1, the servers to core 0; floor and service alternate, "
        f"{rounds} rounds each. The requests are 500 legal positions in all three encodings.",
        "",
        "| server, request | requests/s | p50 | p99 | errors | vs floor |",
        "|---|---|---|---|---|---|",
    ]

    def row(name: str, run: http_bench.Run) -> str:
        return (
            f"| {name} | {run.per_second:,.0f} | {run.p50_ms:.1f} ms | {run.p99_ms:.1f} ms | "
            f"{run.errors} | {run.per_second / floor.per_second:.2f} |"
        )

    for index, (floor_run, service_run) in enumerate(zip(http.floor, http.service, strict=True)):
        lines.append(row(f"floor, POST /v1/move (round {index + 1})", floor_run))
        lines.append(row(f"service, POST /v1/move (round {index + 1})", service_run))
    lines += [
        row("service, GET /v1/move", http.endpoints["get"]),
        row("service, POST /v1/analysis", http.endpoints["analysis"]),
        "",
        f"Medians: throughput {throughput:.2f} of the floor's, p99 {p99:.2f}x the floor's "
        f"(floor {floor.p99_ms:.1f} ms, service {service.p99_ms:.1f} ms).",
        "",
        "## 3. Scaling",
        "",
        "Batches (`POST /v1/moves`), same setup: positions per second against batch size.",
        "",
        "| batch size | requests/s | positions/s | p99 | vs single requests |",
        "|---|---|---|---|---|",
    ]
    for size, run in http.batches.items():
        lines.append(
            f"| {size} | {run.per_second:,.1f} | {run.per_second * size:,.0f} | "
            f"{run.p99_ms:.1f} ms | {run.per_second * size / single:.1f}x |"
        )
    lines += [
        "",
        "Workers: here the server is not pinned (it shares both cores with wrk), since workers "
        "scale with cores.",
        "",
        "| workers | requests/s | p99 |",
        "|---|---|---|",
        *(
            f"| {count} | {run.per_second:,.0f} | {run.p99_ms:.1f} ms |"
            for count, run in http.workers.items()
        ),
        "",
        "## 4. Choices",
        "",
        "Worker class (2 workers, pinned as in section 2):",
        "",
        "| worker class | requests/s | p50 | p99 |",
        "|---|---|---|---|",
        *(
            f"| {name} | {run.per_second:,.0f} | {run.p50_ms:.1f} ms | {run.p99_ms:.1f} ms |"
            for name, run in http.worker_classes.items()
        ),
        "",
        "What each layer of the app costs a POST /v1/move, in-process (`python -m "
        "benchmarks.app_bench`: the apps called as WSGI callables, no server, no network):",
        "",
        "| app | us per request |",
        "|---|---|",
        *(f"| {name} | {value:.1f} |" for name, value in layers.items()),
        "",
        "JSON handling:",
        "",
        "| alternative | us |",
        "|---|---|",
        *(f"| {name} | {value:.2f} |" for name, value in json_figures.items()),
        "",
        "## 5. The m,n,k family",
        "",
        "`python -m benchmarks.family_http`: the server as shipped (2 workers) with its tables "
        "in a scratch `TABLES_DIR`. POST /v1/move over 500 different legal positions of each "
        "game (the empty board among them), pinned as in section 2, "
        f"{rounds} alternating rounds:",
        "",
        "| load | requests/s | p50 | p99 | errors |",
        "|---|---|---|---|---|",
        *(
            f"| {name} (round {index + 1}) | {run.per_second:,.0f} | {run.p50_ms:.1f} ms | "
            f"{run.p99_ms:.1f} ms | {run.errors} |"
            for name, runs in family.runs.items()
            for index, run in enumerate(runs)
        ),
        "",
        f"First start of a fresh install (all 100 tables solved and written): "
        f"{family.first_start_seconds:.1f} s. Later starts, to ready: "
        + ", ".join(f"{value:.2f} s" for value in family.startup_seconds)
        + "; in the container (`--read-only`, tables in the image): "
        + (
            ", ".join(f"{value:.2f} s" for value in family.container_startup_seconds)
            or "not measured (no Docker engine)"
        )
        + f". The whole server after the 4x4 loads: {family.pss_mb:.0f} MB proportional set "
        f"size. First request of each game on a server just ready: median "
        f"{statistics.median(family.first_requests.values()) * 1e3:.1f} ms, slowest "
        f"{slowest_first * 1e3:.1f} ms.",
        "",
        "`python -m benchmarks.family_bench`: each game's preparation, the vectorised "
        "retrograde solve, next to a memoised pure-Python solve of the same game measured "
        "in the same run (the product's exact minimax, service.game.minimax, over bit sets; "
        "its memory by tracemalloc up to twelve cells). Positions: those play reaches with X "
        "starting. "
        "The table holds one byte for each of the 3^N arrangements of the board.",
        "",
        *family_bench.table_lines(members),
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=8, help="length of each wrk run")
    parser.add_argument("--rounds", type=int, default=3, help="floor/service rounds")
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "PERFORMANCE.md")
    arguments = parser.parse_args()
    for tool in ("wrk",):
        if subprocess.run(["which", tool], capture_output=True, check=False).returncode:
            sys.exit(f"{tool} is needed: apt-get install {tool}")
    text = report(arguments.seconds, arguments.rounds)
    print(text)
    arguments.output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

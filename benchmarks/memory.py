"""`python -m benchmarks.memory`: what the answer cache holds, and the whole server's memory
under an adversarial spread of 4x4 analyses.

1. In process: an answer cache filled with distinct 4x4 analyses, its real size measured
   with tracemalloc against what the cache counts for it (`entry_size`): the count must
   not be below the real size, or the byte bound would not bound memory.
2. Through the server as shipped (`python -m service`, 2 workers): POST /v1/analysis over
   thousands of distinct legal positions of all eight 4x4 games, cycled by wrk, so that
   nearly every answer is a miss that fills the cache until its bound evicts. The whole
   server's proportional set size (master and workers) after, next to the same server with
   ANSWER_CACHE_MB=0 under the same load in the same run: the baseline.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

from benchmarks.family_http import _children, positions, proportional_set_size_mb
from benchmarks.http_bench import lua_script, service_server, wrk
from service.api.answers import Answers
from service.api.app_settings import DEFAULT_ANSWER_CACHE_BYTES
from service.api.schemas import MoveRequest
from service.game.engine import Engine
from service.game.rules import FAMILY, Rules
from service.game.store import prepare_tables

#: Every 4x4 game: the largest answers and the largest tables.
FOUR_BY_FOUR = tuple(rules for rules in FAMILY if rules.rows == rules.cols == 4)


@dataclass
class MemoryFigures:
    """What the cache counts against what it holds, and the server's memory under load."""

    entries: int
    counted_bytes: int
    measured_bytes: int
    pss_mb: float
    pss_without_cache_mb: float
    requests: int


def analysis_requests(rules: Rules, boards: list[str]) -> list[tuple[str, str | None]]:
    """POST /v1/analysis bodies naming the rules, one per board."""
    named = {"rows": rules.rows, "cols": rules.cols, "k": rules.k, "misere": rules.misere}
    return [("/v1/analysis", json.dumps({"board": board, "rules": named})) for board in boards]


def cache_accounting(tables_dir: Path, count: int) -> tuple[int, int, int]:
    """Fill a cache with `count` distinct 4x4 analyses; return entries, counted and real bytes."""
    engine = Engine(prepare_tables(tables_dir, FOUR_BY_FOUR))
    requests = [
        MoveRequest.model_validate_json(body or "")
        for rules in FOUR_BY_FOUR
        for _, body in analysis_requests(rules, positions(rules, count // len(FOUR_BY_FOUR)))
    ]
    answers = Answers(engine, None, DEFAULT_ANSWER_CACHE_BYTES)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for request in requests:
        answers.analysis(request)
    measured = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    entries = len(requests)
    return entries, answers.cached_bytes, measured


def server_pss(
    tables_dir: Path, bodies: list[tuple[str, str | None]], seconds: float
) -> tuple[float, float, int]:
    """PSS of the server after `seconds` of distinct analyses, with the cache and without."""
    found = []
    requests = 0
    with tempfile.TemporaryDirectory(prefix="bestmove-memory-") as scratch:
        directory = Path(scratch)
        script = lua_script(directory, "analyses", "POST", bodies)
        for cache_mb in (str(DEFAULT_ANSWER_CACHE_BYTES // 2**20), "0"):
            env = {
                "TABLES_DIR": str(tables_dir),
                "ACCESS_LOG": "false",
                "ANSWER_CACHE_MB": cache_mb,
            }
            with service_server(2, directory / "server.log", env=env) as (base, _, process):
                run = wrk(base, script, seconds, connections=4)
                requests = max(requests, round(run.per_second * seconds))
                children = [int(pid) for pid in _children(process.pid)]
                found.append(proportional_set_size_mb([process.pid, *children]))
    return found[0], found[1], requests


def measure(tables_dir: Path, count: int = 16_000, seconds: float = 60) -> MemoryFigures:
    """Run both measurements on the tables in `tables_dir` (prepared if missing)."""
    prepare_tables(tables_dir)
    entries, counted, measured = cache_accounting(tables_dir, min(count, 4000))
    bodies = [
        body
        for rules in FOUR_BY_FOUR
        for body in analysis_requests(rules, positions(rules, count // len(FOUR_BY_FOUR)))
    ]
    pss, pss_without_cache, requests = server_pss(tables_dir, bodies, seconds)
    return MemoryFigures(entries, counted, measured, pss, pss_without_cache, requests)


def main() -> None:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--tables-dir", type=Path, default=Path(tempfile.gettempdir()) / "bestmove-bench-tables"
    )
    parser.add_argument("--positions", type=int, default=16_000)
    parser.add_argument("--seconds", type=float, default=60)
    arguments = parser.parse_args()
    figures = measure(arguments.tables_dir, arguments.positions, arguments.seconds)
    print(figures)
    print(
        f"cache: {figures.entries} analyses counted as {figures.counted_bytes / 2**20:.1f} MiB, "
        f"measured {figures.measured_bytes / 2**20:.1f} MiB "
        f"(counted/measured {figures.counted_bytes / figures.measured_bytes:.2f})"
    )
    print(
        f"server after ~{figures.requests} distinct 4x4 analyses: PSS {figures.pss_mb:.0f} MB "
        f"with the default cache, {figures.pss_without_cache_mb:.0f} MB without "
        f"(ratio {figures.pss_mb / figures.pss_without_cache_mb:.2f})"
    )


if __name__ == "__main__":
    main()

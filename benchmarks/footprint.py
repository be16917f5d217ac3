"""`python -m benchmarks.footprint [REV]`: what the server costs to start and to keep.

`python -m service` as shipped (2 workers), started `--starts` times: the seconds from the
start to `/readyz` answering 200, then, after four 15x15 searches, the largest worker's
resident set and the whole server's proportional set size (master and workers; shared pages
split between them). With REV, the same for that revision from a temporary git worktree,
alternating with this checkout, so both are measured on the same machine in the same minutes.
Run it once before quoting it: a first start after the search's source changed compiles it.
`--container` adds `docker run --read-only` to ready, for this checkout's image.

    python -m benchmarks.footprint 619ae71 --container
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from contextlib import ExitStack
from pathlib import Path

from benchmarks.compare import worktree
from benchmarks.family_http import container_startups, proportional_set_size_mb
from benchmarks.http_bench import ROOT, rss_of_workers
from scripts.servers import start_server

GOMOKU_OPENING = json.dumps({"board": "." * 112 + "X" + "." * 112}).encode()


def measure_once(directory: Path) -> dict[str, float]:
    """Start the server from `directory`; return its start-up, worker RSS and server PSS."""
    with open(os.devnull, "wb") as quiet:
        server = start_server(
            {"PYTHONPATH": str(directory), "ACCESS_LOG": "false"},
            cwd=directory, stdout=quiet, stderr=quiet,
        )  # fmt: skip
    try:
        for _ in range(4):
            status, _headers, _body = server.request("POST", "/v1/move", GOMOKU_OPENING)
            if status != 200:
                raise RuntimeError(f"a 15x15 move answered {status}")
        workers = server.worker_pids()
        return {
            "ready_seconds": server.ready_after,
            "worker_rss_mb": max(rss_of_workers(server.process)),
            "server_pss_mb": proportional_set_size_mb([server.process.pid, *workers]),
        }
    finally:
        server.stop()


def measure(revision: str | None, starts: int) -> dict[str, dict[str, list[float]]]:
    """Start each tree `starts` times, alternating; return every figure by tree."""
    with ExitStack() as stack:
        trees = {"this checkout": ROOT}
        if revision is not None:
            trees[revision] = stack.enter_context(worktree(revision))
        found: dict[str, dict[str, list[float]]] = {name: {} for name in trees}
        for _ in range(starts):
            for name, directory in trees.items():
                for key, value in measure_once(directory).items():
                    found[name].setdefault(key, []).append(value)
        return found


def main() -> None:
    """Measure and print a markdown table of the ranges."""
    parser = argparse.ArgumentParser(description="The server's start-up and memory.")
    parser.add_argument("revision", nargs="?", help="an earlier revision to measure beside")
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--container", action="store_true", help="also docker run to ready")
    arguments = parser.parse_args()
    figures = measure(arguments.revision, arguments.starts)
    print("| tree | start to ready (s) | largest worker RSS (MB) | server PSS (MB) |")
    print("|---|---|---|---|")
    for name, row in figures.items():
        cells = [
            f"{min(row[key]):.2f} to {max(row[key]):.2f} (median {statistics.median(row[key]):.2f})"
            for key in ("ready_seconds", "worker_rss_mb", "server_pss_mb")
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if arguments.container:
        seconds = container_startups(arguments.starts)
        print(f"\ncontainer, docker run --read-only to ready: {[round(s, 2) for s in seconds]} s")


if __name__ == "__main__":
    main()

"""`python -m benchmarks.compare [REV] [--variant NAME:KEY=VALUE,...]`: 3x3 POST vs its floor.

The serving issue's method: POST /v1/move of a 3x3 board, hey with 32 connections for 5 s,
each service alternating with the floor (a minimal Flask app that parses the body, under
plain `gunicorn -w 2`) in every round, median of 5 rounds; unpinned (servers and hey share
both cores) and pinned (servers on core 0, hey on core 1). Every figure is a ratio to the
floor measured minutes apart on the same machine.

Beside this checkout as shipped (`python -m service`, the defaults a 2-core machine gets),
it runs an earlier revision from a temporary git worktree (REV, optional) and any variants of
this checkout's environment (`--variant sync:GUNICORN_WORKER_CLASS=sync,GUNICORN_THREADS=1`),
so that a change that claims "faster" or "no worse" shows its figures side by side.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from benchmarks.http_bench import ROOT, cores, search
from scripts.servers import SERVICE_COMMAND, RunningServer, start_server

BODY = '{"board": "X...O...."}'
CONNECTIONS = 32

#: A server of a round: its command, working directory and extra environment.
Server = tuple[list[str], Path, dict[str, str]]


@contextmanager
def worktree(revision: str) -> Iterator[Path]:
    """Check `revision` out into a temporary directory; remove it after."""
    with tempfile.TemporaryDirectory(prefix="bestmove-compare-") as scratch:
        path = Path(scratch) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", str(path), revision],
                       cwd=ROOT, check=True, capture_output=True)  # fmt: skip
        try:
            yield path
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(path)],
                           cwd=ROOT, check=False, capture_output=True)  # fmt: skip


def servers(
    earlier: tuple[str, Path] | None, variants: dict[str, dict[str, str]], *, pinned: bool
) -> dict[str, Server]:
    """The servers of a round, the floor first."""
    pin = cores(pinned)[0]
    floor = [*pin, sys.executable, "-m", "gunicorn", "-w", "2", "-b", "127.0.0.1:{port}",
             "benchmarks.floor_app:app"]  # fmt: skip
    chosen: dict[str, Server] = {"floor": (floor, ROOT, {})}
    if earlier is not None:
        revision, tree = earlier
        chosen[revision] = ([*pin, *SERVICE_COMMAND], tree, {"PYTHONPATH": str(tree)})
    chosen["this checkout"] = ([*pin, *SERVICE_COMMAND], ROOT, {"PYTHONPATH": str(ROOT)})
    for name, env in variants.items():
        chosen[name] = ([*pin, *SERVICE_COMMAND], ROOT, {"PYTHONPATH": str(ROOT), **env})
    return chosen


def run_server(command: list[str], directory: Path, env: dict[str, str]) -> RunningServer:
    """Start one server and wait until it answers."""
    ready = "/v1/move" if "gunicorn" in command else "/readyz"
    with open(os.devnull, "wb") as quiet:
        return start_server(
            env, command=command, cwd=directory, stdout=quiet, stderr=quiet,
            ready_path=ready, any_status=ready == "/v1/move",
        )  # fmt: skip


def hey(url: str, seconds: float, body_file: Path, *, pinned: bool) -> tuple[float, float]:
    """Requests per second and p99 in ms of one hey run; fail if any request failed."""
    command = [*cores(pinned)[1], "hey", "-z", f"{seconds:g}s", "-c", str(CONNECTIONS),
               "-m", "POST", "-T", "application/json", "-D", str(body_file), url]  # fmt: skip
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    codes = search(r"Status code distribution:\n((?:\s+\[\d+\]\s+\d+ responses\n?)+)", output)
    if any(not line.strip().startswith("[200]") for line in codes.group(1).strip().splitlines()):
        raise RuntimeError(f"not every answer was 200:\n{output}")
    if "Error distribution" in output:
        raise RuntimeError(f"some requests failed:\n{output}")
    per_second = float(search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p99 = float(search(r"99%+ in ([\d.]+) secs", output).group(1)) * 1000
    return per_second, p99


def compare(
    revision: str | None, variants: dict[str, dict[str, str]], rounds: int, seconds: float
) -> dict[str, dict[str, float]]:
    """Return, per method and service, the median throughput and p99 as ratios to the floor."""
    figures: dict[str, dict[str, float]] = {}
    with ExitStack() as stack:
        earlier = (revision, stack.enter_context(worktree(revision))) if revision else None
        body = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "body.json"
        body.write_text(BODY)
        for method, pinned in (("unpinned", False), ("pinned", True)):
            runs: dict[str, list[tuple[float, float]]] = {}
            for _ in range(rounds):
                for name, (command, where, env) in servers(
                    earlier, variants, pinned=pinned
                ).items():
                    server = run_server(command, where, env)
                    try:
                        url = server.base_url + "/v1/move"
                        hey(url, 2, body, pinned=pinned)  # warm-up
                        result = hey(url, seconds, body, pinned=pinned)
                    finally:
                        server.process.terminate()
                        server.process.wait(timeout=60)
                    runs.setdefault(name, []).append(result)
                    print(method, name, f"{result[0]:,.0f}/s", f"p99 {result[1]:.1f} ms",
                          flush=True)  # fmt: skip
            floor = runs.pop("floor")
            floor_rate = statistics.median(rate for rate, _ in floor)
            floor_p99 = statistics.median(p99 for _, p99 in floor)
            for name, measured in runs.items():
                figures[f"{method}: {name}"] = {
                    "throughput": statistics.median(rate for rate, _ in measured) / floor_rate,
                    "p99": statistics.median(p99 for _, p99 in measured) / floor_p99,
                }
    return figures


def parse_variant(text: str) -> tuple[str, dict[str, str]]:
    """`NAME:KEY=VALUE,KEY=VALUE` as a name and an environment."""
    name, _, assignments = text.partition(":")
    env = dict(pair.split("=", 1) for pair in assignments.split(",") if pair)
    return name, env


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("revision", nargs="?", help="an earlier git revision, e.g. HEAD~3")
    parser.add_argument("--variant", action="append", default=[], type=parse_variant,
                        help="NAME:KEY=VALUE,... this checkout with extra environment")  # fmt: skip
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5)
    arguments = parser.parse_args()
    revision = None
    if arguments.revision:
        revision = subprocess.run(
            ["git", "rev-parse", "--short", arguments.revision],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
    figures = compare(revision, dict(arguments.variant), arguments.rounds, arguments.seconds)
    print(f"\nPOST /v1/move, hey -c {CONNECTIONS}, medians of {arguments.rounds} rounds:")
    print("| method: service | throughput vs floor | p99 vs floor |\n|---|---|---|")
    for name, ratios in figures.items():
        print(f"| {name} | {ratios['throughput']:.2f} | {ratios['p99']:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

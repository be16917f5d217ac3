"""`python -m benchmarks.compare REV`: this checkout's service against an earlier revision's.

Both run as shipped (`python -m service`, 2 workers) from the same Python environment, the
earlier one from a temporary git worktree, and alternate with the floor in every round, so
that each is a ratio to a floor measured minutes apart on the same machine. Two methods:
wrk with the servers pinned to core 0 and wrk to core 1 (docs/PERFORMANCE.md's method, over
500 legal positions), and hey on both cores unpinned (one board, as the reliability script
sends). Prints the median ratios; a change that claims "no worse" shows them side by side.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.http_bench import ROOT, cores, lua_script, search, workload, wrk
from scripts.servers import SERVICE_COMMAND, RunningServer, start_server

BODY = '{"board": "X...O...."}'


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


def servers(earlier: Path, *, pinned: bool) -> dict[str, tuple[list[str], Path, dict[str, str]]]:
    """The three servers of a round: command, directory and extra environment."""
    pin = cores(pinned)[0]
    floor = [*pin, sys.executable, "-m", "gunicorn", "-w", "2", "-b", "127.0.0.1:{port}",
             "benchmarks.floor_app:app"]  # fmt: skip
    return {
        "floor": (floor, ROOT, {}),
        "earlier": ([*pin, *SERVICE_COMMAND], earlier, {"PYTHONPATH": str(earlier)}),
        "this": ([*pin, *SERVICE_COMMAND], ROOT, {"PYTHONPATH": str(ROOT)}),
    }


def run_server(command: list[str], directory: Path, env: dict[str, str]) -> RunningServer:
    ready = "/v1/move" if "gunicorn" in command else "/readyz"
    with open(os.devnull, "wb") as quiet:
        return start_server(
            env, command=command, cwd=directory, stdout=quiet, stderr=quiet,
            ready_path=ready, any_status=ready == "/v1/move",
        )  # fmt: skip


def hey(url: str, seconds: float, body_file: Path) -> tuple[float, float]:
    """Requests per second and p99 in ms of one hey run."""
    command = ["hey", "-z", f"{seconds:g}s", "-c", "64", "-m", "POST",
               "-T", "application/json", "-D", str(body_file), url]  # fmt: skip
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    per_second = float(search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p99 = float(search(r"99%+ in ([\d.]+) secs", output).group(1)) * 1000
    return per_second, p99


def compare(revision: str, rounds: int, seconds: float) -> dict[str, dict[str, float]]:
    """Return, per method, each service's median throughput and p99 as ratios to the floor."""
    figures: dict[str, dict[str, float]] = {}
    with worktree(revision) as earlier, tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        script = lua_script(directory, "move", "POST", workload()["move"])
        body = directory / "body.json"
        body.write_text(BODY)
        for method, pinned in (("wrk, pinned", True), ("hey, unpinned", False)):
            runs: dict[str, list[tuple[float, float]]] = {}
            for _ in range(rounds):
                for name, (command, where, env) in servers(earlier, pinned=pinned).items():
                    server = run_server(command, where, env)
                    try:
                        if pinned:
                            wrk(server.base_url, script, 2)
                            run = wrk(server.base_url, script, seconds)
                            result = (run.per_second, run.p99_ms)
                        else:
                            hey(server.base_url + "/v1/move", 2, body)
                            result = hey(server.base_url + "/v1/move", seconds, body)
                    finally:
                        server.process.terminate()
                        server.process.wait(timeout=60)
                    runs.setdefault(name, []).append(result)
                    print(method, name, f"{result[0]:,.0f}/s", f"p99 {result[1]:.1f} ms",
                          flush=True)  # fmt: skip
            floor_rate = statistics.median(rate for rate, _ in runs["floor"])
            floor_p99 = statistics.median(p99 for _, p99 in runs["floor"])
            for name in ("earlier", "this"):
                figures[f"{method}: {name}"] = {
                    "throughput": statistics.median(rate for rate, _ in runs[name]) / floor_rate,
                    "p99": statistics.median(p99 for _, p99 in runs[name]) / floor_p99,
                }
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("revision", help="the git revision to compare with, e.g. HEAD~3")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=8)
    arguments = parser.parse_args()
    revision = subprocess.run(
        ["git", "rev-parse", "--short", arguments.revision],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    figures = compare(revision, arguments.rounds, arguments.seconds)
    print(f"\nPOST /v1/move against the floor, medians of {arguments.rounds} rounds:")
    print("| method: service | throughput vs floor | p99 vs floor |\n|---|---|---|")
    for name, ratios in figures.items():
        label = name.replace("earlier", revision).replace("this", "this checkout")
        print(f"| {label} | {ratios['throughput']:.2f} | {ratios['p99']:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`python -m benchmarks.family_http`: the m,n,k family through the server as shipped.

`python -m service` with 2 workers and its tables in a scratch TABLES_DIR:
- the first start of a fresh install (an empty directory: every table solved and written),
  then the start-up of every later start, to ready;
- POST /v1/move over 500 different legal positions of 4x4 with four in a row (the empty
  board among them, no body repeated back to back), and the same for misère, against 500
  3x3 positions in the same run: wrk pinned as in section 2, alternating, 3 rounds;
- the first request of every game on a server that has just said it is ready;
- the memory of the whole server (master and workers), as proportional set size, after
  the 4x4 load.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.http_bench import ROOT, Run, lua_script, service_server, workload, wrk
from scripts.servers import free_port
from service.game.rules import FAMILY, Rules
from service.game.table import UNREACHABLE, solve

FOUR = Rules(4, 4, 4)
FOUR_MISERE = Rules(4, 4, 4, misere=True)


@dataclass
class FamilyHttpFigures:
    """What the family costs through the server."""

    first_start_seconds: float
    startup_seconds: list[float]
    runs: dict[str, list[Run]]
    first_requests: dict[Rules, float]
    pss_mb: float
    container_startup_seconds: list[float]


def container_startups(count: int = 3) -> list[float]:
    """Seconds from `docker run --read-only` to /readyz answering 200; [] without Docker."""
    if subprocess.run(["docker", "info"], capture_output=True, check=False).returncode:
        return []
    image = "bestmove:bench"
    subprocess.run(["docker", "build", "--network", "host", "--quiet", "--tag", image, str(ROOT)],
                   check=True, capture_output=True)  # fmt: skip
    found = []
    for _ in range(count):
        port = free_port()
        started = time.monotonic()
        container = subprocess.run(
            ["docker", "run", "--detach", "--network", "host", "--read-only", "--tmpfs", "/tmp",  # noqa: S108 -- the container's own /tmp
             "--env", f"PORT={port}", image],
            check=True, capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip
        try:
            while time.monotonic() - started < 60:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1):
                        found.append(time.monotonic() - started)
                        break
                except OSError:
                    time.sleep(0.02)  # a poll of the readiness URL, bounded above
        finally:
            subprocess.run(["docker", "rm", "--force", container], capture_output=True, check=False)
    return found


def positions(rules: Rules, count: int = 500, seed: int = 2026) -> list[str]:
    """A seeded sample of legal unfinished positions as board strings, the empty one first."""
    table = solve(rules)
    places = np.flatnonzero(table != UNREACHABLE)
    going_on = places[np.abs(table[places].astype(np.int16)) != rules.max_score]
    population = sorted(going_on.tolist())
    # Some games have few unfinished positions (k = 1: only the empty board): all of them then.
    chosen = random.Random(seed).sample(population, min(count - 1, len(population)))
    boards = ["." * rules.cell_count]
    for place in chosen:
        digits = np.base_repr(place, 3).zfill(rules.cell_count)[::-1]
        movers = digits.count("1")
        others = digits.count("2")
        # The mover moves with equal counts as X (X started), else as O.
        mover, other = ("X", "O") if movers == others else ("O", "X")
        board = "".join({"0": ".", "1": mover, "2": other}[digit] for digit in digits)
        if "." in board:
            boards.append(board)
    return boards


def move_requests(rules: Rules, boards: list[str]) -> list[tuple[str, str | None]]:
    """POST /v1/move bodies naming the rules, one per board."""
    named = {"rows": rules.rows, "cols": rules.cols, "k": rules.k, "misere": rules.misere}
    return [("/v1/move", json.dumps({"board": board, "rules": named})) for board in boards]


def proportional_set_size_mb(pids: list[int]) -> float:
    """The summed Pss of processes, in MB."""
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                total += int(line.split()[1])
    return total / 1024


def first_request_seconds(base: str, rules: Rules) -> float:
    """Seconds to answer one move on the empty board of a game."""
    body = json.dumps(
        {"board": "." * rules.cell_count,
         "rules": {"rows": rules.rows, "cols": rules.cols, "k": rules.k, "misere": rules.misere}}
    ).encode()  # fmt: skip
    request = urllib.request.Request(
        base + "/v1/move", data=body, headers={"Content-Type": "application/json"}
    )
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=30) as answer:
        answer.read()
    return time.perf_counter() - started


def measure(seconds: float = 8, rounds: int = 3) -> FamilyHttpFigures:
    """Run every family benchmark through the server."""
    loads = {
        "3x3": workload()["move"],
        "4x4, four in a row": move_requests(FOUR, positions(FOUR)),
        "4x4, four in a row, misère": move_requests(FOUR_MISERE, positions(FOUR_MISERE)),
    }
    with tempfile.TemporaryDirectory(prefix="bestmove-family-") as scratch:
        directory = Path(scratch)
        log = directory / "servers.log"
        env = {"TABLES_DIR": str(directory / "tables")}
        scripts = {name: lua_script(directory, f"load{index}", "POST", requests)
                   for index, (name, requests) in enumerate(loads.items())}  # fmt: skip
        with service_server(2, log, env={**env, "ACCESS_LOG": "true"}) as (_, first_start, _p):
            pass
        startups = []
        runs: dict[str, list[Run]] = {name: [] for name in loads}
        pss = 0.0
        for _ in range(rounds):
            for name, script in scripts.items():
                with service_server(2, log, env=env) as (base, ready_after, process):
                    startups.append(ready_after)
                    wrk(base, script, 2)
                    runs[name].append(wrk(base, script, seconds))
                    if name != "3x3":
                        children = [int(pid) for pid in _children(process.pid)]
                        pss = max(pss, proportional_set_size_mb([process.pid, *children]))
        # One fresh server: each game's first request on it, once it says it is ready.
        with service_server(2, log, env=env) as (base, _, _process):
            first_requests = {rules: first_request_seconds(base, rules) for rules in FAMILY}
    return FamilyHttpFigures(first_start, startups, runs, first_requests, pss, container_startups())


def _children(pid: int) -> list[str]:
    found = Path(f"/proc/{pid}/task/{pid}/children")
    return found.read_text().split() if found.exists() else []


def ratios(figures: FamilyHttpFigures) -> dict[str, tuple[float, float]]:
    """Each 4x4 load's median throughput and p99 as ratios to 3x3's."""
    base = figures.runs["3x3"]
    base_rate = statistics.median(run.per_second for run in base)
    base_p99 = statistics.median(run.p99_ms for run in base)
    return {
        name: (
            statistics.median(run.per_second for run in runs) / base_rate,
            statistics.median(run.p99_ms for run in runs) / base_p99,
        )
        for name, runs in figures.runs.items()
        if name != "3x3"
    }


if __name__ == "__main__":
    measured = measure()
    print(measured)
    print(ratios(measured))

"""`python -m benchmarks.tree_speed [--baseline DIR]`: how fast the compiled tree searches,
and whether it is still the same tree.

The threads benchmark's positions (`benchmarks.threads.positions`: 15x15 freestyle, a few
moves after a seeded opening), each searched by the heuristic tree alone on one thread to a
fixed depth, one depth after another, with a table of a fixed size: no clock decides how
far it looks, so two revisions search the same nodes if their trees are the same.
Reported: the nodes, a digest of every depth's value and move with the nodes (equal
digests: the same tree, node for node), the best time of the rounds and the nodes a second.

With `--baseline DIR` (a checkout of another revision, such as a git worktree whose compiled
cache is prepared there with `python -m service.game.warmup`), the same is measured there
in a process of its own, round for round in turn with this checkout's, and the ratio of the
two times is printed: the speed-up, measured in one run on one machine. Each checkout
makes the positions with its own search (a few moves after the opening): where the two
play those moves differently, the digests differ and the ratio compares other positions.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.threads import positions
from service.game.search import Search
from service.game.warmup import prepare

#: The table's slots: fixed, so that the budget does not size it.
TABLE_SLOTS = 2**17


def measure(count: int, depth: int) -> dict[str, object]:
    """Return the nodes, the digest and the seconds of one pass over the positions."""
    digest = hashlib.sha256()
    nodes = 0
    seconds = 0.0
    for board, mover in positions(count):
        found = Search(board, mover, 600.0, table_slots=TABLE_SLOTS)
        started = time.perf_counter()
        values = [found._negamax_root(plies, exact=False) for plies in range(1, depth + 1)]
        seconds += time.perf_counter() - started
        nodes += found.nodes
        digest.update(repr((values, found.nodes)).encode())
    return {
        "nodes": nodes,
        "digest": digest.hexdigest()[:12],
        "seconds": seconds,
        # Where the search came from (a module every revision has), so that a baseline is
        # known to have run its own code.
        "search": str(Path(inspect.getfile(Search)).resolve()),
    }


def measure_in(checkout: Path, count: int, depth: int) -> dict[str, object]:
    """Return one pass's figures measured in another checkout, in a process of its own."""
    environment = {**os.environ, "PYTHONPATH": str(checkout)}
    arguments = ["--json", "--positions", str(count), "--depth", str(depth)]
    command = [sys.executable, str(Path(__file__).resolve()), *arguments]
    done = subprocess.run(
        command, cwd=checkout, env=environment, capture_output=True, text=True, check=True
    )
    figures: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    if not Path(str(figures["search"])).is_relative_to(checkout.resolve()):
        # An installed copy came first on the path: that would time this checkout twice.
        raise RuntimeError(f"{checkout} searched with {figures['search']}, not its own code")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--positions", type=int, default=24)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--json", action="store_true", help="one pass, as one line of JSON")
    arguments = parser.parse_args()
    prepare()
    if arguments.json:
        print(json.dumps(measure(arguments.positions, arguments.depth)))
        return
    runs: dict[str, list[dict[str, object]]] = {"this checkout": [], "baseline": []}
    for _ in range(arguments.rounds):
        runs["this checkout"].append(measure(arguments.positions, arguments.depth))
        if arguments.baseline is not None:
            runs["baseline"].append(
                measure_in(arguments.baseline, arguments.positions, arguments.depth)
            )
    print(f"| tree | nodes | digest | seconds (best of {arguments.rounds}) | nodes a second |")
    print("|---|---|---|---|---|")
    best = {}
    for name, passes in runs.items():
        if passes:
            best[name] = min(float(str(run["seconds"])) for run in passes)
            nodes = int(str(passes[0]["nodes"]))
            print(
                f"| {name} | {nodes:,} | {passes[0]['digest']} | {best[name]:.3f} "
                f"| {nodes / best[name]:,.0f} |"
            )
    if "baseline" in best:
        print(f"\nspeed-up: {best['baseline'] / best['this checkout']:.2f}")


if __name__ == "__main__":
    main()

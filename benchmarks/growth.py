"""`python -m benchmarks.growth`: how much memory clients can make the server keep for good.

`python -m service` as shipped (2 workers), its proportional set size (master and workers,
shared pages split between them) measured a second after it is ready, then after what a
client could send to grow every cache and table it has: three batches of 1,000 empty boards
over the games from 5x5 to the largest board, 20x20 (normal and misère, every line length:
about 7,700 games, so every third game in turn, spread from the smallest to the largest; a
1 ms search each, so every game's search is set up), then four searches of the longest
budget at once on the largest board (`SEARCH_SLOTS=4` here, so that all four run). The
growth is the second figure less the first; the target is at most 64 MB.

    python -m benchmarks.growth
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from itertools import cycle, islice

from benchmarks.family_http import proportional_set_size_mb
from scripts.servers import RunningServer, start_server
from service.game.rules import MAX_SIDE

#: The batches and their size, and the searches, as the serving issue measures them.
BATCHES = 3
BATCH_SIZE = 1000
LONG_SEARCHES = 4
LONGEST_BUDGET_MS = 5000
SMALLEST_SEARCHED_SIDE = 5


def every_game() -> list[dict[str, object]]:
    """Return a request for the empty board of every game from 5x5 to the largest board."""
    return [
        {
            "board": "." * (rows * cols),
            "rules": {"rows": rows, "cols": cols, "k": k, "misere": misere},
            "budget_ms": 1,
        }
        for rows in range(SMALLEST_SEARCHED_SIDE, MAX_SIDE + 1)
        for cols in range(SMALLEST_SEARCHED_SIDE, MAX_SIDE + 1)
        for k in range(1, max(rows, cols) + 1)
        for misere in (False, True)
    ]


def server_pss_mb(server: RunningServer) -> float:
    """Return the whole server's proportional set size, in MB."""
    return proportional_set_size_mb([server.process.pid, *server.worker_pids()])


def grow(server: RunningServer) -> tuple[list[int], float]:
    """Send the batches, then the long searches at once; return every status answered, and
    the server's PSS between the two."""
    statuses: list[int] = []
    every = every_game()
    # Every n-th game, so that the batches reach from the smallest board to the largest.
    games = cycle(every[:: -(-len(every) // (BATCHES * BATCH_SIZE))])
    for _ in range(BATCHES):
        items = list(islice(games, BATCH_SIZE))
        body = json.dumps({"requests": items}).encode()
        # Each item sets up a game's search afresh: far longer than a request usually takes.
        status, _headers, answer = server.request("POST", "/v1/moves", body, timeout=300)
        statuses.append(status)
        if status == 200:
            results = json.loads(answer)["results"]
            statuses.extend(200 if "move" in result else result["status"] for result in results)
    after_batches = server_pss_mb(server)
    long_search = json.dumps(
        {
            "moves": [MAX_SIDE * MAX_SIDE // 2],
            "rules": {"rows": MAX_SIDE, "cols": MAX_SIDE},
            "budget_ms": LONGEST_BUDGET_MS,
        }
    ).encode()

    def search() -> None:
        status, _headers, _answer = server.request("POST", "/v1/move", long_search, timeout=60)
        statuses.append(status)

    searches = [threading.Thread(target=search) for _ in range(LONG_SEARCHES)]
    for thread in searches:
        thread.start()
    for thread in searches:
        thread.join()
    return statuses, after_batches


def measure() -> dict[str, float]:
    """Start the server, grow it; return its PSS before and after, and the statuses' count."""
    with open(os.devnull, "wb") as quiet:
        server = start_server(
            {"ACCESS_LOG": "false", "SEARCH_SLOTS": str(LONG_SEARCHES)},
            stdout=quiet,
            stderr=quiet,
        )
    try:
        time.sleep(1)  # the baseline: a second after ready, not a wait for an event
        before = server_pss_mb(server)
        statuses, after_batches = grow(server)
        after = server_pss_mb(server)
    finally:
        server.stop()
    failed = sum(status != 200 for status in statuses)
    return {
        "pss_before_mb": before,
        "pss_after_batches_mb": after_batches,
        "pss_after_mb": after,
        "growth_mb": after - before,
        "answers": len(statuses),
        "not_200": failed,
    }


def main() -> None:
    """Measure and print the figures as JSON."""
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    print(json.dumps(measure(), indent=2))


if __name__ == "__main__":
    main()

"""`python -m benchmarks.selfplay BRAIN --seeds-file FILE`: the checkout's search against
another revision of itself, a game on each core at once, each opening played both ways;
the share by opening, its standard error and the Elo it means.

What a step of the search is worth shows in games against the search without it long
before it shows against a far stronger engine, which wins most games either way. BRAIN is
the other revision as a Gomocup brain (`benchmarks.brain` in a git worktree: its docstring
says how). One worker process a core, each pinned to its core (the brain it starts too),
plays an opening as X, then as O, against a brain of its own (one process for both games,
the second after a RESTART), as `benchmarks.gomocup` plays: each side searches on one
thread, alone on its core. The brain is given `benchmarks.brain.MARGIN_MS` more than the
search, which it keeps for its answer, so both search for the same time. The openings are
best chosen even (`benchmarks.openings`): from the benchmark's own, X won four games of
five, and an opening that each side wins as X says nothing of which is stronger. Each game
is recorded (`--record`) as `benchmarks.gomocup` records them; the share is over the
openings, each one sample (`gomocup.paired_share`).

    python -m benchmarks.selfplay /tmp/brain-before --seeds-file /tmp/even.txt \\
        --budget-ms 100 --record /tmp/games.jsonl
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from benchmarks.brain import MARGIN_MS
from benchmarks.gomocup import (
    Brain,
    Game,
    add_variant_option,
    gomoku_of,
    paired_share,
    play_with,
    record,
)
from service.game.rules import Rules
from service.game.warmup import prepare


def _pin_to_a_core(cores: multiprocessing.Queue[int]) -> None:
    """Pin this worker (and the brains it starts) to a core of its own; load the search."""
    os.sched_setaffinity(0, {cores.get()})
    prepare()


def both_ways(
    command: list[str], rules: Rules, seed: int, budget_ms: int, brain_budget_ms: int
) -> list[Game]:
    """Play an opening as X, then as O, against one brain process; both games."""
    with Brain(command, rules, brain_budget_ms) as brain:
        as_x = play_with(brain, rules, seed, True, budget_ms)
        brain.restart()
        return [as_x, play_with(brain, rules, seed, False, budget_ms)]


def match(  # noqa: PLR0917
    command: list[str],
    rules: Rules,
    seeds: list[int],
    budget_ms: int,
    record_to: Path | None,
    brain_budget_ms: int | None = None,
) -> list[Game]:
    """Play every opening both ways, as many at once as this process has cores; the games.
    The brain's time a move is the search's and MARGIN_MS unless `brain_budget_ms` is given."""
    brain_ms = budget_ms + MARGIN_MS if brain_budget_ms is None else brain_budget_ms
    cores = sorted(os.sched_getaffinity(0))
    context = multiprocessing.get_context("spawn")  # no compiled state carried over
    free: multiprocessing.Queue[int] = context.Queue()
    for core in cores:
        free.put(core)
    games: list[Game] = []
    with ProcessPoolExecutor(
        len(cores), mp_context=context, initializer=_pin_to_a_core, initargs=(free,)
    ) as pool:
        pending = [
            pool.submit(both_ways, command, rules, seed, budget_ms, brain_ms) for seed in seeds
        ]
        for finished in as_completed(pending):
            for game in finished.result():
                print(game, flush=True)
                games.append(game)
                if record_to is not None:
                    record(game, rules, record_to)
    return games


def main() -> None:
    """Play the match, print each game, then the share by opening."""
    parser = argparse.ArgumentParser(description="The search against another revision of it.")
    parser.add_argument("brain", nargs="+", help="the other revision's brain command line")
    parser.add_argument(
        "--seeds-file", type=Path, required=True, help="openings' seeds (benchmarks.openings)"
    )
    parser.add_argument("--budget-ms", type=int, default=100, help="each side's time a move")
    parser.add_argument(
        "--brain-budget-ms",
        type=int,
        default=None,
        help="the brain's time a move instead (time odds); by default the search's and MARGIN_MS",
    )
    add_variant_option(parser)
    parser.add_argument("--record", type=Path, default=None, help="add each game to this file")
    arguments = parser.parse_args()
    seeds = [int(seed) for seed in arguments.seeds_file.read_text(encoding="utf-8").split()]
    rules = gomoku_of(arguments)
    games = match(
        arguments.brain, rules, seeds, arguments.budget_ms, arguments.record,
        arguments.brain_budget_ms,
    )  # fmt: skip
    print(paired_share(games))


if __name__ == "__main__":
    main()

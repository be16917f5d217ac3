"""`python -m benchmarks.ladder`: whether the levels are a ladder on 15x15 five in a row.

Each level plays the one below it (perfect against hard, hard against medium, medium against
easy) through the engine the service answers with (`Engine.advise`), with the budget a
request would give (100 ms by default), from openings of three stones (X, O, X) drawn
within two cells of the centre, each opening played twice with the colours swapped. Every
level's random choices come from a generator seeded per game, so a run can be repeated.
The upper level's share counts a win 1 and a draw 1/2; the engine issue asks for at least
70 % over at least 20 games a pair.

    python -m benchmarks.ladder                     # 10 openings: 20 games a pair
    python -m benchmarks.ladder --openings 2 --budget-ms 20
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from dataclasses import dataclass

from service.game.board import Board, GameStatus, Mark
from service.game.difficulty import Difficulty
from service.game.engine import Engine
from service.game.rules import Rules
from service.game.warmup import prepare

GOMOKU = Rules(15, 15, 5)

#: Each level and the one below it, strongest first.
PAIRS = (
    (Difficulty.PERFECT, Difficulty.HARD),
    (Difficulty.HARD, Difficulty.MEDIUM),
    (Difficulty.MEDIUM, Difficulty.EASY),
)

#: The share the engine issue asks of each level against the one below.
TARGET_SHARE = 0.70


@dataclass(frozen=True)
class Game:
    """One finished game, from the upper level's side."""

    upper: Difficulty
    lower: Difficulty
    opening: int
    upper_first: bool
    result: str
    plies: int


def opening(seed: int) -> list[int]:
    """Return three seeded cells within two of the centre: X's, O's, then X's again."""
    centre = GOMOKU.rows // 2
    near = [
        row * GOMOKU.cols + col
        for row in range(centre - 2, centre + 3)
        for col in range(centre - 2, centre + 3)
    ]
    return random.Random(seed).sample(near, 3)


def play(
    engine: Engine, upper: Difficulty, lower: Difficulty, seed: int, *, upper_first: bool,
    budget_seconds: float,
) -> Game:  # fmt: skip
    """Play one game from the opening of `seed`; return how it ended for `upper`."""
    upper_mark = Mark.X if upper_first else Mark.O
    board, mover = Board.empty(GOMOKU), Mark.X
    for cell in opening(seed):
        board, mover = board.play(cell, mover), mover.opponent
    # One generator per game and side: the same game whatever ran before it.
    rngs = {
        Mark.X: random.Random(seed * 4 + 2 * upper_first),
        Mark.O: random.Random(seed * 4 + 2 * upper_first + 1),
    }
    while not board.status().is_over:
        level = upper if mover is upper_mark else lower
        position = engine.position(board, mover)
        advice = engine.advise(position, level, rngs[mover], budget_seconds=budget_seconds)
        board, mover = advice.board, mover.opponent
    status = board.status()
    won = GameStatus.X_WON if upper_mark is Mark.X else GameStatus.O_WON
    result = "draw" if status is GameStatus.DRAW else "win" if status is won else "loss"
    plies = GOMOKU.cell_count - len(board.empty_cells())
    return Game(upper, lower, seed, upper_first, result, plies)


def share(games: list[Game]) -> float:
    """Return the upper level's share: a win 1, a draw 1/2."""
    counts = Counter(game.result for game in games)
    return (counts["win"] + counts["draw"] / 2) / len(games)


def table(games: list[Game], budget_ms: int) -> str:
    """Return a markdown table: each pair's results and the upper level's share."""
    lines = [
        "| upper level | lower level | time a move | games | wins | draws | losses "
        "| upper's share | at least 70 % |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for upper, lower in PAIRS:
        played = [game for game in games if game.upper is upper]
        if not played:
            continue
        counts = Counter(game.result for game in played)
        met = "met" if share(played) >= TARGET_SHARE else "**missed**"
        lines.append(
            f"| {upper.value} | {lower.value} | {budget_ms} ms | {len(played)} | "
            f"{counts['win']} | {counts['draw']} | {counts['loss']} | "
            f"{share(played):.0%} | {met} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Play every pair's games, printing each, then the table."""
    parser = argparse.ArgumentParser(description="The levels against each other on 15x15.")
    parser.add_argument("--openings", type=int, default=10, help="each played twice")
    parser.add_argument("--budget-ms", type=int, default=100, help="a searched move's budget")
    arguments = parser.parse_args()
    prepare()
    engine = Engine.build(())  # no table: every 15x15 position is searched
    games = []
    for upper, lower in PAIRS:
        started = time.perf_counter()
        for seed in range(arguments.openings):
            for upper_first in (True, False):
                finished = play(
                    engine, upper, lower, seed, upper_first=upper_first,
                    budget_seconds=arguments.budget_ms / 1000,
                )  # fmt: skip
                print(finished, flush=True)
                games.append(finished)
        print(f"{upper.value} against {lower.value}: {time.perf_counter() - started:.0f} s")
    print(table(games, arguments.budget_ms))


if __name__ == "__main__":
    main()

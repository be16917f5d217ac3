"""`python -m benchmarks.family_bench`: what each game of the m,n,k family costs to prepare.

For every member up to 4x4, normal and misère: the seconds the vectorised retrograde solve
takes (service.game.table), how many positions play reaches, and how many bytes of table
each of them costs; next to an anchor measured in the same run, a memoised pure-Python
solve of the same game (the forward solver the tests hold the tables to), with its time
and, up to twelve cells, its memory per position (tracemalloc). The anchor is left out for
the two costliest games, 4x4 with three and four in a row under misère (about two minutes
each; their normal twins show the same ratio).
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from dataclasses import dataclass

import numpy as np

from service.game.board import Board, Mark
from service.game.engine import Engine
from service.game.rules import FAMILY, Rules
from service.game.table import UNREACHABLE, solve
from tests.family_reference import Game, solve_every_position


@dataclass
class MemberFigures:
    """One game's preparation and its result from the empty board."""

    rules: Rules
    solve_seconds: float
    positions: int
    table_bytes: int
    empty_score: int
    anchor_seconds: float | None
    anchor_bytes: int | None

    @property
    def bytes_per_position(self) -> float:
        """Table bytes per position play reaches."""
        return self.table_bytes / self.positions

    @property
    def result(self) -> str:
        """The first player's result under perfect play, in words."""
        if self.empty_score > 0:
            plies = self.rules.max_score - self.empty_score
            return f"first player wins in {plies}"
        if self.empty_score < 0:
            return f"first player loses in {self.rules.max_score + self.empty_score}"
        return "draw"


def anchored(rules: Rules) -> bool:
    """Whether the anchor is measured for a game (all but the two costliest)."""
    return not (rules.cell_count == 16 and rules.k >= 3 and rules.misere)


def measure_member(rules: Rules) -> MemberFigures:
    """Solve one game both ways and return the figures."""
    gc.collect()
    started = time.perf_counter()
    table = solve(rules)
    solve_seconds = time.perf_counter() - started
    positions = int(np.count_nonzero(table != UNREACHABLE))
    empty_score = max(Engine({rules: table}).move_scores(Board.empty(rules), Mark.X).values())
    anchor_seconds = anchor_bytes = None
    if anchored(rules):
        game = Game(rules.rows, rules.cols, rules.k, rules.misere)
        traced = rules.cell_count <= 12
        gc.collect()
        if traced:
            tracemalloc.start()
        started = time.perf_counter()
        solved = solve_every_position(game)
        anchor_seconds = time.perf_counter() - started
        if traced:
            anchor_bytes = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            # Timed again without tracing, which slows Python down several times.
            del solved
            gc.collect()
            started = time.perf_counter()
            solved = solve_every_position(game)
            anchor_seconds = time.perf_counter() - started
        if len(solved) != positions:
            raise AssertionError(f"{rules.describe()}: the anchor reached {len(solved)} positions")
        del solved
    return MemberFigures(
        rules, solve_seconds, positions, table.nbytes, empty_score, anchor_seconds, anchor_bytes
    )


def measure() -> list[MemberFigures]:
    """Measure every member."""
    return [measure_member(rules) for rules in FAMILY]


def table_lines(figures: list[MemberFigures]) -> list[str]:
    """The report's table: one row per game."""
    lines = [
        "| game | positions | result | solve | table bytes per position | anchor: "
        "memoised pure Python | anchor bytes per position | solve vs anchor |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for member in figures:
        rules = member.rules
        anchor = "—" if member.anchor_seconds is None else f"{member.anchor_seconds:,.2f} s"
        anchor_bytes = (
            "—" if member.anchor_bytes is None else f"{member.anchor_bytes / member.positions:,.0f}"
        )
        speedup = (
            "—"
            if member.anchor_seconds is None
            else f"{member.anchor_seconds / member.solve_seconds:,.0f}x faster"
        )
        lines.append(
            f"| {rules.describe()} | {member.positions:,} | {member.result} | "
            f"{member.solve_seconds * 1e3:,.1f} ms | {member.bytes_per_position:.1f} | "
            f"{anchor} | {anchor_bytes} | {speedup} |"
        )
    return lines


if __name__ == "__main__":
    print("\n".join(table_lines(measure())))

"""`python -m benchmarks.family_bench`: what each game of the m,n,k family costs to prepare.

For every member up to 4x4, normal and misère: the seconds the vectorised retrograde solve
takes (service.game.table), how many positions play reaches, and how many bytes of table
each of them costs; next to an anchor measured in the same run, a memoised pure-Python
solve of the same game (the product's own exact minimax, service.game.minimax, over bit
sets; it must reach as many positions and score the empty board as the table does), with
its time and, up to twelve cells, its memory per position (tracemalloc). The anchor is left
out for the two costliest games, 4x4 with three and four in a row under misère (minutes
each; their normal twins show the same ratio).
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from dataclasses import dataclass

import numpy as np

from service.game import minimax
from service.game.board import Board, Mark
from service.game.engine import Engine
from service.game.rules import FAMILY, Rules
from service.game.table import UNREACHABLE, solve

#: A position for the anchor: X's cells and O's cells as bit sets.
Cells = tuple[int, int]


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


class BitBoardGame:
    """One member of the family as service.game.minimax plays it, X first: a move is a cell,
    X moves when the counts are equal, and only the side that just moved can hold a line."""

    def __init__(self, rules: Rules) -> None:
        self.full = (1 << rules.cell_count) - 1
        self.lines = [sum(1 << cell for cell in line) for line in rules.lines]
        # The value for the side to move once the other side has completed a line: lost, or
        # under misère won; minimax's ply cost of 1 turns it into the tables' scores.
        self.completed = rules.max_score if rules.misere else -rules.max_score

    def legal_moves(self, cells: Cells) -> list[int]:
        """Return the empty cells as bits."""
        free = self.full & ~(cells[0] | cells[1])
        return [1 << cell for cell in range(free.bit_length()) if free >> cell & 1]

    def play(self, cells: Cells, move: int) -> Cells:
        """Return the position after the side to move takes the cell `move`."""
        x_cells, o_cells = cells
        if x_cells.bit_count() == o_cells.bit_count():
            return x_cells | move, o_cells
        return x_cells, o_cells | move

    def terminal_value(self, cells: Cells) -> int | None:
        """Return the value of a finished game for the side to move, or None."""
        x_cells, o_cells = cells
        last = o_cells if x_cells.bit_count() == o_cells.bit_count() else x_cells
        if any(last & line == line for line in self.lines):
            return self.completed
        return 0 if x_cells | o_cells == self.full else None


def solve_every_position(rules: Rules) -> dict[Cells, minimax.Verdict[int]]:
    """Return the verdict of every position play reaches from the empty board, X first."""
    verdicts: dict[Cells, minimax.Verdict[int]] = {}
    minimax.solve(BitBoardGame(rules), (0, 0), ply_cost=1, memo=verdicts)
    return verdicts


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
        traced = rules.cell_count <= 12
        gc.collect()
        if traced:
            tracemalloc.start()
        started = time.perf_counter()
        solved = solve_every_position(rules)
        anchor_seconds = time.perf_counter() - started
        if traced:
            anchor_bytes = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            # Timed again without tracing, which slows Python down several times.
            del solved
            gc.collect()
            started = time.perf_counter()
            solved = solve_every_position(rules)
            anchor_seconds = time.perf_counter() - started
        if len(solved) != positions:
            raise AssertionError(f"{rules.describe()}: the anchor reached {len(solved)} positions")
        if solved[(0, 0)].value != empty_score:
            raise AssertionError(f"{rules.describe()}: the anchor scored {solved[(0, 0)].value}")
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

"""A game's geometry for the search: its windows, the cells near each cell, the weights and
the hashing keys, made once per board size and line length and kept for the games searched
last (`geometry_of`)."""

from __future__ import annotations

import functools
import random

import numpy as np

from service.game import compiled
from service.game.rules import Rules, Variant, line_ends

#: How far, in king moves, a cell may be from a mark to be a candidate of the heuristic search.
CANDIDATE_DISTANCE = 2


class Geometry:
    """What one board size and line length precompute: windows, and the cells near a cell."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.cells = rules.cell_count
        #: Every k-cell window, the lines of the rules; the windows each cell lies in.
        self.windows = rules.lines
        #: For each window, the cells beyond its ends that its holder must not hold for it
        #: to count: under standard, caro and renju its ends (no overline; under renju for
        #: black only), else none; under caro the opponent must not hold both
        #: (`closed_ends_block`).
        self.ends: list[tuple[int, ...]] = [
            ends if rules.variant.exact_length else ()
            for ends in line_ends(rules.rows, rules.cols, rules.k)
        ]
        self.windows_of: list[list[int]] = [[] for _ in range(self.cells)]
        for index, window in enumerate(self.windows):
            for cell in window:
                self.windows_of[cell].append(index)
        # The cells within CANDIDATE_DISTANCE in rows and columns, ascending: the square
        # around each cell, not every pair of cells (quadratic on big boards).
        reach = CANDIDATE_DISTANCE
        self.near: list[tuple[int, ...]] = [
            tuple(
                other_row * rules.cols + other_col
                for other_row in range(max(0, row - reach), min(rules.rows, row + reach + 1))
                for other_col in range(max(0, col - reach), min(rules.cols, col + reach + 1))
                if (other_row, other_col) != (row, col)
            )
            for row, col in (divmod(cell, rules.cols) for cell in range(self.cells))
        ]
        self.weights = window_weights(rules.k)
        rng = random.Random(rules.cell_count * 1009 + rules.k)  # noqa: S311 -- hashing, seeded
        self.keys = [[rng.getrandbits(64) for _ in range(3)] for _ in range(self.cells)]
        self.centre = (rules.rows // 2) * rules.cols + rules.cols // 2

    @functools.cached_property
    def arrays(self) -> compiled.kernel.GeometryArrays:
        """Return the geometry as the compiled search takes it (`Kernel.geometry`)."""
        k = self.rules.k
        windows = np.array(self.windows, dtype=np.int64).reshape(len(self.windows), k)
        return (
            windows,
            _padded(self.windows_of),
            _padded(self.near),
            np.array(self.weights, dtype=np.int64),
            np.array(self.keys, dtype=np.uint64),
            self.centre,
            k,
            _padded(self.ends, width=2),
            _ENDS_MEAN[self.rules.variant],
        )


#: What a window's ends mean to the compiled search, by variant.
_ENDS_MEAN = {
    Variant.FREESTYLE: compiled.kernel.PLAIN_ENDS,
    Variant.STANDARD: compiled.kernel.PLAIN_ENDS,
    Variant.CARO: compiled.kernel.CARO_ENDS,
    Variant.RENJU: compiled.kernel.RENJU_ENDS,
}


def window_weights(k: int) -> list[int]:
    """Return what a window holding 0 to k + 1 of one side's marks (and none of the other's)
    is worth to that side; k + 1 for the promise of a window a move has just completed.

    The last four marks missing count most: each mark there is worth 4 times one fewer
    (fuller windows dominate; 4 played better against Wine than 3, 5, 6, 8 or 12:
    docs/STRENGTH.md). Before them, on lines longer than five, each mark adds as much as the
    first: a window of 12 with 6 marks is worth more than with 1, and the weights stay far
    below the heuristic limit (4^20 would pass it, and flatten every evaluation to 0)."""
    steep_from = max(1, k - 4)  # up to five in a row, every mark is in the steep part
    return [0] + [
        count if count < steep_from else steep_from * 4 ** (count - steep_from)
        for count in range(1, k + 2)
    ]


def _padded(
    rows: list[list[int]] | list[tuple[int, ...]], *, width: int | None = None
) -> compiled.kernel.Ints:
    """Return lists of cells as one array, each row filled up with -1 (to `width` cells, or
    the longest row's)."""
    widest = max(len(row) for row in rows) if width is None else width
    padded = np.full((len(rows), widest), -1, dtype=np.int64)
    for at, row in enumerate(rows):
        padded[at, : len(row)] = row
    return padded


#: How many games' geometries one process keeps (up to about 500 KB each, on 20x20): a
#: frontend's few games stay made, while a client cycling through every game cannot make the
#: process keep them all (benchmarks.growth: 32 kept let the server grow past its bound).
GEOMETRIES_KEPT = 16


def geometry_of(rules: Rules) -> Geometry:
    """Return a game's geometry, kept for the GEOMETRIES_KEPT games searched last (it costs
    ms to make); a game and its misère form share one, as they share their lines, and so do
    the variants where they play the same game."""
    same = rules.same_game
    return _geometry(same.rows, same.cols, same.k, same.variant)


@functools.lru_cache(maxsize=GEOMETRIES_KEPT)
def _geometry(rows: int, cols: int, k: int, variant: Variant) -> Geometry:
    return Geometry(Rules(rows, cols, k, variant=variant))

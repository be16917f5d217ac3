"""A game's geometry for the search: its windows, the cells near each cell, the weights and
the hashing keys, made once per board size and line length and kept for the games searched
last (`geometry_of`)."""

from __future__ import annotations

import functools
import random

import numpy as np

from service.game import alphabeta
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
        #: to count: under standard and caro its ends (no overline), else none; under caro
        #: the opponent must not hold both (`closed_ends_block`).
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
        # A mark in a window worth 4 times one fewer: fuller windows dominate (4 played
        # better against Wine than 3, 5, 6, 8 or 12: docs/SEARCH.md). One weight more than
        # marks fit, for the promise of a window a move has just completed.
        self.weights = [0] + [4 ** (count - 1) for count in range(1, rules.k + 2)]
        #: What each cell's windows promise on the empty board (`SearchBoard.promise`).
        self.empty_promise = [self.weights[1] * 2 * len(windows) for windows in self.windows_of]
        rng = random.Random(rules.cell_count * 1009 + rules.k)  # noqa: S311 -- hashing, seeded
        self.keys = [[rng.getrandbits(64) for _ in range(3)] for _ in range(self.cells)]
        self.centre = (rules.rows // 2) * rules.cols + rules.cols // 2

    @functools.cached_property
    def arrays(self) -> alphabeta.GeometryArrays:
        """Return the geometry as the compiled search takes it (`alphabeta.Kernel.geometry`)."""
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
            int(self.rules.variant.closed_ends_block),
        )


def _padded(
    rows: list[list[int]] | list[tuple[int, ...]], *, width: int | None = None
) -> alphabeta.Ints:
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

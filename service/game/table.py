"""Every position of one game solved at once, backwards from the full board, into one table.

A position is seen from the side to move: its marks (the mover's) and the other side's.
Its place in the table is the base-3 number whose digit for cell c is 0 when c is empty,
1 when the mover holds it and 2 when the other side does, so one table serves X and O
alike and either player starting. Each entry is the position's exact depth-aware score for
the mover (see `Rules.max_score`), or UNREACHABLE for a position no game reaches.

The solve is retrograde and vectorised: positions are taken in layers by the number of
marks, from the full board down to the empty one, and each layer's scores are backed up
from the next layer's in a few array operations per cell. A forward pass from the empty
board first marks which positions play can reach.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from service.game.board import Board, Mark
from service.game.rules import Rules, line_ends

#: The entry of a position that no game reaches (play after the end, counts that cannot be).
UNREACHABLE = -128

Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
Scores = npt.NDArray[np.int8]


@dataclass(frozen=True)
class Layer:
    """Every position with a given number of marks whose counts allow the mover to play."""

    mover: Int64s
    other: Int64s


class Encoding:
    """The arithmetic of one board size and its lines: masks, table places, completed lines."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.cells = rules.cell_count
        masks = np.arange(1 << self.cells, dtype=np.int64)
        bits = (masks[:, None] >> np.arange(self.cells)) & 1
        #: The table place of a set of cells held by the mover (twice it: by the other side).
        self.base3 = bits @ (3 ** np.arange(self.cells, dtype=np.int64))
        #: Each line as (its cells, the cells beyond its ends that count), as masks: under
        #: freestyle no end counts.
        self.lines = [
            (
                sum(1 << cell for cell in line),
                sum(1 << cell for cell in ends) if rules.variant.exact_length else 0,
            )
            for line, ends in zip(
                rules.lines, line_ends(rules.rows, rules.cols, rules.k), strict=True
            )
        ]
        #: Whether a set of cells holds a whole line that counts, whatever the opponent
        #: holds: under the standard variant, with neither of its ends (an overline does not
        #: count). Under caro, `completed` also asks whether the opponent closes it.
        self.has_line = np.zeros(1 << self.cells, dtype=np.bool_)
        for line_mask, ends_mask in self.lines:
            self.has_line |= ((masks & line_mask) == line_mask) & ((masks & ends_mask) == 0)
        self._bits = bits.astype(np.bool_)
        #: How many cells a set of cells holds.
        self.popcount = bits.sum(axis=1)

    def completed(self, holder: Int64s, opponent: Int64s) -> Bools:
        """Return whether `holder` has a line that counts, positions given as cell masks."""
        found: Bools = self.has_line[holder]
        if not self.rules.variant.closed_ends_block or not found.any():
            return found
        # Caro: a line counts unless the opponent holds both its ends (two on the board).
        found = np.zeros(len(holder), dtype=np.bool_)
        for line_mask, ends_mask in self.lines:
            held = ((holder & line_mask) == line_mask) & ((holder & ends_mask) == 0)
            if ends_mask.bit_count() == 2:
                held &= (opponent & ends_mask) != ends_mask
            found |= held
        return found

    def place(self, mover: Int64s, other: Int64s) -> Int64s:
        """Return the table places of positions given as the two sides' cell masks."""
        return self.base3[mover] + 2 * self.base3[other]

    def layer(self, marks: int) -> Layer:
        """Return every position with `marks` marks, the mover having half of them, rounded down."""
        occupied = np.flatnonzero(self.popcount == marks)
        movers = marks // 2
        cells = np.nonzero(self._bits[occupied])[1].reshape(len(occupied), marks)
        cell_bits = np.left_shift(np.int64(1), cells)
        if movers == 0:
            mover = np.zeros((len(occupied), 1), dtype=np.int64)
        else:
            choices = np.array(list(itertools.combinations(range(marks), movers)))
            mover = cell_bits[:, choices].sum(axis=2)
        other = occupied[:, None] - mover
        return Layer(mover.ravel(), other.ravel())


def solve(rules: Rules) -> Scores:
    """Return the table of a game: every position's score for the mover, or UNREACHABLE."""
    encoding = Encoding(rules)
    layers = [encoding.layer(marks) for marks in range(encoding.cells + 1)]
    reachable = _reachable(encoding, layers)
    win = rules.max_score
    # Whoever completed a line moved last: the mover has lost, or under misère, won.
    game_over_score = win if rules.misere else -win
    scores = np.full(3**encoding.cells, UNREACHABLE, dtype=np.int8)
    for marks in range(encoding.cells, -1, -1):
        layer = layers[marks]
        places = encoding.place(layer.mover, layer.other)
        keep = reachable[places]
        mover, other, places = layer.mover[keep], layer.other[keep], places[keep]
        over = encoding.completed(other, mover)
        scores[places[over]] = game_over_score
        if marks == encoding.cells:
            scores[places[~over]] = 0
            continue
        mover, other, places = mover[~over], other[~over], places[~over]
        best = np.full(len(places), -win, dtype=np.int16)
        occupied = mover | other
        for cell in range(encoding.cells):
            free = (occupied >> cell) & 1 == 0
            # The opponent moves next: it sees the mover's marks, with this one, as the other's.
            child = encoding.place(other[free], mover[free] | (1 << cell))
            value = scores[child].astype(np.int16)
            # A child's score is the opponent's; each ply takes one step towards zero.
            backed_up = np.sign(value) - value
            best[free] = np.maximum(best[free], backed_up)
        scores[places] = best.astype(np.int8)
    return scores


def _reachable(encoding: Encoding, layers: list[Layer]) -> Bools:
    """Mark every position play reaches from the empty board, either side starting."""
    reachable = np.zeros(3**encoding.cells, dtype=np.bool_)
    reachable[0] = True
    for marks in range(encoding.cells):
        layer = layers[marks]
        places = encoding.place(layer.mover, layer.other)
        # Play goes on from a reached position only while nobody has completed a line.
        going_on = reachable[places] & ~encoding.completed(layer.other, layer.mover)
        mover, other = layer.mover[going_on], layer.other[going_on]
        occupied = mover | other
        for cell in range(encoding.cells):
            free = (occupied >> cell) & 1 == 0
            reachable[encoding.place(other[free], mover[free] | (1 << cell))] = True
    return reachable


def place_of(board: Board, mover: Mark) -> int:
    """Return the table place of a board with `mover` to play."""
    place, power = 0, 1
    for cell in board.cells:
        if cell is not None:
            place += power if cell is mover else 2 * power
        power *= 3
    return place

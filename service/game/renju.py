"""Renju's fouls: the cells where black (X, who moves first) may not play.

Black may not make an overline (six or more in a row), a double four (two fours at once)
or a double three (two threes at once); a move that makes exactly five is never a foul,
whatever else it makes. A four is four black stones in a five-cell window whose last cell,
played, makes exactly five; a straight four is four in a row whose both ends do. A three
is a row that one more black stone turns into a straight four, and it counts only if that
stone's cell is not itself a foul, nor a five: the definition is recursive (the Renju
International Federation's rules, as GomocupJudge's `check_forbid` judges them).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass

from service.game.board import Board, Mark

#: Right, down, down-right, down-left: each line through a cell runs one way and back.
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
#: A renju five, and the window a four lies in.
FIVE = 5


class Foul(enum.Enum):
    """Why black may not play a cell."""

    OVERLINE = "overline"
    DOUBLE_FOUR = "double_four"
    DOUBLE_THREE = "double_three"


@dataclass(frozen=True, slots=True)
class FoulMove:
    """Black's move that was a foul, and so lost the game: where (None when a board shows
    an overline but not which of its cells came last), which foul, and which move of the
    game's list it was (None when the game came as a board)."""

    cell: int | None
    foul: Foul
    move: int | None = None


class Stones:
    """A position's black and white stones on a rows x cols board, black's changed in place
    while a foul is judged (every change undone before the judging returns)."""

    def __init__(self, board: Board) -> None:
        self.rows, self.cols = board.rules.rows, board.rules.cols
        self.black = {index for index, cell in enumerate(board.cells) if cell is Mark.X}
        self.white = {index for index, cell in enumerate(board.cells) if cell is Mark.O}

    def is_empty(self, cell: int) -> bool:
        """Return whether no stone is on `cell`."""
        return cell not in self.black and cell not in self.white

    def along(self, cell: int, direction: tuple[int, int], steps: int) -> int | None:
        """Return the cell `steps` away from `cell` along `direction` (back if negative), or
        None off the board."""
        row, col = divmod(cell, self.cols)
        row, col = row + direction[0] * steps, col + direction[1] * steps
        if 0 <= row < self.rows and 0 <= col < self.cols:
            return row * self.cols + col
        return None

    def is_black(self, cell: int | None) -> bool:
        """Return whether `cell` is on the board and holds a black stone."""
        return cell is not None and cell in self.black

    def run(self, cell: int, direction: tuple[int, int]) -> tuple[int, int]:
        """Return how far black's unbroken run through `cell` reaches back and forward."""
        back = 0
        while self.is_black(self.along(cell, direction, -(back + 1))):
            back += 1
        forward = 0
        while self.is_black(self.along(cell, direction, forward + 1)):
            forward += 1
        return back, forward


def foul(board: Board, cell: int) -> Foul | None:
    """Return the foul black commits by playing the empty `cell`, or None if black may."""
    return _foul(Stones(board), cell)


def forbidden_cells(board: Board) -> tuple[int, ...]:
    """Return the empty cells where black may not play, ascending."""
    stones = Stones(board)
    return tuple(
        cell
        for cell in board.empty_cells()
        if _near_black(stones, cell) and _foul(stones, cell) is not None
    )


def _near_black(stones: Stones, cell: int) -> bool:
    # A foul needs at least two black stones within four cells along some line.
    return any(
        stones.is_black(stones.along(cell, direction, steps))
        for direction in DIRECTIONS
        for steps in (-4, -3, -2, -1, 1, 2, 3, 4)
    )


def _lengths(stones: Stones, cell: int) -> list[int]:
    """Return the length of black's run through `cell` (black) along each direction."""
    return [sum(stones.run(cell, direction)) + 1 for direction in DIRECTIONS]


def _foul(stones: Stones, cell: int) -> Foul | None:
    """Judge black at `cell` (empty) with the stones as they are."""
    stones.black.add(cell)
    try:
        lengths = _lengths(stones, cell)
        if FIVE in lengths:
            return None  # a five: never a foul
        if any(length > FIVE for length in lengths):
            return Foul.OVERLINE
        if sum(len(_fours(stones, cell, direction)) for direction in DIRECTIONS) >= 2:
            return Foul.DOUBLE_FOUR
        if sum(_makes_three(stones, cell, direction) for direction in DIRECTIONS) >= 2:
            return Foul.DOUBLE_THREE
        return None
    finally:
        stones.black.discard(cell)


def _windows(stones: Stones, cell: int, direction: tuple[int, int]) -> Iterator[list[int]]:
    """Yield the five-cell windows along `direction` that hold `cell`, on the board."""
    for start in range(-(FIVE - 1), 1):
        window = [stones.along(cell, direction, start + step) for step in range(FIVE)]
        if all(place is not None for place in window):
            yield [place for place in window if place is not None]


def _fours(stones: Stones, cell: int, direction: tuple[int, int]) -> set[frozenset[int]]:
    """Return the fours through black's `cell` along `direction`, each as its four stones:
    a straight four is one four (both ends complete the same stones), while X.XXX.X played
    in the middle is two."""
    found: set[frozenset[int]] = set()
    for window in _windows(stones, cell, direction):
        empty = [place for place in window if stones.is_empty(place)]
        black = [place for place in window if place in stones.black]
        if len(black) != FIVE - 1 or len(empty) != 1:
            continue
        before = stones.along(window[0], direction, -1)
        after = stones.along(window[-1], direction, 1)
        if not stones.is_black(before) and not stones.is_black(after):  # exactly five
            found.add(frozenset(black))
    return found


def _makes_three(stones: Stones, cell: int, direction: tuple[int, int]) -> bool:
    """Return whether black's `cell` makes a three along `direction`: a cell there that
    turns it into a straight four through `cell`, and is not itself a foul."""
    for steps in (-4, -3, -2, -1, 1, 2, 3, 4):
        extension = stones.along(cell, direction, steps)
        if extension is None or not stones.is_empty(extension):
            continue
        if _straight_four(stones, cell, extension, steps, direction) and _playable(
            stones, extension
        ):
            return True
    return False


def _playable(stones: Stones, extension: int) -> bool:
    """Return whether a three's extension is a cell black may play for a straight four: not
    a foul, and not a five (which would be a five, not a four)."""
    stones.black.add(extension)
    try:
        if FIVE in _lengths(stones, extension):
            return False
    finally:
        stones.black.discard(extension)
    return _foul(stones, extension) is None


def _straight_four(
    stones: Stones, cell: int, extension: int, steps: int, direction: tuple[int, int]
) -> bool:
    """Return whether black at `extension`, `steps` from `cell` along `direction`, makes
    with it four in a row whose both ends are empty and each make exactly five."""
    stones.black.add(extension)
    try:
        back, forward = stones.run(cell, direction)
        if back + forward + 1 != FIVE - 1 or not -back <= steps <= forward:
            return False
        ends = (
            stones.along(cell, direction, -(back + 1)),
            stones.along(cell, direction, forward + 1),
        )
        beyond = (
            stones.along(cell, direction, -(back + 2)),
            stones.along(cell, direction, forward + 2),
        )
        return all(end is not None and stones.is_empty(end) for end in ends) and not any(
            stones.is_black(place) for place in beyond
        )
    finally:
        stones.black.discard(extension)

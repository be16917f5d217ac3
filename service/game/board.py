"""The tic-tac-toe board: marks, cells, winning lines and the status of a game."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

CELL_COUNT = 9
SIDE = 3

#: The eight ways to get three in a row, as ascending cell triples in ascending order.
WINNING_LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2),
    (0, 3, 6),
    (0, 4, 8),
    (1, 4, 7),
    (2, 4, 6),
    (2, 5, 8),
    (3, 4, 5),
    (6, 7, 8),
)


class Mark(enum.Enum):
    """A player's mark, which also names the player."""

    X = "X"
    O = "O"  # noqa: E741 -- the letter is the domain's own name for the mark

    @property
    def opponent(self) -> Mark:
        """Return the other player's mark."""
        return Mark.O if self is Mark.X else Mark.X


class GameStatus(enum.Enum):
    """Where a game stands."""

    IN_PROGRESS = "in_progress"
    X_WON = "x_won"
    O_WON = "o_won"
    DRAW = "draw"

    @property
    def is_over(self) -> bool:
        """Return whether no more moves can be played."""
        return self is not GameStatus.IN_PROGRESS

    @property
    def winner(self) -> Mark | None:
        """Return the winning mark, or None when nobody has won."""
        return {GameStatus.X_WON: Mark.X, GameStatus.O_WON: Mark.O}.get(self)


Cell = Mark | None


@dataclass(frozen=True, slots=True)
class Board:
    """An immutable 3x3 board; cells are numbered 0-8 in row-major order."""

    cells: tuple[Cell, ...] = (None,) * CELL_COUNT

    def __post_init__(self) -> None:
        if len(self.cells) != CELL_COUNT:
            raise ValueError(f"a board has {CELL_COUNT} cells, not {len(self.cells)}")

    @classmethod
    def from_text(cls, text: str) -> Board:
        """Build a board from nine characters: X, O, or '.' for an empty cell."""
        symbols = {"X": Mark.X, "O": Mark.O, ".": None}
        return cls(tuple(symbols[char] for char in text))

    def to_text(self) -> str:
        """Return the board as nine characters: X, O, or '.' for an empty cell."""
        return "".join("." if cell is None else cell.value for cell in self.cells)

    def count(self, mark: Mark) -> int:
        """Return how many cells hold `mark`."""
        return self.cells.count(mark)

    def empty_cells(self) -> tuple[int, ...]:
        """Return the indices of the empty cells, ascending."""
        return tuple(index for index, cell in enumerate(self.cells) if cell is None)

    def play(self, index: int, mark: Mark) -> Board:
        """Return the board with `mark` placed on the empty cell `index`."""
        if self.cells[index] is not None:
            raise ValueError(f"cell {index} is already taken")
        return Board((*self.cells[:index], mark, *self.cells[index + 1 :]))

    def lines_of(self, mark: Mark) -> tuple[tuple[int, int, int], ...]:
        """Return the winning lines completely held by `mark`."""
        return tuple(line for line in WINNING_LINES if all(self.cells[i] is mark for i in line))

    def completed_lines(self) -> tuple[tuple[int, int, int], ...]:
        """Return every line held completely by one player, in ascending order."""
        return tuple(line for line in WINNING_LINES if self._line_owner(line) is not None)

    def status(self) -> GameStatus:
        """Return whether someone has three in a row, the board is full, or play goes on."""
        for line in WINNING_LINES:
            owner = self._line_owner(line)
            if owner is not None:
                return GameStatus.X_WON if owner is Mark.X else GameStatus.O_WON
        return GameStatus.IN_PROGRESS if None in self.cells else GameStatus.DRAW

    def _line_owner(self, line: Iterable[int]) -> Mark | None:
        first, *rest = (self.cells[i] for i in line)
        return first if all(cell is first for cell in rest) else None


def coordinates(index: int) -> tuple[int, int]:
    """Return the (row, column) of a cell index."""
    return divmod(index, SIDE)

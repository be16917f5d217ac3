"""The board of a game of the m,n,k family: marks, cells, completed lines, the game's status."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from service.game.rules import CLASSIC, Line, Rules

CELL_COUNT = CLASSIC.cell_count

#: The eight ways to get three in a row on 3x3, as ascending cell triples in ascending order.
WINNING_LINES = CLASSIC.lines


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
    """An immutable board under some rules (3x3 by default); cells in row-major order."""

    cells: tuple[Cell, ...] = (None,) * CELL_COUNT
    rules: Rules = CLASSIC

    def __post_init__(self) -> None:
        if len(self.cells) != self.rules.cell_count:
            raise ValueError(
                f"a {self.rules.rows}x{self.rules.cols} board has {self.rules.cell_count} "
                f"cells, not {len(self.cells)}"
            )

    @classmethod
    def empty(cls, rules: Rules = CLASSIC) -> Board:
        """Return the empty board of a game."""
        return cls((None,) * rules.cell_count, rules)

    @classmethod
    def from_text(cls, text: str, rules: Rules = CLASSIC) -> Board:
        """Build a board from one character a cell: X, O, or '.' for an empty cell."""
        symbols = {"X": Mark.X, "O": Mark.O, ".": None}
        return cls(tuple(symbols[char] for char in text), rules)

    def to_text(self) -> str:
        """Return the board as one character a cell: X, O, or '.' for an empty cell."""
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
        return Board((*self.cells[:index], mark, *self.cells[index + 1 :]), self.rules)

    def lines_of(self, mark: Mark) -> tuple[Line, ...]:
        """Return the lines completely held by `mark`."""
        return tuple(line for line, owner in self._held_lines() if owner is mark)

    def completing(self, mark: Mark) -> tuple[int, ...]:
        """Return the empty cells where `mark` would complete a line that counts, ascending."""
        cells, rules = self.cells, self.rules
        if rules.k == 1:
            return self.empty_cells()  # every empty cell is a line of its own
        # Such a line holds k - 1 of `mark`'s marks, so it runs through one of them.
        found = set()
        ends = rules.line_index.ends
        for line in {
            line
            for cell, held in enumerate(cells)
            if held is mark
            for line in rules.line_index.through[cell]
        }:
            empty = [i for i in line if cells[i] is None]
            if (
                len(empty) == 1
                and all(cells[i] in (mark, None) for i in line)
                and rules.counts(
                    ends[line],
                    self._holder(mark),
                    self._holder(mark.opponent),
                    first_player=mark is Mark.X,
                )
            ):
                found.add(empty[0])
        return tuple(sorted(found))

    def completed_lines(self) -> tuple[Line, ...]:
        """Return every line held completely by one player, in ascending order."""
        return tuple(line for line, _owner in self._held_lines())

    def overlines(self) -> tuple[Line, ...]:
        """Return the lines of black's overlines under renju, ascending: k-cell lines X holds
        in a longer run, a foul that has lost black the game; none under other variants."""
        rules = self.rules
        if not rules.variant.has_fouls:
            return ()
        cells, ends = self.cells, rules.line_index.ends
        return tuple(
            line
            for cell, mark in enumerate(cells)
            if mark is Mark.X
            for line in rules.line_index.starting_at[cell]
            if all(cells[i] is Mark.X for i in line)
            and any(cells[end] is Mark.X for end in ends[line])
        )

    def status(self) -> GameStatus:
        """Return whether someone has won (a line: its owner, or under misère the other;
        under renju O also when black has made an overline), the board is full, or play
        goes on."""
        for _line, owner in self._held_lines():
            winner = owner.opponent if self.rules.misere else owner
            return GameStatus.X_WON if winner is Mark.X else GameStatus.O_WON
        if self.overlines():
            return GameStatus.O_WON  # a five is never a foul: only without one
        return GameStatus.IN_PROGRESS if None in self.cells else GameStatus.DRAW

    def _held_lines(self) -> Iterator[tuple[Line, Mark]]:
        """Yield every line one player holds completely and that counts under the variant,
        with its holder, in ascending order.

        A held line starts on a marked cell: only those cells' lines are looked at, so a
        sparse board of 15x15 costs a few lines, not its hundreds.
        """
        cells, rules = self.cells, self.rules
        starting_at, ends = rules.line_index.starting_at, rules.line_index.ends
        for cell, mark in enumerate(cells):
            if mark is not None:
                for line in starting_at[cell]:
                    if all(cells[i] is mark for i in line) and rules.counts(
                        ends[line],
                        self._holder(mark),
                        self._holder(mark.opponent),
                        first_player=mark is Mark.X,
                    ):
                        yield line, mark

    def _holder(self, mark: Mark) -> Callable[[int], bool]:
        """Return whether `mark` holds a cell, as a function of the cell."""
        return lambda cell: self.cells[cell] is mark

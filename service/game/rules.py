"""The rules of one member of the m,n,k family: board shape, line length, variant, normal or
misère.

A line is `k` consecutive cells in a row, a column, a diagonal or an anti-diagonal. A move
that completes at least one line ends the game: under normal rules its mover wins, under
misère its mover loses. A full board with no line is a draw. Cells are numbered in
row-major order, 0 at the top left.

The variant says which lines count. Under `freestyle` every line does, so a run longer than
k wins too. Under `standard` only a run of exactly k does: a line whose mover also holds a
cell just beyond either of its ends (its *ends*, `line_ends`) is part of an overline and
does not count. Under `caro` a run of exactly k counts unless the opponent holds both its
ends (the edge of the board closes no end). Under `renju` (five in a row, on boards of at
least 5x5) the first player, X, is black: black's lines count as under standard, white's as
under freestyle, and black may not play a foul (`service.game.renju`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from service.game.refusals import Reason, Refusal

#: The largest side of any game of the family: 15x15 holds gomoku (five in a row), 19x19 is a
#: go board many sites play it on, and 20x20 is Gomocup's freestyle league.
MAX_SIDE = 20

#: The largest side of the games solved exactly into tables; larger boards are searched.
TABLE_MAX_SIDE = 4

#: A line is this long unless a request says otherwise, or the board's shorter side if less.
DEFAULT_K = 5

#: Renju's line, and so the smallest side of a renju board.
RENJU_K = 5

#: The four directions a line runs in, as (row step, column step).
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))

Line = tuple[int, ...]


class Variant(enum.Enum):
    """Which lines win: any run of k or more (freestyle), exactly k (standard), exactly k
    that the opponent has not closed at both ends (caro), or exactly five for black and
    five or more for white (renju)."""

    FREESTYLE = "freestyle"
    STANDARD = "standard"
    CARO = "caro"
    RENJU = "renju"

    @property
    def exact_length(self) -> bool:
        """Return whether a run longer than k (an overline) does not count, for the first
        player at least."""
        return self is not Variant.FREESTYLE

    def exact_length_for(self, *, first_player: bool) -> bool:
        """Return whether an overline does not count for one player: under renju, only for
        black, the first player (white's overline wins)."""
        return self.exact_length and (first_player or self is not Variant.RENJU)

    @property
    def has_fouls(self) -> bool:
        """Return whether the first player may not play some cells (renju's fouls)."""
        return self is Variant.RENJU

    @property
    def closed_ends_block(self) -> bool:
        """Return whether a line the opponent closes at both ends does not count."""
        return self is Variant.CARO

    @property
    def gomocup_rule(self) -> int:
        """Return the code Gomocup's protocol names this variant by (`INFO rule`)."""
        return {Variant.FREESTYLE: 0, Variant.STANDARD: 1, Variant.RENJU: 4, Variant.CARO: 9}[self]


class RulesProblem(Reason):
    """A reason why rules name no game the service plays."""

    ROWS_OUT_OF_RANGE = "rows_out_of_range"
    COLS_OUT_OF_RANGE = "cols_out_of_range"
    K_OUT_OF_RANGE = "k_out_of_range"
    BOARD_DOES_NOT_FIT = "board_does_not_fit"
    VARIANT_WITH_MISERE = "variant_with_misere"
    RENJU_K = "renju_k"
    RENJU_BOARD_TOO_SMALL = "renju_board_too_small"


class InvalidRules(Refusal):
    """Raised for rules outside the family, or a board that does not fit its rules."""

    def __init__(self, problem: RulesProblem, detail: str) -> None:
        super().__init__(problem, detail)
        self.problem = problem

    @property
    def field(self) -> str:
        """Return which part of a request is at fault: one of the rules, or the board."""
        return {
            RulesProblem.ROWS_OUT_OF_RANGE: "rows",
            RulesProblem.COLS_OUT_OF_RANGE: "cols",
            RulesProblem.K_OUT_OF_RANGE: "k",
            RulesProblem.VARIANT_WITH_MISERE: "variant",
            RulesProblem.RENJU_K: "k",
            RulesProblem.RENJU_BOARD_TOO_SMALL: "variant",
        }.get(self.problem, "board")


@dataclass(frozen=True, slots=True)
class Rules:
    """One game of the family: a `rows` x `cols` board, `k` in a line, normal or misère,
    and which lines count (the variant)."""

    rows: int = 3
    cols: int = 3
    k: int = 3
    misere: bool = False
    variant: Variant = Variant.FREESTYLE

    def __post_init__(self) -> None:
        # One check per bound, each with its own reason, so a caller learns exactly what to fix.
        if not 1 <= self.rows <= MAX_SIDE:
            raise InvalidRules(
                RulesProblem.ROWS_OUT_OF_RANGE,
                f"rows is {self.rows}, but a board has 1 to {MAX_SIDE} rows",
            )
        if not 1 <= self.cols <= MAX_SIDE:
            raise InvalidRules(
                RulesProblem.COLS_OUT_OF_RANGE,
                f"cols is {self.cols}, but a board has 1 to {MAX_SIDE} columns",
            )
        # Before k's range: renju's k is five, which a smaller board's range would refuse.
        if self.variant is Variant.RENJU and min(self.rows, self.cols) < RENJU_K:
            raise InvalidRules(
                RulesProblem.RENJU_BOARD_TOO_SMALL,
                f"renju is played on boards of at least {RENJU_K}x{RENJU_K}, not "
                f"{self.rows}x{self.cols}",
            )
        longest = max(self.rows, self.cols)
        if not 1 <= self.k <= longest:
            raise InvalidRules(
                RulesProblem.K_OUT_OF_RANGE,
                f"k is {self.k}, but on a {self.rows}x{self.cols} board a line is 1 to "
                f"{longest} cells long",
            )
        if self.misere and self.variant is not Variant.FREESTYLE:
            raise InvalidRules(
                RulesProblem.VARIANT_WITH_MISERE,
                f"misère is played freestyle only, not with variant {self.variant.value}",
            )
        if self.variant is Variant.RENJU and self.k != RENJU_K:
            raise InvalidRules(
                RulesProblem.RENJU_K,
                f"k is {self.k}, but renju is five in a row: k must be {RENJU_K}",
            )

    @classmethod
    def of(
        cls,
        rows: int,
        cols: int,
        k: int | None = None,
        *,
        misere: bool = False,
        variant: Variant = Variant.FREESTYLE,
    ) -> Rules:
        """Return the rules with `k` defaulting to the shorter side, or five in a row (renju:
        always five)."""
        if k is None:
            k = RENJU_K if variant is Variant.RENJU else min(rows, cols, DEFAULT_K)
        return cls(rows, cols, k, misere, variant)

    @property
    def cell_count(self) -> int:
        """Return how many cells the board has."""
        return self.rows * self.cols

    @property
    def max_score(self) -> int:
        """Return the score of a game already won by the side to move's opponent, negated.

        A forced win in p plies scores `max_score - p`, a forced loss ending after p plies
        scores `p - max_score`: with N cells, max_score is N + 1 (10 on 3x3).
        """
        return self.cell_count + 1

    @property
    def lines(self) -> tuple[Line, ...]:
        """Return every line of k cells, each ascending, in ascending order."""
        return winning_lines(self.rows, self.cols, self.k)

    @property
    def line_index(self) -> LineIndex:
        """Return the lines indexed by cell: those each cell starts, and those through it."""
        return line_index(self.rows, self.cols, self.k)

    @property
    def same_game(self) -> Rules:
        """Return the plainest rules that play this very game, so that both share one
        table: freestyle when no line has an end on the board (no overline fits), standard
        when no line has both (caro's closed lines do not fit). Renju is its own game on
        every board: its fouls are not only overlines."""
        if self.variant.has_fouls:
            return self
        ends = line_ends(self.rows, self.cols, self.k)
        if self.variant.closed_ends_block and not any(len(both) == 2 for both in ends):
            return Rules(self.rows, self.cols, self.k, variant=Variant.STANDARD).same_game
        if self.variant is Variant.FREESTYLE or not any(ends):
            return Rules(self.rows, self.cols, self.k, self.misere)
        return self

    def counts(
        self,
        ends: tuple[int, ...],
        holds: Callable[[int], bool],
        closes: Callable[[int], bool],
        *,
        first_player: bool,
    ) -> bool:
        """Return whether a line held by one side counts, given its `ends`, whether that
        side `holds` a cell and whether the opponent `closes` it: always in freestyle;
        in standard unless it holds an end; in caro also unless the opponent holds both;
        in renju as in standard for black (the `first_player`), always for white."""
        if not self.variant.exact_length_for(first_player=first_player):
            return True
        if any(holds(end) for end in ends):
            return False
        return not (
            self.variant.closed_ends_block and len(ends) == 2 and all(closes(end) for end in ends)
        )

    def coordinates(self, index: int) -> tuple[int, int]:
        """Return the (row, column) of a cell index."""
        return divmod(index, self.cols)

    def describe(self) -> str:
        """Return the rules in words, e.g. '4x4, 3 in a row, misère' or '15x15, exactly 5 in
        a row, caro'."""
        kind = ", misère" if self.misere else ""
        exactly = "exactly " if self.variant.exact_length else ""
        named = f", {self.variant.value}" if self.variant in (Variant.CARO, Variant.RENJU) else ""
        if self.variant is Variant.RENJU:
            exactly = ""  # exactly five for black only: the name says it
        return f"{self.rows}x{self.cols}, {exactly}{self.k} in a row{named}{kind}"


#: How many games' lines one process keeps (each of the three caches below up to about 150 KB
#: a game, on 20x20): the games in use, but not every game a client can name (256 kept let
#: the server grow past its bound in benchmarks.growth once boards reached 20x20).
LINES_KEPT = 64
#: How many ways of naming a game `rules_for` remembers (a few hundred bytes each).
RULES_KEPT = 4096


@lru_cache(maxsize=LINES_KEPT)
def winning_lines(rows: int, cols: int, k: int) -> tuple[Line, ...]:
    """Return every run of k cells in a row, column or diagonal of a rows x cols board."""
    found: set[Line] = set()
    for row in range(rows):
        for col in range(cols):
            for row_step, col_step in DIRECTIONS:
                end_row, end_col = row + row_step * (k - 1), col + col_step * (k - 1)
                if 0 <= end_row < rows and 0 <= end_col < cols:
                    found.add(
                        tuple(
                            sorted(
                                (row + row_step * step) * cols + col + col_step * step
                                for step in range(k)
                            )
                        )
                    )
    return tuple(sorted(found))


@lru_cache(maxsize=LINES_KEPT)
def line_ends(rows: int, cols: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Return, for each line of `winning_lines` in its order, the cells on the board just
    beyond its two ends, along its direction (none for a line of one cell: it has no
    direction)."""
    found: list[tuple[int, ...]] = []
    for line in winning_lines(rows, cols, k):
        if k == 1:
            found.append(())
            continue
        (row, col), (next_row, next_col) = (divmod(cell, cols) for cell in line[:2])
        row_step, col_step = next_row - row, next_col - col
        beyond = (
            (row - row_step, col - col_step),
            (row + row_step * k, col + col_step * k),
        )
        found.append(
            tuple(row * cols + col for row, col in beyond if 0 <= row < rows and 0 <= col < cols)
        )
    return tuple(found)


@dataclass(frozen=True, slots=True)
class LineIndex:
    """A game's lines indexed by cell, so that a board looks only at lines its marks are on."""

    #: For each cell, the lines whose lowest cell it is, in ascending order: walking the
    #: cells in order and these lines in turn gives every line, in ascending order.
    starting_at: tuple[tuple[Line, ...], ...]
    #: For each cell, the lines through it.
    through: tuple[tuple[Line, ...], ...]
    #: For each line, the cells just beyond its ends (`line_ends`).
    ends: Mapping[Line, tuple[int, ...]]


@lru_cache(maxsize=LINES_KEPT)
def line_index(rows: int, cols: int, k: int) -> LineIndex:
    """Return the lines of a rows x cols board with k in a row, indexed by cell."""
    lines = winning_lines(rows, cols, k)
    starting_at: list[list[Line]] = [[] for _ in range(rows * cols)]
    through: list[list[Line]] = [[] for _ in range(rows * cols)]
    for line in lines:
        starting_at[line[0]].append(line)
        for cell in line:
            through[cell].append(line)
    return LineIndex(
        tuple(tuple(cell_lines) for cell_lines in starting_at),
        tuple(tuple(cell_lines) for cell_lines in through),
        MappingProxyType(dict(zip(lines, line_ends(rows, cols, k), strict=True))),
    )


#: Today's game: 3x3, three in a row, normal rules.
CLASSIC = Rules()


#: Every game solved into a table: each board up to 4x4, each line length, normal and
#: misère; standard where an overline fits (elsewhere it is the freestyle game), and caro
#: where a line fits with both ends on the board (elsewhere it is the standard game).
FAMILY: tuple[Rules, ...] = tuple(
    rules
    for rows in range(1, TABLE_MAX_SIDE + 1)
    for cols in range(1, TABLE_MAX_SIDE + 1)
    for k in range(1, max(rows, cols) + 1)
    for rules in (
        Rules(rows, cols, k),
        Rules(rows, cols, k, misere=True),
        Rules(rows, cols, k, variant=Variant.STANDARD),
        Rules(rows, cols, k, variant=Variant.CARO),
    )
    if rules.same_game == rules
)


#: The square boards a flat board's length names by itself.
SQUARES = {side * side: side for side in range(1, MAX_SIDE + 1)}


@lru_cache(maxsize=RULES_KEPT)
def rules_for(
    cell_count: int,
    *,
    board_rows: int | None = None,
    rows: int | None = None,
    cols: int | None = None,
    k: int | None = None,
    misere: bool = False,
    variant: Variant = Variant.FREESTYLE,
) -> Rules:
    """Return the rules a request names, the board's shape filling in what it leaves out.

    A board given as `board_rows` rows has that shape; a flat board of a square number of
    cells (1, 4, 9, ... 225) is square; any other needs `rows` or `cols`. Raise InvalidRules,
    saying why, for rules outside the family or a board that does not fit them. Remembered:
    every request asks.
    """
    # The bounds first: a request naming 16 rows learns that before anything else.
    _check_sides(rows, cols)
    if board_rows is not None:
        shape = (board_rows, cell_count // board_rows)
    elif rows is not None and cols is not None:
        shape = (rows, cols)
    elif rows is not None:
        shape = (rows, cell_count // rows)
    elif cols is not None:
        shape = (cell_count // cols, cols)
    elif cell_count in SQUARES:
        shape = (SQUARES[cell_count], SQUARES[cell_count])
    else:
        raise InvalidRules(
            RulesProblem.BOARD_DOES_NOT_FIT,
            f"a flat board of {cell_count} cells is no square: say its shape with "
            "rules.rows and rules.cols, or send it as a list of rows",
        )
    if (
        shape[0] * shape[1] != cell_count
        or rows not in (None, shape[0])
        or cols not in (None, shape[1])
    ):
        rows_named = f"{rows if rows is not None else shape[0]}"
        cols_named = f"{cols if cols is not None else shape[1]}"
        given = f" in {board_rows} rows" if board_rows is not None else ""
        raise InvalidRules(
            RulesProblem.BOARD_DOES_NOT_FIT,
            f"the board has {cell_count} cells{given}, which do not fit {rows_named} rows "
            f"of {cols_named} cells",
        )
    return Rules.of(shape[0], shape[1], k, misere=misere, variant=variant)


def _check_sides(rows: int | None, cols: int | None) -> None:
    """Raise InvalidRules for a side named beyond the family, before any other reason."""
    Rules(1 if rows is None else rows, 1 if cols is None else cols, 1)

"""Swap2, the opening rule of gomoku's tournaments and of most sites that play it: the
decisions a player makes at each of its steps, made by the search.

The opener places three stones, black, white, black (X, O, X: X is black and moves first).
The other player then takes black (a swap: the opener plays white's fourth stone), or stays
white and plays the fourth stone, or places two more, white then black, and lets the opener
choose: take black (a swap: the other player moves, as white), or stay white and play the
sixth stone. Whoever chooses a colour takes the side the search values more; the opener
places the opening the search finds nearest even, so that the choice gains its opponent the
least. Gomocup's `SWAP2BOARD` answers are these: three stones, `SWAP`, or a move.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from dataclasses import dataclass

from service.game.board import Board, Mark
from service.game.refusals import Reason, Refusal
from service.game.rules import Variant
from service.game.search import SearchResult, search

#: The X's and O's on the board when a Swap2 player decides: none (the opener places
#: three), the opening's three (the other player chooses), five (the opener chooses).
STEP_MARKS = ((0, 0), (2, 1), (3, 2))

#: The line Swap2 is played for: five in a row, on boards that hold the openings' square.
SWAP2_K = 5
OPENING_SQUARE = 5


class Swap2Problem(Reason):
    """A reason why Swap2 has nothing to decide on a game."""

    RULES = "swap2_rules"
    STONES = "swap2_stones"


class InvalidOpening(Refusal):
    """Raised for a game that is not at a step of Swap2, saying why."""

    def __init__(self, problem: Swap2Problem, detail: str, field: str = "rules") -> None:
        super().__init__(problem, detail)
        self.problem = problem
        #: Which part of a request is at fault: the rules, or the stones (board or moves).
        self.field = field


class Decision(enum.Enum):
    """What a Swap2 player does at its step."""

    #: The opener's three stones: black, white, black.
    PLACE = "place"
    #: Take black: the other player moves next, as white.
    SWAP = "swap"
    #: Stay white and play white's move.
    MOVE = "move"


@dataclass(frozen=True, slots=True)
class Swap2Choice:
    """A Swap2 decision, the stones it places and the side it takes, with the search behind it."""

    decision: Decision
    #: The cells the decision places, in order: three, one, or none.
    stones: tuple[int, ...]
    #: The side the decider takes: X after a swap, O after a move, None after placing (the
    #: other player chooses next).
    side: Mark | None
    #: The board after the stones.
    board: Board
    #: The search of the position decided on, white to move: the opening placed, or the
    #: position as sent.
    found: SearchResult
    #: Every search the decision made, in order: the 26 openings', or the one.
    searches: tuple[SearchResult, ...]

    @property
    def next_player(self) -> Mark:
        """Return who plays the next stone on the board after: X and O take turns, X first."""
        return Mark.O if self.board.count(Mark.X) > self.board.count(Mark.O) else Mark.X


#: White's first stone beside black's on the centre (row and column offsets), and the
#: mirror that keeps both where they are: the direct openings, then the indirect ones.
OPENING_FAMILIES: tuple[tuple[tuple[int, int], Callable[[int, int], tuple[int, int]]], ...] = (
    ((-1, 0), lambda row, col: (row, -col)),
    ((-1, 1), lambda row, col: (-col, -row)),
)

#: A position's search for white, to move, within a number of seconds.
Searcher = Callable[[Board, float], SearchResult]


def canonical_openings(board: Board) -> tuple[tuple[int, int, int], ...]:
    """Return renju's 26 openings on the board's centre, as cells: black on the centre,
    white beside it (the 13 direct openings) or diagonally (the 13 indirect ones), black's
    second stone anywhere else in the 5x5 square around the centre, one of each pair of
    mirror images."""
    rules = board.rules
    centre_row, centre_col = rules.rows // 2, rules.cols // 2

    def cell(row: int, col: int) -> int:
        return (centre_row + row) * rules.cols + centre_col + col

    found = []
    for white, mirrored in OPENING_FAMILIES:
        for row in range(-2, 3):
            for col in range(-2, 3):
                # Of a cell and its mirror image, the first in reading order stands for both.
                if (row, col) not in ((0, 0), white) and (row, col) <= mirrored(row, col):
                    found.append((cell(0, 0), cell(*white), cell(row, col)))
    return tuple(found)


def with_opening(board: Board, stones: tuple[int, ...]) -> Board:
    """Return the board with an opening's three stones on it: black, white, black."""
    for stone, mark in zip(stones, (Mark.X, Mark.O, Mark.X), strict=True):
        board = board.play(stone, mark)
    return board


@dataclass(frozen=True, slots=True)
class Swap2Step:
    """A board at a step of Swap2, checked once (`step_of`)."""

    board: Board


def step_of(board: Board, *, as_moves: bool = False) -> Swap2Step:
    """Return the board as a step of Swap2; raise InvalidOpening, saying why, unless it is
    one: five in a row, not misère, on a board of at least 5x5, with no stones, or the
    opening's three, or five (the stones at fault: the moves, for a game sent `as_moves`)."""
    rules = board.rules
    if rules.k != SWAP2_K or rules.misere or min(rules.rows, rules.cols) < OPENING_SQUARE:
        raise InvalidOpening(
            Swap2Problem.RULES,
            f"Swap2 opens games of five in a row, not misère, on boards of at least 5x5; "
            f"this game is {rules.describe()}",
        )
    marks = (board.count(Mark.X), board.count(Mark.O))
    if marks not in STEP_MARKS:
        raise InvalidOpening(
            Swap2Problem.STONES,
            f"Swap2 decides on a board with no stones, with the opening's three (2 X and 1 "
            f"O) or with five (3 X and 2 O), not with {marks[0]} X and {marks[1]} O",
            "moves" if as_moves else "board",
        )
    return Swap2Step(board)


def decide(step: Swap2Step, budget_seconds: float, *, threads: int = 1) -> Swap2Choice:
    """Return the Swap2 decision at a step, searched within `budget_seconds` on `threads`
    threads."""

    def for_white(position: Board, seconds: float) -> SearchResult:
        # Under renju, by Wine's colour-blind weights: renju's fitted ones read the side
        # that leads less well in these openings (docs/STRENGTH.md).
        renju = position.rules.variant is Variant.RENJU
        return search(position, Mark.O, seconds, threads=threads, wines_weights=renju)

    return decide_with(step, budget_seconds, for_white)


def decide_with(
    step: Swap2Step,
    budget_seconds: float,
    searcher: Searcher,
    clock: Callable[[], float] = time.perf_counter,
) -> Swap2Choice:
    """Return the Swap2 decision at a step, each position valued by `searcher` for white:
    on an empty board the canonical opening whose evaluation is nearest 0 (each given an
    equal share of the time left, by `clock`; among those searched two depths or proven,
    if any; the first of equals); else a swap where white's evaluation is below 0, and
    white's move where it is not."""
    board = step.board
    if board.count(Mark.X) == 0:
        openings = canonical_openings(board)
        deadline = clock() + budget_seconds
        valued = []
        for index, stones in enumerate(openings):
            placed = with_opening(board, stones)
            # What a search takes beyond its share comes out of the later ones'.
            share = max(0.0, deadline - clock()) / (len(openings) - index)
            valued.append((placed, stones, searcher(placed, share)))
        # A search that finished one depth only (its share spent before it started) has
        # no mean of two, and its one value leans with the parity: compared only when
        # every search is such.
        settled = [option for option in valued if _settled(option[2])] or valued
        placed, stones, found = min(settled, key=lambda option: abs(option[2].two_depth_evaluation))
        searches = tuple(option[2] for option in valued)
        return Swap2Choice(Decision.PLACE, stones, None, placed, found, searches)
    found = searcher(board, budget_seconds)
    if found.two_depth_evaluation < 0:
        return Swap2Choice(Decision.SWAP, (), Mark.X, board, found, (found,))
    after = board.play(found.move, Mark.O)
    return Swap2Choice(Decision.MOVE, (found.move,), Mark.O, after, found, (found,))


def _settled(found: SearchResult) -> bool:
    """Return whether a search's two-depth evaluation is a mean of two depths, or proven."""
    return found.proven or found.depth >= 2

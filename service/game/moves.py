"""A game given as the moves played, in order: the board they make, and what only the order
tells (a black foul that ended a renju game), or why they make none."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.game import renju
from service.game.board import Board, Mark
from service.game.refusals import Reason, Refusal
from service.game.rules import Rules


class MovesProblem(Reason):
    """A reason why a list of moves is no game."""

    MOVE_OUT_OF_RANGE = "move_out_of_range"
    MOVE_REPEATED = "move_repeated"
    MOVE_AFTER_END = "move_after_end"
    BOARD_AND_MOVES = "board_and_moves"


class InvalidMoves(Refusal):
    """Raised for moves that no game of the rules plays, saying which move and why."""

    def __init__(self, problem: MovesProblem, detail: str, index: int | None = None) -> None:
        super().__init__(problem, detail)
        self.problem = problem
        #: Which move of the list is at fault; None for the list as a whole.
        self.index = index


@dataclass(frozen=True, slots=True)
class Game:
    """A game as sent: its board, and the black foul that ended it, when its last move was
    one (renju; a board alone shows an overline, but not a double three or four)."""

    board: Board
    foul: renju.FoulMove | None = None


def game_after(moves: Sequence[int], rules: Rules) -> Game:
    """Return the game `moves` play (cell indices in the order played, X first): its board,
    and under renju the foul that ended it, if black's last move was one. Raise InvalidMoves
    for a cell off the board, a cell played twice, or a move after the end."""
    cells: list[Mark | None] = [None] * rules.cell_count
    mark = Mark.X
    ended_at: int | None = None
    foul: renju.FoulMove | None = None
    for index, cell in enumerate(moves):
        if not 0 <= cell < rules.cell_count:
            raise InvalidMoves(
                MovesProblem.MOVE_OUT_OF_RANGE,
                f"move {index} is cell {cell}, which is not on a {rules.rows}x{rules.cols} "
                f"board (cells 0 to {rules.cell_count - 1})",
                index,
            )
        if cells[cell] is not None:
            raise InvalidMoves(
                MovesProblem.MOVE_REPEATED,
                f"move {index} is cell {cell}, which move {moves.index(cell)} took",
                index,
            )
        if ended_at is not None:
            how = (
                f"black's {foul.foul.value.replace('_', ' ')} at cell {foul.cell} was a foul"
                if foul is not None
                else "completed a line"
            )
            raise InvalidMoves(
                MovesProblem.MOVE_AFTER_END,
                f"move {index} comes after the game ended: move {ended_at} {how}",
                index,
            )
        if mark is Mark.X and rules.variant.has_fouls:
            kind = renju.foul(Board(tuple(cells), rules), cell)
            if kind is not None:
                foul, ended_at = renju.FoulMove(cell, kind, index), index
        cells[cell] = mark
        if _completes(cells, rules, cell):
            ended_at = index
        mark = mark.opponent
    return Game(Board(tuple(cells), rules), foul)


def _completes(cells: list[Mark | None], rules: Rules, cell: int) -> bool:
    """Return whether the mark just played on `cell` completed a line that counts: only a
    line through it can have been."""
    mark = cells[cell]
    if mark is None:
        return False
    ends = rules.line_index.ends
    return any(
        all(cells[i] is mark for i in line)
        and rules.counts(
            ends[line],
            lambda end: cells[end] is mark,
            lambda end: cells[end] is mark.opponent,
            first_player=mark is Mark.X,
        )
        for line in rules.line_index.through[cell]
    )

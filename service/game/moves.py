"""A game given as the moves played, in order: the board they make, or why they make none."""

from __future__ import annotations

from collections.abc import Sequence

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


def board_after(moves: Sequence[int], rules: Rules) -> Board:
    """Return the board after `moves` (cell indices in the order played, X first); raise
    InvalidMoves for a cell off the board, a cell played twice, or a move after the end."""
    cells: list[Mark | None] = [None] * rules.cell_count
    through = rules.line_index.through
    mark = Mark.X
    ended_at: int | None = None
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
            raise InvalidMoves(
                MovesProblem.MOVE_AFTER_END,
                f"move {index} comes after the game ended: move {ended_at} completed a line",
                index,
            )
        cells[cell] = mark
        # Only a line through the newest mark can have been completed by it.
        if any(all(cells[i] is mark for i in line) for line in through[cell]):
            ended_at = index
        mark = mark.opponent
    return Board(tuple(cells), rules)

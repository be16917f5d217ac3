"""Request and response bodies of the HTTP API; the only place Pydantic meets the domain."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainValidator
from pydantic_core import PydanticCustomError

from service.board import CELL_COUNT, SIDE, Board, GameStatus, Mark
from service.engine import MoveAdvice, Outcome

MARKS = {"X": Mark.X, "x": Mark.X, "O": Mark.O, "o": Mark.O}
#: What an empty cell may be written as; a board string uses the one-character ones.
EMPTY_CELLS = frozenset({"", " ", "_", "-", "."})
CELL_HELP = (
    "a cell is 'X' or 'O' (either case), empty (null, '', ' ', '_', '-' or '.') or its own index"
)


def _cell_parser(index: int) -> Callable[[Any], Mark | None]:
    def parse_cell(value: Any) -> Mark | None:
        if value is None or (isinstance(value, str) and value in EMPTY_CELLS):
            return None
        if isinstance(value, str) and value in MARKS:
            return MARKS[value]
        # bool is a subclass of int, but true is no cell index.
        if type(value) is int and value == index:
            return None
        raise PydanticCustomError(
            "board_cell",
            "cell {index} is {value}: " + CELL_HELP + ", {index}",
            {"index": index, "value": _describe(value)},
        )

    return parse_cell


def _describe(value: Any) -> str:
    text = repr(value) if isinstance(value, str | int | float) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _flatten_board(value: Any) -> Any:
    """Turn the three accepted board shapes into one list of nine cells."""
    if isinstance(value, str):
        if len(value) != CELL_COUNT:
            raise PydanticCustomError(
                "board_length",
                "a board string has exactly 9 characters, not {length}",
                {"length": len(value)},
            )
        return list(value)
    if isinstance(value, list):
        if len(value) == SIDE and any(isinstance(row, list) for row in value):
            if not all(isinstance(row, list) and len(row) == SIDE for row in value):
                raise PydanticCustomError(
                    "board_rows", "a board of rows has 3 rows, each a list of 3 cells"
                )
            return [cell for row in value for cell in row]
        if len(value) != CELL_COUNT:
            raise PydanticCustomError(
                "board_length",
                "a board is a list of 9 cells or of 3 rows of 3 cells, not a list of {length}",
                {"length": len(value)},
            )
        return value
    raise PydanticCustomError(
        "board_type",
        "a board is a list of 9 cells, a list of 3 rows of 3 cells, or a string of 9 characters",
    )


def _parse_player(value: Any) -> Mark | None:
    if value is None:
        return None
    if isinstance(value, str) and value in MARKS:
        return MARKS[value]
    raise PydanticCustomError(
        "player",
        "player is 'X' or 'O' (either case) or null, not {value}",
        {"value": _describe(value)},
    )


def _cell(index: int) -> Any:
    return Annotated[Mark | None, PlainValidator(_cell_parser(index))]


if TYPE_CHECKING:
    Cells = tuple[Mark | None, ...]
else:
    # Each position gets its own validator, so an integer cell can be checked against its index
    # and every error is located at the cell's index.
    Cells = tuple[tuple(_cell(index) for index in range(CELL_COUNT))]


class MoveRequest(BaseModel):
    """A board, in any accepted encoding, and optionally who is to move on it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    board: Annotated[Cells, BeforeValidator(_flatten_board)]
    player: Annotated[Mark | None, PlainValidator(_parse_player)] = None

    def to_board(self) -> Board:
        """Return the domain board."""
        return Board(self.board)


class MoveResponse(BaseModel):
    """The best move and the position after it."""

    move: int | None
    row: int | None
    col: int | None
    player: Mark
    score: int | None
    outcome: Outcome | None
    plies_to_end: int
    best_moves: tuple[int, ...]
    board: tuple[str, ...]
    status: GameStatus
    winner: Mark | None
    winning_lines: tuple[tuple[int, int, int], ...]
    next_player: Mark | None

    @classmethod
    def from_advice(cls, advice: MoveAdvice) -> MoveResponse:
        """Serialize the engine's advice."""
        row, col = advice.coordinates or (None, None)
        evaluation = advice.evaluation
        return cls(
            move=advice.move,
            row=row,
            col=col,
            player=advice.player,
            score=evaluation.score if evaluation else None,
            outcome=evaluation.outcome if evaluation else None,
            plies_to_end=evaluation.plies_to_end if evaluation else 0,
            best_moves=evaluation.best_moves if evaluation else (),
            board=tuple("" if cell is None else cell.value for cell in advice.board.cells),
            status=advice.status,
            winner=advice.status.winner,
            winning_lines=advice.winning_lines,
            next_player=advice.next_player,
        )

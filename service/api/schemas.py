"""Request and response bodies of the HTTP API; the only place Pydantic meets the domain."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationError,
)
from pydantic_core import PydanticCustomError

from service.game.board import CELL_COUNT, SIDE, GameStatus, Mark
from service.game.difficulty import Difficulty
from service.game.engine import Analysis, MoveAdvice, Outcome, RankedMove

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


DIFFICULTIES = {level.value: level for level in Difficulty}
#: Seeds fit a signed 64-bit integer, which every client language has.
MAX_SEED = 2**63 - 1
#: The most move requests one batch may hold.
MAX_BATCH = 1000


def _parse_difficulty(value: Any) -> Difficulty:
    if isinstance(value, str) and value in DIFFICULTIES:
        return DIFFICULTIES[value]
    raise PydanticCustomError(
        "difficulty",
        "difficulty is one of 'perfect', 'hard', 'medium' or 'easy', not {value}",
        {"value": _describe(value)},
    )


def _parse_seed(value: Any) -> int | None:
    if value is None or (type(value) is int and 0 <= value <= MAX_SEED):
        return value
    raise PydanticCustomError(
        "seed",
        "seed is a whole number from 0 to 9223372036854775807, or null, not {value}",
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
    difficulty: Annotated[Difficulty, PlainValidator(_parse_difficulty)] = Difficulty.PERFECT
    seed: Annotated[int | None, PlainValidator(_parse_seed)] = None

    @property
    def deterministic(self) -> bool:
        """Return whether the answer is fixed by the request: perfect play, or a seed."""
        return self.difficulty is Difficulty.PERFECT or self.seed is not None

    @classmethod
    def from_query(cls, query: Mapping[str, list[str]]) -> MoveRequest:
        """Validate a query string: the same fields, each given once, the seed as digits."""
        repeated = [name for name, values in query.items() if len(values) > 1]
        if repeated:
            raise ValidationError.from_exception_data(
                cls.__name__,
                [
                    {
                        "type": PydanticCustomError(
                            "repeated_parameter", "a query parameter may be given only once"
                        ),
                        "loc": (name,),
                        "input": query[name],
                    }
                    for name in repeated
                ],
            )
        fields: dict[str, Any] = {name: values[0] for name, values in query.items()}
        seed = fields.get("seed")
        if isinstance(seed, str) and seed.isascii() and seed.isdigit():
            fields["seed"] = int(seed)
        return cls.model_validate(fields)


class MoveResponse(BaseModel):
    """The chosen move and the position after it."""

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
    winning_lines: tuple[tuple[int, ...], ...]
    next_player: Mark | None
    difficulty: Difficulty
    optimal: bool | None

    @classmethod
    def from_advice(cls, advice: MoveAdvice) -> MoveResponse:
        """Serialize the engine's advice."""
        chosen, evaluation = advice.chosen, advice.evaluation
        row, col = (chosen.row, chosen.col) if chosen else (None, None)
        return cls(
            move=advice.move,
            row=row,
            col=col,
            player=advice.player,
            score=chosen.score if chosen else None,
            outcome=chosen.outcome if chosen else None,
            plies_to_end=chosen.plies_to_end if chosen else 0,
            best_moves=evaluation.best_moves if evaluation else (),
            board=tuple("" if cell is None else cell.value for cell in advice.board.cells),
            status=advice.status,
            winner=advice.status.winner,
            winning_lines=advice.winning_lines,
            next_player=advice.next_player,
            difficulty=advice.difficulty,
            optimal=advice.optimal,
        )


class RankedMoveResponse(BaseModel):
    """One legal move, its value under perfect play, and the line that follows."""

    # Read straight off the engine's RankedMove, whose attributes have these names.
    model_config = ConfigDict(from_attributes=True)

    move: int
    row: int
    col: int
    score: int
    outcome: Outcome
    plies_to_end: int
    line: tuple[int, ...]

    @classmethod
    def from_ranked(cls, ranked: RankedMove) -> RankedMoveResponse:
        """Serialize one ranked move."""
        return cls.model_validate(ranked)


class AnalysisResponse(BaseModel):
    """Every legal move ranked, best first."""

    player: Mark
    status: GameStatus
    score: int | None
    outcome: Outcome | None
    plies_to_end: int
    moves: tuple[RankedMoveResponse, ...]

    @classmethod
    def from_analysis(cls, analysis: Analysis) -> AnalysisResponse:
        """Serialize the engine's analysis."""
        evaluation = analysis.evaluation
        return cls(
            player=analysis.player,
            status=analysis.status,
            score=evaluation.score if evaluation else None,
            outcome=evaluation.outcome if evaluation else None,
            plies_to_end=evaluation.plies_to_end if evaluation else 0,
            moves=tuple(RankedMoveResponse.from_ranked(ranked) for ranked in analysis.moves),
        )


def _cap_batch(value: Any) -> Any:
    if isinstance(value, list) and len(value) > MAX_BATCH:
        raise PydanticCustomError(
            "batch_too_large",
            "a batch holds at most {maximum} requests, not {count}",
            {"maximum": MAX_BATCH, "count": len(value)},
        )
    return value


class BatchRequest(BaseModel):
    """Up to MAX_BATCH move requests, each checked on its own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    requests: Annotated[list[Any], BeforeValidator(_cap_batch), Field(strict=True)]

"""Request and response bodies of the HTTP API; the only place Pydantic meets the domain."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)
from pydantic.main import IncEx
from pydantic_core import PydanticCustomError

from service.api.app_settings import DEFAULT_BUDGET_MS
from service.game.board import Board, GameStatus, Mark
from service.game.difficulty import Difficulty
from service.game.engine import Analysis, MoveAdvice, Outcome, RankedMove
from service.game.rules import MAX_SIDE, rules_for
from service.game.search import Method, SearchAnalysis, SearchResult

MARKS = {"X": Mark.X, "x": Mark.X, "O": Mark.O, "o": Mark.O}
#: What an empty cell may be written as; a board string uses the one-character ones.
EMPTY_CELLS = frozenset({"", " ", "_", "-", "."})
MAX_CELLS = MAX_SIDE * MAX_SIDE
CELL_HELP = (
    "a cell is 'X' or 'O' (either case), empty (null, '', ' ', '_', '-' or '.') or its own index"
)


def _parse_cell(indexed: tuple[int, Any]) -> Mark | None:
    index, value = indexed
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


def _describe(value: Any) -> str:
    text = repr(value) if isinstance(value, str | int | float) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _rows_of(value: Any) -> int | None:
    """Return how many rows a board given as a list of rows has; None for a flat board."""
    if isinstance(value, list) and value and any(isinstance(row, list) for row in value):
        return len(value)
    return None


def _flatten_board(value: Any) -> Any:
    """Turn the three accepted board shapes into one list of (index, cell) pairs."""
    if isinstance(value, str):
        if not 1 <= len(value) <= MAX_CELLS:
            raise PydanticCustomError(
                "board_length",
                "a board string has 1 to {maximum} characters, one a cell, not {length}",
                {"maximum": MAX_CELLS, "length": len(value)},
            )
        return list(enumerate(value))
    if isinstance(value, list):
        if _rows_of(value) is not None:
            widths = {len(row) if isinstance(row, list) else -1 for row in value}
            if len(value) > MAX_SIDE or len(widths) != 1 or not 1 <= min(widths) <= MAX_SIDE:
                raise PydanticCustomError(
                    "board_rows",
                    "a board of rows has 1 to {maximum} rows, each a list of the same 1 to "
                    "{maximum} cells",
                    {"maximum": MAX_SIDE},
                )
            return list(enumerate(cell for row in value for cell in row))
        if not 1 <= len(value) <= MAX_CELLS:
            raise PydanticCustomError(
                "board_length",
                "a board is a list of 1 to {cells} cells or of 1 to {sides} rows of cells, "
                "not a list of {length}",
                {"cells": MAX_CELLS, "sides": MAX_SIDE, "length": len(value)},
            )
        return list(enumerate(value))
    raise PydanticCustomError(
        "board_type",
        "a board is a list of cells, a list of rows of cells, or a string of one character a cell",
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


#: A cell, validated with its index so that it may be given as its own index, and so that
#: every error is located at the cell.
Cells = tuple[Annotated[Mark | None, PlainValidator(_parse_cell)], ...]


class ShapedCells(tuple[Mark | None, ...]):
    """A board's cells, flat, remembering how many rows they came in (None: given flat)."""

    rows: int | None

    def __new__(cls, cells: tuple[Mark | None, ...], rows: int | None) -> ShapedCells:
        shaped = super().__new__(cls, cells)
        shaped.rows = rows
        return shaped


def _keep_the_rows(value: Any, handler: ValidatorFunctionWrapHandler) -> ShapedCells:
    return ShapedCells(handler(value), _rows_of(value))


if TYPE_CHECKING:
    BoardCells = ShapedCells
else:
    # Any encoding flattened, each cell checked at its index, the rows remembered.
    BoardCells = Annotated[Cells, BeforeValidator(_flatten_board), WrapValidator(_keep_the_rows)]


def _parse_budget(value: Any) -> int | None:
    # The range is the operator's to set, so it is checked where the settings are known.
    if value is None or type(value) is int:
        return value
    raise PydanticCustomError(
        "budget_ms",
        "budget_ms is a whole number of milliseconds, or null, not {value}",
        {"value": _describe(value)},
    )


def _strict_int(value: Any) -> int | None:
    if value is None or type(value) is int:
        return value
    raise PydanticCustomError(
        "whole_number", "must be a whole number, not {value}", {"value": _describe(value)}
    )


def _strict_bool(value: Any) -> bool:
    if type(value) is bool:
        return value
    raise PydanticCustomError(
        "boolean", "must be true or false, not {value}", {"value": _describe(value)}
    )


class RulesRequest(BaseModel):
    """Which game of the family: all optional, inferred from the board where absent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rows: Annotated[int | None, PlainValidator(_strict_int)] = None
    cols: Annotated[int | None, PlainValidator(_strict_int)] = None
    k: Annotated[int | None, PlainValidator(_strict_int)] = None
    misere: Annotated[bool, PlainValidator(_strict_bool)] = False


#: A request without `rules`: every rule from the board's shape, or the defaults.
NO_RULES = RulesRequest()


class MoveRequest(BaseModel):
    """A board, in any accepted encoding, its rules, and optionally who is to move on it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    board: BoardCells
    rules: RulesRequest | None = None
    player: Annotated[Mark | None, PlainValidator(_parse_player)] = None
    difficulty: Annotated[Difficulty, PlainValidator(_parse_difficulty)] = Difficulty.PERFECT
    seed: Annotated[int | None, PlainValidator(_parse_seed)] = None
    #: How long a search may take, for a game beyond the tables; None: the default.
    budget_ms: Annotated[int | None, PlainValidator(_parse_budget)] = None

    def to_board(self) -> Board:
        """Return the board under the rules named, or implied by its shape.

        Raise InvalidRules, saying why, for rules outside the family or a board that does
        not fit them.
        """
        given = self.rules or NO_RULES
        rules = rules_for(
            len(self.board),
            board_rows=self.board.rows,
            rows=given.rows,
            cols=given.cols,
            k=given.k,
            misere=given.misere,
        )
        return Board(tuple(self.board), rules)

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
        for name in WHOLE_NUMBER_PARAMETERS:
            text = fields.get(name)
            if isinstance(text, str) and WHOLE_NUMBER.fullmatch(text):
                fields[name] = int(text)
        rules = {name: fields.pop(name) for name in RULES_PARAMETERS if name in fields}
        if rules:
            fields["rules"] = {name: _from_query_text(name, text) for name, text in rules.items()}
        return cls.model_validate(fields)


#: The query parameters of GET /v1/move that name the rules.
RULES_PARAMETERS = ("rows", "cols", "k", "misere")
#: The other query parameters read as whole numbers when they are written as one.
WHOLE_NUMBER_PARAMETERS = ("seed", "budget_ms")
WHOLE_NUMBER = re.compile(r"-?[0-9]{1,20}")
BOOLEAN_WORDS = {"true": True, "false": False, "1": True, "0": False}


def _from_query_text(name: str, text: str) -> Any:
    """Read a rule from the query string: misere as true or false, the others as whole
    numbers; text that is neither is left for validation to refuse, saying why."""
    if name == "misere":
        return BOOLEAN_WORDS.get(text, text)
    return int(text) if WHOLE_NUMBER.fullmatch(text) else text


class RulesResponse(BaseModel):
    """The game an answer is for, with every rule spelled out."""

    model_config = ConfigDict(from_attributes=True)

    rows: int
    cols: int
    k: int
    misere: bool


class SearchResponse(BaseModel):
    """What the search did for an answer beyond the tables, and how sure it is."""

    method: Method
    proven: bool
    evaluation: float
    depth: int
    nodes: int
    time_ms: float
    budget_ms: int

    @classmethod
    def from_search(
        cls,
        found: SearchResult | SearchAnalysis,
        *,
        proven: bool,
        evaluation: float,
        budget_ms: int,
    ) -> SearchResponse:
        """Serialize what a search reports."""
        return cls(
            method=found.method,
            proven=proven,
            evaluation=evaluation,
            depth=found.depth,
            nodes=found.nodes,
            time_ms=round(found.seconds * 1000, 1),
            budget_ms=budget_ms,
        )


#: Left out of every answer from a table, so that those stay as they always were.
NOT_IN_TABLE_ANSWERS: IncEx = {"search"}
NOT_IN_TABLE_ANALYSES: dict[str, Any] = {"search": True, "moves": {"__all__": {"evaluation"}}}


class MoveResponse(BaseModel):
    """The chosen move and the position after it."""

    move: int | None
    row: int | None
    col: int | None
    player: Mark
    score: int | None
    outcome: Outcome | None
    plies_to_end: int | None
    best_moves: tuple[int, ...]
    board: tuple[str, ...]
    status: GameStatus
    winner: Mark | None
    winning_lines: tuple[tuple[int, ...], ...]
    next_player: Mark | None
    difficulty: Difficulty
    optimal: bool | None
    rules: RulesResponse
    #: Only beyond the tables: null when the level chose without searching.
    search: SearchResponse | None = None

    @classmethod
    def from_advice(cls, advice: MoveAdvice, budget_ms: int = DEFAULT_BUDGET_MS) -> MoveResponse:
        """Serialize the engine's advice; `budget_ms` is what a search was given."""
        chosen, evaluation, found = advice.chosen, advice.evaluation, advice.search
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
            rules=RulesResponse.model_validate(advice.board.rules),
            search=SearchResponse.from_search(
                found, proven=found.proven, evaluation=found.evaluation, budget_ms=budget_ms
            )
            if found
            else None,
        )

    def to_json(self, *, searched_game: bool) -> bytes:
        """Return the answer as JSON: `search` only for a game beyond the tables."""
        return self.model_dump_json(
            exclude=None if searched_game else NOT_IN_TABLE_ANSWERS
        ).encode()


class RankedMoveResponse(BaseModel):
    """One legal move, its value under perfect play, and the line that follows."""

    # Read straight off the engine's RankedMove, whose attributes have these names.
    model_config = ConfigDict(from_attributes=True)

    move: int
    row: int
    col: int
    score: int | None
    outcome: Outcome | None
    plies_to_end: int | None
    line: tuple[int, ...]
    #: Only beyond the tables: the search's estimate for this move, from -1 to 1.
    evaluation: float | None = None

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
    plies_to_end: int | None
    moves: tuple[RankedMoveResponse, ...]
    rules: RulesResponse
    #: Only beyond the tables: null when the game was already over.
    search: SearchResponse | None = None

    @classmethod
    def from_analysis(
        cls, analysis: Analysis, budget_ms: int = DEFAULT_BUDGET_MS
    ) -> AnalysisResponse:
        """Serialize the engine's analysis; `budget_ms` is what its search was given."""
        evaluation, found = analysis.evaluation, analysis.search
        top = analysis.moves[0] if analysis.moves else None
        return cls(
            player=analysis.player,
            status=analysis.status,
            score=evaluation.score if evaluation else None,
            outcome=evaluation.outcome if evaluation else None,
            plies_to_end=evaluation.plies_to_end if evaluation else 0,
            moves=tuple(RankedMoveResponse.from_ranked(ranked) for ranked in analysis.moves),
            rules=RulesResponse.model_validate(analysis.rules),
            search=SearchResponse.from_search(
                found,
                proven=evaluation.score is not None,
                evaluation=top.evaluation if top.evaluation is not None else 0.0,
                budget_ms=budget_ms,
            )
            if found and evaluation and top
            else None,
        )

    def to_json(self, *, searched_game: bool) -> bytes:
        """Return the analysis as JSON: the search's fields only for a game beyond the tables."""
        if searched_game:
            return self.model_dump_json().encode()
        return self.model_dump_json(exclude=NOT_IN_TABLE_ANALYSES).encode()


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

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
    StrictBool,
    StrictInt,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from service.api.app_settings import DEFAULT_BUDGET_MS
from service.api.problems import describe, refusal
from service.game.analysis import SearchAnalysis
from service.game.board import Board, GameStatus, Mark
from service.game.difficulty import Difficulty
from service.game.engine import Analysis, MoveAdvice, Outcome, RankedMove
from service.game.moves import Game, InvalidMoves, MovesProblem, game_after
from service.game.renju import Foul
from service.game.rules import MAX_SIDE, Variant, rules_for
from service.game.search import Method, SearchResult
from service.game.swap2 import Decision, Swap2Choice

#: A mark in either case: clients write 'x' as often as 'X', which Mark's values do not know.
MARKS = {"X": Mark.X, "x": Mark.X, "O": Mark.O, "o": Mark.O}
#: What an empty cell may be written as; a board string uses the one-character ones.
EMPTY_CELLS = frozenset({"", " ", "_", "-", "."})
MAX_CELLS = MAX_SIDE * MAX_SIDE
#: Seeds fit a signed 64-bit integer, which every client language has.
MAX_SEED = 2**63 - 1
#: The most move requests one batch may hold.
MAX_BATCH = 1000


# The board is the one field Pydantic's types cannot say: three encodings, and a cell that
# may be empty in six ways or given as its own index, refused at its own index.


def _parse_cell(indexed: tuple[int, Any]) -> Mark | None:
    index, value = indexed
    if value is None or (isinstance(value, str) and value in EMPTY_CELLS):
        return None
    if isinstance(value, str) and value in MARKS:
        return MARKS[value]
    # bool is a subclass of int, but true is no cell index.
    if type(value) is int and value == index:
        return None
    raise refusal("board_cell", index=index, value=describe(value))


def _rows_of(value: Any) -> int | None:
    """Return how many rows a board given as a list of rows has; None for a flat board."""
    if isinstance(value, list) and value and any(isinstance(row, list) for row in value):
        return len(value)
    return None


#: What stands for the board a request without `moves` lacks, so that it is refused there.
NO_BOARD = object()


def _flatten_board(value: Any) -> Any:
    """Turn the three accepted board shapes into one list of (index, cell) pairs."""
    if value is NO_BOARD:
        raise PydanticCustomError("missing", "Field required")
    if isinstance(value, str):
        if not 1 <= len(value) <= MAX_CELLS:
            raise refusal("board_text_length", maximum=MAX_CELLS, length=len(value))
        return list(enumerate(value))
    if isinstance(value, list):
        if _rows_of(value) is not None:
            widths = {len(row) if isinstance(row, list) else -1 for row in value}
            if len(value) > MAX_SIDE or len(widths) != 1 or not 1 <= min(widths) <= MAX_SIDE:
                raise refusal("board_rows", maximum=MAX_SIDE)
            return list(enumerate(cell for row in value for cell in row))
        if not 1 <= len(value) <= MAX_CELLS:
            raise refusal("board_list_length", cells=MAX_CELLS, sides=MAX_SIDE, length=len(value))
        return list(enumerate(value))
    raise refusal("board_type")


def _parse_player(value: Any) -> Mark | None:
    if value is None:
        return None
    if isinstance(value, str) and value in MARKS:
        return MARKS[value]
    raise refusal("player", value=describe(value))


#: A cell, validated with its index so that it may be given as its own index, and so that
#: every error is located at the cell.
Cells = tuple[Annotated[Mark | None, PlainValidator(_parse_cell)], ...]


def _parse_moves(value: Any) -> tuple[int, ...] | None:
    """A game as the cells played, in order; null is no list (the board is then required)."""
    if value is None:
        return None
    if not isinstance(value, list | tuple):
        raise refusal("moves_type")
    for index, cell in enumerate(value):
        # bool is a subclass of int, but true is no cell index.
        if not isinstance(cell, int) or isinstance(cell, bool):
            raise refusal("moves_cell", index=index, value=describe(cell))
    return tuple(value)


#: A cell index of a query's comma-separated `moves`, read as a number; anything else is
#: left as text for the validator to refuse.
QUERY_MOVE = re.compile(r"-?[0-9]+")


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


# In a JSON body a number is a number and a boolean a boolean (StrictInt, StrictBool: no "7",
# no 1.0, no true for 1); only the query string's text is read in lax mode (from_query).


class RulesRequest(BaseModel):
    """Which game of the family: all optional, inferred from the board where absent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # The ranges depend on each other (k up to the longer side), so the rules check them.
    rows: StrictInt | None = None
    cols: StrictInt | None = None
    k: StrictInt | None = None
    misere: StrictBool = False
    variant: Variant = Variant.FREESTYLE


#: A request without `rules`: every rule from the board's shape, or the defaults.
NO_RULES = RulesRequest()


def _board_unless_moves(data: Any) -> Any:
    """Return a request's fields with the board marked required where `moves` does not
    give the game (`NO_BOARD`), so that its absence is reported beside any other field's."""
    if isinstance(data, dict) and data.get("moves") is None and "board" not in data:
        return {**data, "board": NO_BOARD}
    return data


def _game_of(
    board: ShapedCells | None, moves: tuple[int, ...] | None, named: RulesRequest | None
) -> Game:
    """Return the board under the rules named, or implied by its shape; or the game the
    moves play (with a renju foul that ended it), on the board the rules name (3x3 when
    they name no size).

    Raise InvalidRules, saying why, for rules outside the family or a board that does not
    fit them; InvalidMoves for moves that no game plays, or moves with a board.
    """
    given = named or NO_RULES
    # Validation gives one of the two (`_board_unless_moves`); neither would be no move yet.
    if moves is not None or board is None:
        if board is not None:
            raise InvalidMoves(
                MovesProblem.BOARD_AND_MOVES, "give the game as board or as moves, not both"
            )
        rows = given.rows or given.cols or 3
        cols = given.cols or given.rows or 3
        rules = rules_for(
            rows * cols,
            rows=rows,
            cols=cols,
            k=given.k,
            misere=given.misere,
            variant=given.variant,
        )
        return game_after(moves or (), rules)
    rules = rules_for(
        len(board),
        board_rows=board.rows,
        rows=given.rows,
        cols=given.cols,
        k=given.k,
        misere=given.misere,
        variant=given.variant,
    )
    return Game(Board(tuple(board), rules))


class MoveRequest(BaseModel):
    """A board, in any accepted encoding, its rules, and optionally who is to move on it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Required unless `moves` gives the game (see _board_or_moves); a null board is refused.
    board: BoardCells = None  # type: ignore[assignment]
    rules: RulesRequest | None = None
    # 'x' and 'o' too, so not the Mark enum itself.
    player: Annotated[Mark | None, PlainValidator(_parse_player)] = None
    difficulty: Difficulty = Difficulty.PERFECT
    seed: Annotated[StrictInt, Field(ge=0, le=MAX_SEED)] | None = None
    #: How long a search may take, for a game beyond the tables; None: the default. The range
    #: is the operator's to set, so it is checked where the settings are known.
    budget_ms: StrictInt | None = None
    #: The game as the cells played, in order, X first: instead of `board`.
    moves: Annotated[tuple[int, ...] | None, PlainValidator(_parse_moves)] = None

    @model_validator(mode="before")
    @classmethod
    def _board_or_moves(cls, data: Any) -> Any:
        """Without `moves`, a request is validated as before they existed: its board is
        required, its absence reported in its place beside any other field's failure."""
        return _board_unless_moves(data)

    def to_board(self) -> Board:
        """Return the board of the game sent (`to_game`)."""
        return self.to_game().board

    def to_game(self) -> Game:
        """Return the game sent, as a board or as moves, under its rules (`_game_of`)."""
        return _game_of(self.board, self.moves, self.rules)

    @property
    def deterministic(self) -> bool:
        """Return whether the answer is fixed by the request: perfect play, or a seed."""
        return self.difficulty is Difficulty.PERFECT or self.seed is not None

    @classmethod
    def from_query(cls, query: Mapping[str, list[str]]) -> MoveRequest:
        """Validate a query string: the same fields, each given once, the rules' flat."""
        repeated = [name for name, values in query.items() if len(values) > 1]
        if repeated:
            raise ValidationError.from_exception_data(
                cls.__name__,
                [
                    {"type": refusal("repeated_parameter"), "loc": (name,), "input": query[name]}
                    for name in repeated
                ],
            )
        fields: dict[str, Any] = {name: values[0] for name, values in query.items()}
        if "moves" in fields:
            # Comma-separated cells, as a list; an empty parameter is no move yet.
            fields["moves"] = [
                int(part) if QUERY_MOVE.fullmatch(part) else part
                for part in fields["moves"].split(",")
                if fields["moves"]
            ]
        rules = {name: fields.pop(name) for name in RulesRequest.model_fields if name in fields}
        if rules:
            fields["rules"] = rules
        # A query string is all text: lax mode reads its whole numbers and its true or false
        # (also 1 or 0), which a JSON body must give as such.
        return cls.model_validate(fields, strict=False)


class RulesResponse(BaseModel):
    """The game an answer is for, with every rule spelled out."""

    model_config = ConfigDict(from_attributes=True)

    rows: int
    cols: int
    k: int
    misere: bool
    variant: Variant


class SearchResponse(BaseModel):
    """What the search did for an answer beyond the tables, and how sure it is."""

    method: Method
    proven: bool
    evaluation: float
    depth: int
    nodes: int
    time_ms: float
    budget_ms: int
    #: A proven win whose exact length is not known (score, outcome and plies_to_end are
    #: then null): it takes at most this many plies.
    wins_within_plies: int | None

    @classmethod
    def from_search(
        cls,
        found: SearchResult | SearchAnalysis,
        *,
        evaluation: float,
        budget_ms: int,
    ) -> SearchResponse:
        """Serialize what a search reports."""
        return cls(
            method=found.method,
            proven=found.proven,
            evaluation=evaluation,
            depth=found.depth,
            nodes=found.nodes,
            time_ms=round(found.seconds * 1000, 1),
            budget_ms=budget_ms,
            wins_within_plies=found.wins_within,
        )


class FoulResponse(BaseModel):
    """Under renju, black's foul that lost black the game."""

    model_config = ConfigDict(from_attributes=True)

    #: Which of the request's `moves` it was; null when the game came as a board.
    move: int | None
    #: Where black played it; null when a board shows an overline but not its last stone.
    cell: int | None
    foul: Foul


#: The fields only renju's answers carry: left out of every other answer.
RENJU_FIELDS = frozenset({"foul", "forbidden", "forbidden_after"})


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
    #: Only under renju: black's foul that ended the game as sent, and the cells black may
    #: not play in the position as sent and after the move (empty when white is to move).
    foul: FoulResponse | None = None
    forbidden: tuple[int, ...] = ()
    forbidden_after: tuple[int, ...] = ()

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
                found, evaluation=found.evaluation, budget_ms=budget_ms
            )
            if found
            else None,
            foul=FoulResponse.model_validate(advice.foul) if advice.foul else None,
            forbidden=tuple(sorted(advice.forbidden)),
            forbidden_after=tuple(sorted(advice.forbidden_after)),
        )

    def to_json(self, *, searched_game: bool) -> bytes:
        """Return the answer as JSON: `search` only for a game beyond the tables, the
        renju fields only under renju."""
        # Left out of every answer from a table, so that those stay as they always were.
        left_out = set() if searched_game else {"search"}
        if self.rules.variant is not Variant.RENJU:
            left_out |= RENJU_FIELDS
        return self.model_dump_json(exclude=left_out or None).encode()


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
    #: Only beyond the tables: a proven win whose exact length is not known (score,
    #: outcome and plies_to_end are then null) takes at most this many plies.
    wins_within_plies: int | None = None

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
    #: Only under renju: black's foul that ended the game, and the cells black may not play
    #: (empty when white is to move).
    foul: FoulResponse | None = None
    forbidden: tuple[int, ...] = ()

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
                evaluation=top.evaluation if top.evaluation is not None else 0.0,
                budget_ms=budget_ms,
            )
            if found and evaluation and top
            else None,
            foul=FoulResponse.model_validate(analysis.foul) if analysis.foul else None,
            forbidden=tuple(sorted(analysis.forbidden)),
        )

    def to_json(self, *, searched_game: bool) -> bytes:
        """Return the analysis as JSON: the search's fields only for a game beyond the
        tables, the renju fields only under renju."""
        left_out: dict[str, Any] = {}
        if not searched_game:
            left_out = {"search": True, "moves": {"__all__": {"evaluation", "wins_within_plies"}}}
        if self.rules.variant is not Variant.RENJU:
            left_out |= dict.fromkeys(RENJU_FIELDS & set(type(self).model_fields), True)
        return self.model_dump_json(exclude=left_out or None).encode()


class BatchRequest(BaseModel):
    """Up to MAX_BATCH move requests, each checked on its own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Any value in the list: each item is validated, and refused, in its own slot.
    requests: Annotated[list[Any], Field(strict=True, max_length=MAX_BATCH)]


class Swap2Request(BaseModel):
    """A game at a step of Swap2 (no stones, the opening's three, or five), as a board or as
    moves, its rules, and the search's budget."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # As a move request's (MoveRequest): required unless `moves` gives the game.
    board: BoardCells = None  # type: ignore[assignment]
    rules: RulesRequest | None = None
    budget_ms: StrictInt | None = None
    moves: Annotated[tuple[int, ...] | None, PlainValidator(_parse_moves)] = None

    @model_validator(mode="before")
    @classmethod
    def _board_or_moves(cls, data: Any) -> Any:
        """The board is required unless `moves` gives the game, as in a move request."""
        return _board_unless_moves(data)

    def to_board(self) -> Board:
        """Return the board of the game sent, as a board or as moves (`_game_of`)."""
        return _game_of(self.board, self.moves, self.rules).board


class Swap2Response(BaseModel):
    """A Swap2 decision: the stones it places, the side it takes, and the search behind it."""

    decision: Decision
    stones: tuple[int, ...]
    side: Mark | None
    board: tuple[str, ...]
    next_player: Mark
    #: The search's estimate for white, to move in the position decided on (the opening
    #: placed, or the position sent), from the mean of its last two depths.
    evaluation: float
    rules: RulesResponse
    search: SearchResponse

    @classmethod
    def from_choice(cls, choice: Swap2Choice, budget_ms: int) -> Swap2Response:
        """Serialize a Swap2 decision; `budget_ms` is what its searches were given in all."""
        found = choice.found
        return cls(
            decision=choice.decision,
            stones=choice.stones,
            side=choice.side,
            board=tuple("" if cell is None else cell.value for cell in choice.board.cells),
            next_player=choice.next_player,
            evaluation=found.two_depth_evaluation,
            rules=RulesResponse.model_validate(choice.board.rules),
            search=SearchResponse.from_search(
                found, evaluation=found.evaluation, budget_ms=budget_ms
            ),
        )

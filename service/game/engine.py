"""The engine: a position checked once, then answered from its game's solved table (every
game up to 4x4) or by a search within a budget (any bigger game)."""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from service.game.analysis import MoveEstimate, SearchAnalysis, analyse
from service.game.board import Board, GameStatus, Mark
from service.game.difficulty import Difficulty, choose_move
from service.game.legality import Illegality, IllegalPosition, check_board, side_to_move
from service.game.minimax import backed_up
from service.game.position import Position
from service.game.renju import Foul, FoulMove, forbidden_cells
from service.game.renju import foul as foul_at
from service.game.rules import CLASSIC, FAMILY, Rules
from service.game.search import SearchResult, search
from service.game.table import UNREACHABLE, Scores, place_of, solve

#: The score of winning on the spot on 3x3; each further ply to the end of the game costs one.
WIN_SCORE = CLASSIC.max_score

#: How long a search of a game beyond the tables takes unless the caller says otherwise.
DEFAULT_BUDGET_SECONDS = 0.25

#: A 7x7 position, five in a row, X to move: an open four, won at once on cell 14 (or 19).
SEARCH_CHECK = "...............XXXX...OOO................O......."


class Outcome(enum.Enum):
    """How the game ends for the side to move under perfect play."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"

    @classmethod
    def of(cls, score: int | None) -> Outcome | None:
        """Return the outcome a score stands for; None for an unknown score."""
        if score is None:
            return None
        if score > 0:
            return cls.WIN
        return cls.LOSS if score < 0 else cls.DRAW


def plies_to_end(score: int, empty_cells: int, max_score: int = WIN_SCORE) -> int:
    """Return how many plies a game lasts under perfect play, given its score."""
    # A win or loss in p plies scores max_score - p or p - max_score; a draw fills the board.
    return max_score - abs(score) if score else empty_cells


def plies_if_known(score: int | None, empty_cells: int, max_score: int) -> int | None:
    """Return how many plies a game lasts under perfect play, or None for an unknown score."""
    return None if score is None else plies_to_end(score, empty_cells, max_score)


@dataclass(frozen=True, slots=True)
class Scored:
    """Something with a depth-aware score for its mover: a position or a move.

    The score is None when it is not known: a game beyond the tables, where nothing proved it.
    """

    score: int | None

    @property
    def outcome(self) -> Outcome | None:
        """Return whether the mover wins, draws or loses under perfect play, if known."""
        return Outcome.of(self.score)


@dataclass(frozen=True, slots=True)
class Evaluation(Scored):
    """The value of a position in progress for the side to move, under perfect play."""

    #: Every best move (from a table), or the one the search chose (beyond the tables).
    best_moves: tuple[int, ...]
    #: How many plies the game lasts from here under perfect play, counting the next move.
    plies_to_end: int | None


@dataclass(frozen=True, slots=True)
class MoveValue(Scored):
    """One legal move and what it is worth to its mover under perfect play after it."""

    move: int
    #: The move's row, counted from 0 at the top, and column, from 0 at the left.
    row: int
    col: int
    plies_to_end: int | None


@dataclass(frozen=True, slots=True)
class RankedMove(MoveValue):
    """A move's value and its line: the moves of perfect play from it to the end (from a
    table), or the replies the search expects (beyond the tables)."""

    line: tuple[int, ...]
    #: Beyond the tables: the search's estimate from -1 to 1; None for a table's answer.
    evaluation: float | None = None
    #: Beyond the tables: a proven win whose exact length is not known takes at most this
    #: many plies (its score is then None).
    wins_within_plies: int | None = None


@dataclass(frozen=True, slots=True)
class MoveAdvice:
    """The move chosen on a board and everything needed to show the position after it."""

    player: Mark
    difficulty: Difficulty
    evaluation: Evaluation | None
    chosen: MoveValue | None
    board: Board
    status: GameStatus
    winning_lines: tuple[tuple[int, ...], ...]
    #: Whether the chosen move is among the best; None without a move, or when not known.
    optimal: bool | None
    #: Whether the game is beyond the tables, and the search made for this answer, if any.
    searched_game: bool = False
    search: SearchResult | None = None
    #: Under renju: black's foul that ended the game, as sent or by this move (when every
    #: empty cell was one); the cells black may not play in the position as sent, and
    #: after the move (empty when white moves).
    foul: FoulMove | None = None
    forbidden: frozenset[int] = frozenset()
    forbidden_after: frozenset[int] = frozenset()

    @property
    def move(self) -> int | None:
        """Return the chosen cell, or None when the game was already over."""
        return self.chosen.move if self.chosen else None

    @property
    def next_player(self) -> Mark | None:
        """Return who moves after this advice is followed, or None when the game is over."""
        if self.status.is_over:
            return None
        return self.player if self.chosen is None else self.player.opponent


@dataclass(frozen=True, slots=True)
class Analysis:
    """Every legal move of a position ranked, best first, with its line of perfect play."""

    player: Mark
    status: GameStatus
    evaluation: Evaluation | None
    moves: tuple[RankedMove, ...]
    rules: Rules = CLASSIC
    #: Beyond the tables: what the search did (None when the game was already over).
    searched_game: bool = False
    search: SearchAnalysis | None = None
    #: Under renju: black's foul that had ended the game, if any; the cells black may not
    #: play, when black is to move.
    foul: FoulMove | None = None
    forbidden: frozenset[int] = frozenset()


class Engine:
    """Answers any legal position: exactly from the table of a game it holds, else by search."""

    def __init__(self, tables: Mapping[Rules, Scores]) -> None:
        self._tables = MappingProxyType(dict(tables))

    @classmethod
    def build(cls, games: Iterable[Rules] = (CLASSIC,)) -> Engine:
        """Solve every position of each game, reachable with either player starting."""
        return cls({rules: solve(rules) for rules in games})

    def holds(self, rules: Rules) -> bool:
        """Return whether a game is answered from its table (its own, or the one of the
        game it plays the same as); any other is searched."""
        return rules.same_game in self._tables

    def answers_every_game(self) -> bool:
        """Return whether this engine answers every game of the family."""
        return all(rules in self._tables for rules in FAMILY)

    def score(self, board: Board, side_to_move: Mark) -> int | None:
        """Return a position's exact score for the side to move, or None if no game reaches it."""
        found = int(self._tables[board.rules.same_game][place_of(board, side_to_move)])
        return None if found == UNREACHABLE else found

    def position(
        self, board: Board, requested: Mark | None = None, *, foul: FoulMove | None = None
    ) -> Position:
        """Return the board as a position checked once: who moves, how the game stands, and
        whether a table answers it; raise IllegalPosition, saying why, if no game gets there.
        Under renju, a `foul` (black's last move, known from a game's order) has ended the
        game; else the position knows the cells black may not play, when black is to move.

        The table knows which positions play reaches, so a legal board of a game it holds
        costs one lookup; only the others are checked rule by rule. (A finished game may be
        reachable only with the other side to move, when the mark counts are equal: the
        rules accept it, and the nominal side moves, as it would have.)
        """
        try:
            player = side_to_move(board, requested)
        except IllegalPosition:
            check_board(board)  # an impossible board is the better reason to give
            raise
        in_table = self.holds(board.rules)
        if not in_table or self.score(board, player) is None:
            check_board(board)
            if in_table and not self._reached(board):
                # Only caro gets here: a board shows which lines are closed at both ends,
                # not whether they were closed before they were completed.
                raise IllegalPosition(
                    Illegality.PLAY_AFTER_WIN,
                    "no order of play reaches this board: a line that is closed at both "
                    "ends now was completed before that, so play went on after the game was "
                    "won",
                )
        if foul is not None:
            return Position(board, player, GameStatus.O_WON, in_table, foul)
        status = board.status()
        if status is GameStatus.O_WON and board.overlines() and not board.lines_of(Mark.O):
            return Position(board, player, status, in_table, _overline_foul(board))
        forbidden = (
            frozenset(forbidden_cells(board))
            if board.rules.variant.has_fouls and player is Mark.X and not status.is_over
            else frozenset()
        )
        return Position(board, player, status, in_table, forbidden=forbidden)

    def _reached(self, board: Board) -> bool:
        """Return whether play reaches a board of a game held in a table, with either side
        to move that may (both when the mark counts are equal)."""
        x_count, o_count = board.count(Mark.X), board.count(Mark.O)
        movers = [mark for mark, count in ((Mark.X, x_count), (Mark.O, o_count))
                  if count <= min(x_count, o_count)]  # fmt: skip
        return any(self.score(board, mover) is not None for mover in movers)

    def move_scores(self, board: Board, side_to_move: Mark) -> dict[int, int]:
        """Return what each legal move of a board in progress is worth to its mover."""
        table = self._tables[board.rules.same_game]
        # The opponent, who moves next, sees the new mark as the other side's: digit 2.
        opponent_place = place_of(board, side_to_move.opponent)
        return {
            move: backed_up(int(table[opponent_place + 2 * 3**move]), ply_cost=1)
            for move in board.empty_cells()
        }

    def evaluate(self, board: Board, side_to_move: Mark) -> Evaluation:
        """Return the exact evaluation of a legal board in progress."""
        scores = self.move_scores(board, side_to_move)
        best = max(scores.values())
        return Evaluation(
            score=best,
            best_moves=tuple(move for move, score in scores.items() if score == best),
            plies_to_end=plies_to_end(best, len(scores), board.rules.max_score),
        )

    def value(self, board: Board, side_to_move: Mark, move: int) -> MoveValue:
        """Return what one legal move is worth to its mover under perfect play."""
        # The table holds finished positions too, valued for the side that would move next.
        child = self.score(board.play(move, side_to_move), side_to_move.opponent)
        if child is None:
            raise AssertionError(f"a legal move from {board} leads to an unreachable position")
        score = backed_up(child, ply_cost=1)
        row, col = board.rules.coordinates(move)
        return MoveValue(
            score=score,
            move=move,
            row=row,
            col=col,
            plies_to_end=plies_to_end(score, len(board.empty_cells()), board.rules.max_score),
        )

    def rank(self, board: Board, side_to_move: Mark, move: int) -> RankedMove:
        """Return a legal move's value and the line of perfect play that follows it."""
        value = self.value(board, side_to_move, move)
        after = board.play(move, side_to_move)
        line = (move, *self._principal_variation(after, side_to_move.opponent))
        return RankedMove(
            score=value.score,
            move=value.move,
            row=value.row,
            col=value.col,
            plies_to_end=value.plies_to_end,
            line=line,
        )

    def _principal_variation(self, board: Board, side_to_move: Mark) -> tuple[int, ...]:
        line: list[int] = []
        while not board.status().is_over:
            move = self.evaluate(board, side_to_move).best_moves[0]
            line.append(move)
            board, side_to_move = board.play(move, side_to_move), side_to_move.opponent
        return tuple(line)

    def advise(
        self,
        position: Position,
        difficulty: Difficulty = Difficulty.PERFECT,
        rng: random.Random | None = None,
        *,
        budget_seconds: float = DEFAULT_BUDGET_SECONDS,
        threads: int = 1,
    ) -> MoveAdvice:
        """Return the move to play at `difficulty` in a position.

        Every level but "perfect" draws from `rng`, which a caller seeds for a reproducible
        choice; without one, a freshly seeded generator is used, never the global one. A game
        beyond the tables is searched for up to `budget_seconds`, by `threads` threads at
        once, when the level needs it.
        """
        board, player, status = position.board, position.side_to_move, position.status
        searched_game = not position.in_table
        if status.is_over:
            lines = board.completed_lines()
            return MoveAdvice(
                player,
                difficulty,
                None,
                None,
                board,
                status,
                lines,
                None,
                searched_game,
                foul=position.foul,
            )
        if rng is None and difficulty is not Difficulty.PERFECT:
            rng = random.Random()  # noqa: S311 -- a game move, not a secret
        if searched_game:
            advice = self._advise_by_search(position, difficulty, rng, budget_seconds, threads)
            if not board.rules.variant.has_fouls:
                return advice
            after = advice.board
            return replace(
                advice,
                forbidden=position.forbidden,
                forbidden_after=frozenset(forbidden_cells(after))
                if advice.next_player is Mark.X
                else frozenset(),
            )
        evaluation = self.evaluate(board, player)
        move = choose_move(board, player, lambda: evaluation.best_moves[0], difficulty, rng)
        after = board.play(move, player)
        return MoveAdvice(
            player,
            difficulty,
            evaluation,
            self.value(board, player, move),
            after,
            after.status(),
            after.completed_lines(),
            move in evaluation.best_moves,
        )

    def _advise_by_search(
        self,
        position: Position,
        difficulty: Difficulty,
        rng: random.Random | None,
        budget_seconds: float,
        threads: int,
    ) -> MoveAdvice:
        board, player, barred = position.board, position.side_to_move, position.forbidden
        searches: list[SearchResult] = []

        def searched_move() -> int:
            searches.append(search(board, player, budget_seconds, barred=barred, threads=threads))
            return searches[0].move

        move = choose_move(board, player, searched_move, difficulty, rng, barred=barred)
        found = searches[0] if searches else None
        after = board.play(move, player)
        max_score, empty = board.rules.max_score, len(board.empty_cells())
        # Renju: when every empty cell is black's foul, black must play one, and loses.
        fouled = _forced_foul(board, move) if move in position.forbidden else None
        after_status = GameStatus.O_WON if fouled else after.status()
        score = (
            found.score
            if found and found.move == move and not fouled
            else _score_at_once(after, after_status, player)
        )
        row, col = board.rules.coordinates(move)
        chosen = MoveValue(score, move, row, col, plies_if_known(score, empty, max_score))
        evaluation = Evaluation(
            found.score if found else None,
            (found.move,) if found else (),
            plies_if_known(found.score if found else None, empty, max_score),
        )
        return MoveAdvice(
            player,
            difficulty,
            evaluation,
            chosen,
            after,
            after_status,
            after.completed_lines(),
            _known_optimal(chosen, found, max_score),
            searched_game=True,
            search=found,
            foul=fouled,
        )

    def analyse(
        self, position: Position, *, budget_seconds: float = DEFAULT_BUDGET_SECONDS
    ) -> Analysis:
        """Rank every legal move of a position, best first and then by cell.

        A game beyond the tables ranks the moves its search looked at, within `budget_seconds`.
        """
        board, player, status = position.board, position.side_to_move, position.status
        searched_game = not position.in_table
        if status.is_over:
            return Analysis(
                player, status, None, (), board.rules, searched_game, foul=position.foul
            )
        if searched_game:
            return self._analyse_by_search(position, budget_seconds)
        ranked = sorted(
            (self.rank(board, player, move) for move in board.empty_cells()),
            key=lambda ranked_move: (-(ranked_move.score or 0), ranked_move.move),
        )
        return Analysis(player, status, self.evaluate(board, player), tuple(ranked), board.rules)

    def _analyse_by_search(self, position: Position, budget_seconds: float) -> Analysis:
        board = position.board
        found = analyse(board, position.side_to_move, budget_seconds, barred=position.forbidden)
        max_score, empty = board.rules.max_score, len(board.empty_cells())
        ranked = tuple(_ranked_estimate(board, estimate) for estimate in found.moves)
        known = found.score
        evaluation = Evaluation(
            known, (found.moves[0].move,), plies_if_known(known, empty, max_score)
        )
        return Analysis(
            position.side_to_move,
            position.status,
            evaluation,
            ranked,
            board.rules,
            searched_game=True,
            search=found,
            forbidden=position.forbidden,
        )

    def answers_known_position(self) -> bool:
        """Return whether the table, and the search, find the winning move of known positions."""
        try:
            advice = self.advise(self.position(Board.from_text("O.XX.X.OO")))
            # And the search: on 7x7, five in a row, X's open four wins at once on cell 14.
            searched = self.advise(self.position(Board.from_text(SEARCH_CHECK, Rules(7, 7, 5))))
        except Exception:
            return False
        return (
            advice.move == 4
            and advice.chosen is not None
            and advice.chosen.score == 9
            and searched.move == 14
            and searched.search is not None
            and searched.search.proven
        )


def _forced_foul(board: Board, move: int) -> FoulMove:
    """Return black's foul on a forbidden cell it had to play, every other cell being one."""
    kind = foul_at(board, move)
    if kind is None:
        raise AssertionError(f"cell {move} was forbidden, but is no foul")
    return FoulMove(move, kind)


def _overline_foul(board: Board) -> FoulMove:
    """Return the foul a board's black overline shows: at the one cell all its lines share
    (the last move), or at no cell named when more than one could have been last."""
    shared = set.intersection(*(set(line) for line in board.overlines()))
    return FoulMove(shared.pop() if len(shared) == 1 else None, Foul.OVERLINE)


def _score_at_once(after: Board, status: GameStatus, mover: Mark) -> int | None:
    """Return the mover's score if the game ended with the move just played, else None."""
    if not status.is_over:
        return None
    if status.winner is None:
        return 0
    win_now = after.rules.max_score - 1
    return win_now if status.winner is mover else -win_now


def _known_optimal(chosen: MoveValue, found: SearchResult | None, max_score: int) -> bool | None:
    """Return whether a searched game's chosen move is among the best, when it is known."""
    if chosen.score == max_score - 1:
        return True  # a win at once: nothing does better
    if found is None or not found.optimal:
        return None
    if chosen.move == found.move:
        return True
    if chosen.score is not None and found.score is not None:
        return chosen.score >= found.score
    return None


def _ranked_estimate(board: Board, estimate: MoveEstimate) -> RankedMove:
    row, col = board.rules.coordinates(estimate.move)
    empty = len(board.empty_cells())
    return RankedMove(
        score=estimate.score,
        move=estimate.move,
        row=row,
        col=col,
        plies_to_end=plies_if_known(estimate.score, empty, board.rules.max_score),
        line=estimate.line,
        evaluation=estimate.evaluation,
        wins_within_plies=estimate.wins_within,
    )

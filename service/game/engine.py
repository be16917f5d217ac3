"""The tic-tac-toe engine: every legal position solved once, then answered by lookup."""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from service.game.board import Board, GameStatus, Mark, coordinates
from service.game.difficulty import Difficulty, choose_move
from service.game.legality import IllegalPosition, check_board, side_to_move
from service.game.minimax import Verdict, backed_up, solve

#: The score of winning on the spot; each further ply to the end of the game costs one.
WIN_SCORE = 10

#: A board and the side to move on it.
Position = tuple[Board, Mark]


class Outcome(enum.Enum):
    """How the game ends for the side to move under perfect play."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"

    @classmethod
    def of(cls, score: int) -> Outcome:
        """Return the outcome a score stands for."""
        if score > 0:
            return cls.WIN
        return cls.LOSS if score < 0 else cls.DRAW


def plies_to_end(score: int, empty_cells: int) -> int:
    """Return how many plies a game lasts under perfect play, given its score."""
    # A win or loss in p plies scores WIN_SCORE - p or p - WIN_SCORE; a draw fills the board.
    return WIN_SCORE - abs(score) if score else empty_cells


class TicTacToe:
    """Tic-tac-toe as the minimax search sees it; moves are cell indices."""

    def legal_moves(self, state: Position) -> Sequence[int]:
        """Return the empty cells, ascending."""
        board, _ = state
        return board.empty_cells()

    def play(self, state: Position, move: int) -> Position:
        """Return the position after the side to move takes cell `move`."""
        board, mover = state
        return board.play(move, mover), mover.opponent

    def terminal_value(self, state: Position) -> int | None:
        """Return 0 for a full board, -WIN_SCORE when the side to move has lost, else None."""
        board, _ = state
        status = board.status()
        if status is GameStatus.IN_PROGRESS:
            return None
        # Whoever completed a line made the last move, so the side to move is the loser.
        return 0 if status is GameStatus.DRAW else -WIN_SCORE


@dataclass(frozen=True, slots=True)
class Scored:
    """Something with a depth-aware score for its mover: a position or a move."""

    score: int

    @property
    def outcome(self) -> Outcome:
        """Return whether the mover wins, draws or loses under perfect play."""
        return Outcome.of(self.score)


@dataclass(frozen=True, slots=True)
class Evaluation(Scored):
    """The value of a position in progress for the side to move, under perfect play."""

    best_moves: tuple[int, ...]
    empty_cells: int

    @property
    def plies_to_end(self) -> int:
        """Return how many plies the game lasts from here, counting the next move."""
        return plies_to_end(self.score, self.empty_cells)


@dataclass(frozen=True, slots=True)
class MoveValue(Scored):
    """One legal move and what it is worth to its mover under perfect play after it."""

    move: int
    plies_to_end: int

    @property
    def coordinates(self) -> tuple[int, int]:
        """Return the (row, column) of the move."""
        return coordinates(self.move)

    @property
    def row(self) -> int:
        """Return the row of the move, counted from 0 at the top."""
        return self.coordinates[0]

    @property
    def col(self) -> int:
        """Return the column of the move, counted from 0 at the left."""
        return self.coordinates[1]


@dataclass(frozen=True, slots=True)
class RankedMove(MoveValue):
    """A move's value and its line: the moves of perfect play from it to the end."""

    line: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MoveAdvice:
    """The move chosen on a board and everything needed to show the position after it."""

    player: Mark
    difficulty: Difficulty
    evaluation: Evaluation | None
    chosen: MoveValue | None
    board: Board
    status: GameStatus
    winning_lines: tuple[tuple[int, int, int], ...]

    @property
    def move(self) -> int | None:
        """Return the chosen cell, or None when the game was already over."""
        return self.chosen.move if self.chosen else None

    @property
    def optimal(self) -> bool | None:
        """Return whether the chosen move is among the best, or None without a move."""
        if self.chosen is None or self.evaluation is None:
            return None
        return self.chosen.move in self.evaluation.best_moves

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


class Engine:
    """Answers any legal position from a table of every position, solved when built."""

    def __init__(self, table: Mapping[Position, Verdict[int]]) -> None:
        self._table = table

    @classmethod
    def build(cls) -> Engine:
        """Solve every position reachable with either player starting."""
        solved: dict[Position, Verdict[int]] = {}
        for first_player in Mark:
            solve(TicTacToe(), (Board(), first_player), ply_cost=1, memo=solved)
        return cls(MappingProxyType(solved))

    def __len__(self) -> int:
        return len(self._table)

    def legal_side_to_move(self, board: Board, requested: Mark | None) -> Mark:
        """Return who moves on the board; raise IllegalPosition, saying why, if no game gets there.

        A position in the table was reached by play, so it is legal without checking the
        rules; only the others (finished games and impossible boards) are checked in full.
        """
        try:
            player = side_to_move(board, requested)
        except IllegalPosition:
            check_board(board)  # an impossible board is the better reason to give
            raise
        if (board, player) not in self._table:
            check_board(board)
        return player

    def evaluate(self, board: Board, side_to_move: Mark) -> Evaluation:
        """Return the exact evaluation of a legal board in progress."""
        verdict = self._table[board, side_to_move]
        return Evaluation(verdict.value, verdict.best_moves, len(board.empty_cells()))

    def value(self, board: Board, side_to_move: Mark, move: int) -> MoveValue:
        """Return what one legal move is worth to its mover under perfect play."""
        after = board.play(move, side_to_move)
        # The table holds finished positions too, valued for the side that would move next.
        score = backed_up(self._table[after, side_to_move.opponent].value, ply_cost=1)
        return MoveValue(
            score=score, move=move, plies_to_end=plies_to_end(score, len(board.empty_cells()))
        )

    def rank(self, board: Board, side_to_move: Mark, move: int) -> RankedMove:
        """Return a legal move's value and the line of perfect play that follows it."""
        value = self.value(board, side_to_move, move)
        after = board.play(move, side_to_move)
        line = (move, *self._principal_variation(after, side_to_move.opponent))
        return RankedMove(
            score=value.score, move=value.move, plies_to_end=value.plies_to_end, line=line
        )

    def _principal_variation(self, board: Board, side_to_move: Mark) -> tuple[int, ...]:
        line: list[int] = []
        while not board.status().is_over:
            move = self._table[board, side_to_move].best_moves[0]
            line.append(move)
            board, side_to_move = board.play(move, side_to_move), side_to_move.opponent
        return tuple(line)

    def advise(
        self,
        board: Board,
        requested_player: Mark | None = None,
        difficulty: Difficulty = Difficulty.PERFECT,
        rng: random.Random | None = None,
    ) -> MoveAdvice:
        """Return the move to play at `difficulty`; raise IllegalPosition if no game reaches it.

        Every level but "perfect" draws from `rng`, which a caller seeds for a reproducible
        choice; without one, a freshly seeded generator is used, never the global one.
        """
        player = self.legal_side_to_move(board, requested_player)
        status = board.status()
        if status.is_over:
            return MoveAdvice(
                player, difficulty, None, None, board, status, board.completed_lines()
            )
        evaluation = self.evaluate(board, player)
        if rng is None and difficulty is not Difficulty.PERFECT:
            rng = random.Random()  # noqa: S311 -- a game move, not a secret
        move = choose_move(board, player, evaluation.best_moves[0], difficulty, rng)
        after = board.play(move, player)
        return MoveAdvice(
            player,
            difficulty,
            evaluation,
            self.value(board, player, move),
            after,
            after.status(),
            after.completed_lines(),
        )

    def analyse(self, board: Board, requested_player: Mark | None = None) -> Analysis:
        """Rank every legal move, best first and then by cell; raise IllegalPosition if illegal."""
        player = self.legal_side_to_move(board, requested_player)
        status = board.status()
        if status.is_over:
            return Analysis(player, status, None, ())
        ranked = sorted(
            (self.rank(board, player, move) for move in board.empty_cells()),
            key=lambda ranked_move: (-ranked_move.score, ranked_move.move),
        )
        return Analysis(player, status, self.evaluate(board, player), tuple(ranked))

    def answers_known_position(self) -> bool:
        """Return whether the table finds the one winning move on a known position."""
        try:
            advice = self.advise(Board.from_text("O.XX.X.OO"))
        except Exception:
            return False
        return advice.move == 4 and advice.chosen is not None and advice.chosen.score == 9

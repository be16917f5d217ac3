"""The tic-tac-toe engine: every legal position solved once, then answered by lookup."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from service.board import Board, GameStatus, Mark, coordinates
from service.legality import checked_side_to_move
from service.minimax import Verdict, solve

#: The score of winning on the spot; each further ply to the end of the game costs one.
WIN_SCORE = 10

#: A board and the side to move on it.
Position = tuple[Board, Mark]


class Outcome(enum.Enum):
    """How the game ends for the side to move under perfect play."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


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
class Evaluation:
    """The value of a position in progress for the side to move, under perfect play."""

    score: int
    best_moves: tuple[int, ...]
    empty_cells: int

    @property
    def outcome(self) -> Outcome:
        """Return whether the side to move wins, draws or loses."""
        if self.score > 0:
            return Outcome.WIN
        return Outcome.LOSS if self.score < 0 else Outcome.DRAW

    @property
    def plies_to_end(self) -> int:
        """Return how many plies the game lasts from here, counting the next move."""
        # A win or loss in p plies scores WIN_SCORE - p or p - WIN_SCORE; a draw fills the board.
        return WIN_SCORE - abs(self.score) if self.score else self.empty_cells


@dataclass(frozen=True, slots=True)
class MoveAdvice:
    """The best move on a board and everything needed to show the position after it."""

    player: Mark
    move: int | None
    evaluation: Evaluation | None
    board: Board
    status: GameStatus
    winning_lines: tuple[tuple[int, int, int], ...]

    @property
    def coordinates(self) -> tuple[int, int] | None:
        """Return the (row, column) of the move, or None when there is none."""
        return None if self.move is None else coordinates(self.move)

    @property
    def next_player(self) -> Mark | None:
        """Return who moves after this advice is followed, or None when the game is over."""
        if self.status.is_over:
            return None
        return self.player if self.move is None else self.player.opponent


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

    def evaluate(self, board: Board, side_to_move: Mark) -> Evaluation:
        """Return the exact evaluation of a legal board in progress."""
        verdict = self._table[board, side_to_move]
        return Evaluation(verdict.value, verdict.best_moves, len(board.empty_cells()))

    def advise(self, board: Board, requested_player: Mark | None = None) -> MoveAdvice:
        """Return the best move on a board; raise IllegalPosition if no game can reach it."""
        player = checked_side_to_move(board, requested_player)
        if board.status().is_over:
            return MoveAdvice(player, None, None, board, board.status(), board.completed_lines())
        evaluation = self.evaluate(board, player)
        # The lowest of the best cells, so the same board always gets the same answer.
        move = evaluation.best_moves[0]
        after = board.play(move, player)
        return MoveAdvice(player, move, evaluation, after, after.status(), after.completed_lines())

    def answers_known_position(self) -> bool:
        """Return whether the table finds the one winning move on a known position."""
        board = Board.from_text("O.XX.X.OO")
        advice = self.advise(board)
        return advice.move == 4 and advice.evaluation is not None and advice.evaluation.score == 9

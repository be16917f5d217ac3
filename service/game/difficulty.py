"""Difficulty levels: how a player that is allowed to blunder picks its move."""

from __future__ import annotations

import enum
import random

from service.game.board import Board, Mark

#: The share of moves the "hard" level plays as "medium" does instead of perfectly.
HARD_RANDOM_SHARE = 0.2


class Difficulty(enum.Enum):
    """How well the engine plays: only "perfect" is deterministic."""

    PERFECT = "perfect"
    HARD = "hard"
    MEDIUM = "medium"
    EASY = "easy"


def choose_move(
    board: Board,
    player: Mark,
    best_move: int,
    difficulty: Difficulty,
    rng: random.Random | None,
) -> int:
    """Pick the move a player of the given difficulty makes, given the perfect `best_move`.

    perfect: the best move. medium: a random winning move if there is one, else a random
    move that stops the opponent winning next, else a random legal move. hard: as medium
    with probability HARD_RANDOM_SHARE, else perfect; so it never misses a win, nor a block
    where one threat can be blocked. easy: a random legal move.
    """
    legal = board.empty_cells()
    if difficulty is Difficulty.PERFECT or rng is None:
        return best_move
    if difficulty is Difficulty.HARD and rng.random() >= HARD_RANDOM_SHARE:
        return best_move
    if difficulty in (Difficulty.HARD, Difficulty.MEDIUM):
        wins = [move for move in legal if _completes_a_line(board, move, player)]
        blocks = [move for move in legal if _completes_a_line(board, move, player.opponent)]
        return rng.choice(wins or blocks or list(legal))
    return rng.choice(legal)


def _completes_a_line(board: Board, move: int, mark: Mark) -> bool:
    return bool(board.play(move, mark).lines_of(mark))

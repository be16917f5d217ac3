"""Difficulty levels: how a player that is allowed to err picks its move.

What each level promises is said in terms of the game's own ends, so it holds under normal
and misère rules alike. A move *wins at once* when the game ends with it and its mover has
won (normal rules: it completes a line); it *loses at once* when the game ends with it and
its mover has lost (misère: it completes the mover's own line); it *lets the opponent win
next* when the opponent then has a move that wins at once.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable

from service.game.board import Board, Mark

#: The share of moves the "hard" level plays as "medium" does instead of perfectly.
HARD_RANDOM_SHARE = 0.2

#: On boards bigger than every table (16 cells), medium's free choice stays near the marks:
#: a random cell across 15x15 is no move a person would make.
NEAR_PLAY_ABOVE_CELLS = 16
#: How far, in king moves, "near" reaches.
NEAR = 2


class Difficulty(enum.Enum):
    """How well the engine plays: only "perfect" is deterministic."""

    PERFECT = "perfect"
    HARD = "hard"
    MEDIUM = "medium"
    EASY = "easy"

    @property
    def plays_best(self) -> bool:
        """Return whether the level plays the best move, always or at times (`choose_move`):
        beyond the tables, finding it takes a search."""
        return self in (Difficulty.PERFECT, Difficulty.HARD)


def choose_move(
    board: Board,
    player: Mark,
    best_move: Callable[[], int],
    difficulty: Difficulty,
    rng: random.Random | None,
    *,
    barred: frozenset[int] = frozenset(),
) -> int:
    """Pick the move a player of the given difficulty makes; `best_move` finds the best one,
    and is called only when the level plays it (beyond the tables it costs a search). No
    level plays a `barred` cell (renju's fouls: playing one loses at once) while another
    move is legal.

    perfect: the best move. medium: a careful move (`careful_moves`), drawn at random.
    hard: as medium with probability HARD_RANDOM_SHARE, else perfect (perfect play keeps
    medium's promises too). easy: a random move that does not lose at once, when there is one.
    """
    if difficulty is Difficulty.PERFECT or rng is None:
        return best_move()
    if difficulty is Difficulty.HARD and rng.random() >= HARD_RANDOM_SHARE:
        return best_move()
    if difficulty in (Difficulty.HARD, Difficulty.MEDIUM):
        return rng.choice(careful_moves(board, player, barred))
    return rng.choice(moves_not_losing_at_once(board, player, barred))


def careful_moves(
    board: Board, player: Mark, barred: frozenset[int] = frozenset()
) -> tuple[int, ...]:
    """Return the moves medium chooses from, ascending.

    The moves that win at once, if there are any. Otherwise, of the moves that do not lose
    at once (all moves, if every one does), those that leave the opponent the fewest moves
    that win at once: none when that can be avoided; on a board of more than 16 cells,
    those within two cells of a mark when there are any. Under normal rules that is "take a win,
    else block", and where two threats cannot both be blocked, block one (in caro, closing a
    line's second end blocks too).
    """
    if board.rules.misere:
        # Completing a line loses, so nothing wins at once, for either side: avoid the losses.
        return moves_not_losing_at_once(board, player)
    wins = board.completing(player)
    if wins:
        return wins  # a five: never a foul
    threats = tuple(cell for cell in board.completing(player.opponent) if cell not in barred)
    if not threats:
        # No threat, or (renju) its one stop is black's foul, and then every move loses.
        return _near_the_marks(board, moves_not_losing_at_once(board, player, barred))
    if not board.rules.variant.closed_ends_block:
        # A mark of one side never completes the other's line, nor stops one it does not
        # take, so a move leaves every threat but the one it takes: take one.
        return threats
    # Caro: a mark beyond a line's end may close it, and stop threats it does not take.
    left = {
        move: len(board.play(move, player).completing(player.opponent))
        for move in board.empty_cells()
    }
    fewest = min(left.values())
    return tuple(move for move, count in left.items() if count == fewest)


def _near_the_marks(board: Board, moves: tuple[int, ...]) -> tuple[int, ...]:
    """Return the moves within NEAR of a mark on a board beyond the tables' size, if any."""
    rules = board.rules
    if rules.cell_count <= NEAR_PLAY_ABOVE_CELLS:
        return moves
    marked = [divmod(cell, rules.cols) for cell, mark in enumerate(board.cells) if mark]
    near = tuple(
        move
        for move in moves
        if any(
            abs(move // rules.cols - row) <= NEAR and abs(move % rules.cols - col) <= NEAR
            for row, col in marked
        )
    )
    return near or moves


def moves_not_losing_at_once(
    board: Board, player: Mark, barred: frozenset[int] = frozenset()
) -> tuple[int, ...]:
    """Return the moves after which the mover has not lost at once, or every move if none:
    under renju, none of black's fouls (`barred`)."""
    legal = board.empty_cells()
    if not board.rules.misere:
        # Under normal rules a move ends the game in a win or a draw, or not at all; but
        # under renju black's foul loses.
        return tuple(move for move in legal if move not in barred) or legal
    losing = set(board.completing(player))
    return tuple(move for move in legal if move not in losing) or legal

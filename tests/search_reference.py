"""An independent brute-force checker of tactics on boards of any size, for the search's tests.

Boards are strings of X, O and '.', as in family_reference; a move's line is found by
walking out from the cell just taken in each of four directions. Nothing here is shared
with the service's search.
"""

from __future__ import annotations

import random

from tests.family_reference import EMPTY, STEPS, Game, other


def completes(game: Game, text: str, cell: int, mark: str) -> bool:
    """Return whether `mark` on the empty `cell` makes k or more in a row through it
    (exactly k in the standard variant; in caro, exactly k not closed at both ends by the
    opponent's marks)."""
    row, col = divmod(cell, game.cols)
    for row_step, col_step in STEPS:
        run, closed = 1, 0
        for direction in (1, -1):
            r, c = row + direction * row_step, col + direction * col_step
            while 0 <= r < game.rows and 0 <= c < game.cols and text[r * game.cols + c] == mark:
                run += 1
                r, c = r + direction * row_step, c + direction * col_step
            if 0 <= r < game.rows and 0 <= c < game.cols and text[r * game.cols + c] == other(mark):
                closed += 1
        if run == game.k and not (game.caro and closed == 2):
            return True
        if run > game.k and not (game.exact or game.caro):
            return True
    return False


def placed(text: str, cell: int, mark: str) -> str:
    """Return the board with `mark` on `cell`."""
    return text[:cell] + mark + text[cell + 1 :]


def empties(text: str) -> list[int]:
    """Return the empty cells, ascending."""
    return [cell for cell, mark in enumerate(text) if mark == EMPTY]


def wins_at_once(game: Game, text: str, mover: str) -> list[int]:
    """Return the cells where the mover completes a line (under normal rules: wins)."""
    return [cell for cell in empties(text) if completes(game, text, cell, mover)]


def wins_in_three(game: Game, text: str, mover: str, move: int) -> bool:
    """Return whether `move` wins by force in three plies under normal rules: whatever the
    opponent answers (and it must be able to answer without winning), a win follows."""
    if completes(game, text, move, mover):
        return False  # a win in one, not three
    return move_wins_within(game, text, mover, move, 3)


def move_wins_within(game: Game, text: str, mover: str, move: int, plies: int) -> bool:
    """Return whether `move` wins by force under normal rules within `plies` plies, counting
    itself: against every reply, each of which must not win first nor fill the board."""
    if completes(game, text, move, mover):
        return True
    if plies < 3:
        return False
    after = placed(text, move, mover)
    replies = empties(after)
    if not replies:
        return False
    for reply in replies:
        if completes(game, after, reply, other(mover)):
            return False
        answered = placed(after, reply, other(mover))
        cells = empties(answered)
        # A win at once first: the same answer, without searching deep past a cell that ends it.
        if any(completes(game, answered, cell, mover) for cell in cells):
            continue
        if not any(move_wins_within(game, answered, mover, cell, plies - 2) for cell in cells):
            return False
    return True


def clustered_position(game: Game, rng: random.Random, moves: int) -> tuple[str, str] | None:
    """Play up to `moves` random moves, mostly next to earlier ones, X first; return the
    position and the side to move, or None if the game ended on the way."""
    text, mover = game.empty, "X"
    for _ in range(moves):
        free = empties(text)
        near = [cell for cell in free if _next_to_a_mark(game, text, cell)]
        cell = rng.choice(near if near and rng.random() < 0.9 else free)
        if completes(game, text, cell, mover):
            return None
        text, mover = placed(text, cell, mover), other(mover)
        if EMPTY not in text:
            return None
    return text, mover


def _next_to_a_mark(game: Game, text: str, cell: int) -> bool:
    row, col = divmod(cell, game.cols)
    return any(
        0 <= row + dr < game.rows
        and 0 <= col + dc < game.cols
        and text[(row + dr) * game.cols + col + dc] != EMPTY
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
    )

"""Independent references the tests hold the service to.

Written differently from the service on purpose: boards are strings, the lines come from
coordinates, positions are found by walking games, and perfect play compares (result, plies)
pairs instead of backing up depth-discounted scores.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from functools import cache

EMPTY = "."
SIZE = 3
LINES = (
    [[(row, col) for col in range(SIZE)] for row in range(SIZE)]
    + [[(row, col) for row in range(SIZE)] for col in range(SIZE)]
    + [[(i, i) for i in range(SIZE)], [(i, SIZE - 1 - i) for i in range(SIZE)]]
)
FLAT_LINES = [[SIZE * row + col for row, col in line] for line in LINES]


def other(mark: str) -> str:
    """Return the opponent's mark."""
    return "O" if mark == "X" else "X"


def has_line(text: str, mark: str) -> bool:
    """Return whether `mark` holds a whole line."""
    return any(all(text[i] == mark for i in line) for line in FLAT_LINES)


def finished(text: str) -> bool:
    """Return whether someone has a line or the board is full."""
    return has_line(text, "X") or has_line(text, "O") or EMPTY not in text


def all_boards() -> Iterator[str]:
    """Yield every way to fill nine cells with X, O or nothing: 3^9 boards."""
    for cells in itertools.product("XO" + EMPTY, repeat=SIZE * SIZE):
        yield "".join(cells)


def reachable_positions(first_players: str = "XO") -> set[tuple[str, str]]:
    """Return every (board, side to move) that play from the empty board can reach."""
    seen: set[tuple[str, str]] = set()
    stack = [(EMPTY * 9, first) for first in first_players]
    while stack:
        position = stack.pop()
        if position in seen:
            continue
        seen.add(position)
        text, mover = position
        if not finished(text):
            for i, cell in enumerate(text):
                if cell == EMPTY:
                    stack.append((text[:i] + mover + text[i + 1 :], other(mover)))
    return seen


def complete_games(text: str = EMPTY * 9, mover: str = "X") -> int:
    """Count the move sequences from this position to the end of the game."""
    if finished(text):
        return 1
    return sum(
        complete_games(text[:i] + mover + text[i + 1 :], other(mover))
        for i, cell in enumerate(text)
        if cell == EMPTY
    )


@cache
def move_results(text: str, mover: str) -> dict[int, tuple[int, int]]:
    """Map each move to (result for the mover: 1, 0 or -1, plies to the end) under best play."""
    results = {}
    for i, cell in enumerate(text):
        if cell != EMPTY:
            continue
        after = text[:i] + mover + text[i + 1 :]
        if has_line(after, mover):
            results[i] = (1, 1)
        elif EMPTY not in after:
            results[i] = (0, 1)
        else:
            reply_result, reply_plies = best_result(after, other(mover))
            results[i] = (-reply_result, reply_plies + 1)
    return results


def preference(result_and_plies: tuple[int, int]) -> tuple[int, int]:
    """Order results: a win beats a draw beats a loss; quick wins and slow losses first."""
    result, plies = result_and_plies
    return (result, -plies if result > 0 else plies if result < 0 else 0)


def best_result(text: str, mover: str) -> tuple[int, int]:
    """Return (result, plies) of the mover's best move."""
    return max(move_results(text, mover).values(), key=preference)


def perfect_play(text: str, mover: str) -> tuple[int, list[int]]:
    """Return the textbook depth-aware score and every best move, ascending."""
    results = move_results(text, mover)
    best = max(results.values(), key=preference)
    result, plies = best
    score = {1: 10 - plies, 0: 0, -1: plies - 10}[result]
    return score, sorted(i for i, value in results.items() if preference(value) == preference(best))


def plain_minimax_choice(text: str, mover: str) -> int:
    """Return the lowest best move of minimax that ignores how long a game takes."""
    results = move_results(text, mover)
    best = max(result for result, _ in results.values())
    return min(i for i, (result, _) in results.items() if result == best)

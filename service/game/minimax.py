"""Exact minimax search (in negamax form) over any small two-player zero-sum game."""

from __future__ import annotations

from collections.abc import Hashable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

State = TypeVar("State", bound=Hashable)
Move = TypeVar("Move")


class Game(Protocol[State, Move]):
    """The little a search needs to know about a game."""

    def legal_moves(self, state: State) -> Sequence[Move]:
        """Return the moves available in a non-terminal state, in tie-break order."""
        ...

    def play(self, state: State, move: Move) -> State:
        """Return the state after `move`."""
        ...

    def terminal_value(self, state: State) -> int | None:
        """Return the value of a finished game for the side to move, or None if play goes on."""
        ...


@dataclass(frozen=True, slots=True)
class Verdict(Generic[Move]):
    """The value of a state for the side to move, and every move that achieves it."""

    value: int
    best_moves: tuple[Move, ...]

    @property
    def best_move(self) -> Move | None:
        """Return the first best move in the game's order, or None in a finished game."""
        return self.best_moves[0] if self.best_moves else None


def solve(
    game: Game[State, Move],
    state: State,
    *,
    ply_cost: int = 0,
    memo: MutableMapping[State, Verdict[Move]] | None = None,
) -> Verdict[Move]:
    """Return the exact minimax verdict of `state` for the side to move.

    Each ply a value is backed up, it moves `ply_cost` closer to zero, so with a positive
    cost a quicker win scores higher and a slower loss scores less badly. `memo`, if given,
    keeps the verdict of every state visited, so it can serve as a table afterwards.
    """
    known = memo if memo is not None else {}

    def verdict_of(current: State) -> Verdict[Move]:
        if current in known:
            return known[current]
        terminal = game.terminal_value(current)
        if terminal is not None:
            verdict: Verdict[Move] = Verdict(terminal, ())
        else:
            best_value, best_moves = 0, list[Move]()
            for move in game.legal_moves(current):
                value = backed_up(verdict_of(game.play(current, move)).value, ply_cost)
                # Strictly greater replaces the best, so ties keep the game's move order.
                if not best_moves or value > best_value:
                    best_value, best_moves = value, [move]
                elif value == best_value:
                    best_moves.append(move)
            verdict = Verdict(best_value, tuple(best_moves))
        known[current] = verdict
        return verdict

    return verdict_of(state)


def backed_up(child_value: int, ply_cost: int = 0) -> int:
    """Return what a move is worth to its mover, given the value of the state it leads to.

    The child's value is for the opponent, who moves there, so it changes sign; and it
    moves `ply_cost` closer to zero for the ply the move takes.
    """
    if child_value > 0:
        return -max(child_value - ply_cost, 0)
    if child_value < 0:
        return -min(child_value + ply_cost, 0)
    return 0

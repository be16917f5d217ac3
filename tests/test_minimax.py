"""The generic search: exact minimax over a small game interface, deterministic ties."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.game.minimax import Verdict, backed_up, solve

Path = tuple[int, ...]


@dataclass(frozen=True)
class BinaryTree:
    """A perfect binary game tree with the maximizer to move at the root; moves are 0 and 1."""

    leaves: Sequence[int]

    @property
    def depth(self) -> int:
        return len(self.leaves).bit_length() - 1

    def legal_moves(self, state: Path) -> Sequence[int]:
        return (0, 1)

    def play(self, state: Path, move: int) -> Path:
        return (*state, move)

    def terminal_value(self, state: Path) -> int | None:
        if len(state) < self.depth:
            return None
        leaf = self.leaves[int("".join(map(str, state)), 2)]
        # Leaves are scored for the maximizer, who is to move at even depths.
        return leaf if len(state) % 2 == 0 else -leaf


def test_the_textbook_tree_is_worth_12_to_the_maximizer() -> None:
    """The game tree of the minimax literature: max(min(max(3,5), max(2,9)), min(...)) = 12."""
    verdict = solve(BinaryTree([3, 5, 2, 9, 12, 5, 23, 23]), ())
    assert verdict == Verdict(12, (1,))


def test_the_search_returns_the_value_and_the_move_of_every_state_it_saw() -> None:
    memo: dict[Path, Verdict[int]] = {}
    solve(BinaryTree([3, 5, 2, 9, 12, 5, 23, 23]), (), memo=memo)
    # The minimizer, after the maximizer's move 0, holds the maximizer to 5 by answering 0.
    assert memo[(0,)] == Verdict(-5, (0,))
    assert memo[(1, 1)] == Verdict(23, (0, 1))
    assert len(memo) == 15


def test_equally_good_moves_are_all_returned_in_the_games_order() -> None:
    verdict = solve(BinaryTree([4, 4, 4, 4]), ())
    assert verdict.best_moves == (0, 1)
    assert verdict.best_move == 0


@dataclass(frozen=True)
class Race:
    """A one-player-decides race: move 0 wins after a long detour, move 1 wins at once."""

    def legal_moves(self, state: str) -> Sequence[str]:
        return ("slow", "fast") if state == "" else ("on",)

    def play(self, state: str, move: str) -> str:
        return state + move[0]

    def terminal_value(self, state: str) -> int | None:
        # The side to move at the end has lost: the other side just won.
        return -10 if state in {"f", "soo"} else None


def test_without_a_ply_cost_a_slow_win_is_as_good_as_a_fast_one() -> None:
    assert solve(Race(), "").best_moves == ("slow", "fast")


def test_a_ply_cost_makes_the_fastest_win_the_only_best_move() -> None:
    verdict = solve(Race(), "", ply_cost=1)
    assert verdict == Verdict(9, ("fast",))


def test_a_finished_state_has_no_best_move() -> None:
    verdict = solve(BinaryTree([7, 1]), (0,))
    assert verdict == Verdict(-7, ())
    assert verdict.best_move is None


def test_a_value_backed_up_one_ply_changes_sign_and_moves_toward_zero() -> None:
    assert backed_up(-10, ply_cost=1) == 9
    assert backed_up(9, ply_cost=1) == -8
    assert backed_up(0, ply_cost=1) == 0
    assert backed_up(7) == -7

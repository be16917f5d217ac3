"""`python -m benchmarks.node_cost`: where one thread's node of the tree spends its time.

Each part of a node is timed by a compiled loop of its own on the threads benchmark's
positions (`benchmarks.threads.positions`: 15x15 freestyle, a few moves after a seeded
opening), the side to move's candidates one ply from the leaves as the moves: the moves a
node tries (`_node_moves`, one ply and three from the leaves), a move played and taken
back (`_play` and `_undo`) and its three parts (the windows' counts and promise,
`_recount`; the shapes' keys and tally, `_mark_lines`; the near cells, `_mark_near`), and
a leaf's value read without its move (`_leaf_value`). Beside them, the tree's own time a
node, to depth 8 on the same positions (`benchmarks.tree_speed`: a fresh table for each
position, the first touch of its pages counted too). Run it before and after a
change to the compiled position or the tree to see which part moved; the figures are
nanoseconds on this machine, to be read against each other in one run. The tree's node
has these parts inlined (`compiled.kernel._inlined`); a loop here calls them, passing
the position's arrays by value, so each part's figure carries a call's cost the tree
does not pay.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from numba import njit

from benchmarks import tree_speed
from benchmarks.threads import positions
from service.game.compiled.candidates import _node_moves
from service.game.compiled.evaluation import _leaf_value
from service.game.compiled.shapes import _mark_lines
from service.game.compiled.state import _mark_near, _play, _recount, _undo, _work
from service.game.search import Search
from service.game.warmup import prepare

# Each loop returns (a checksum the compiler cannot drop, calls made). Every part that
# changes the position takes its change back, so that each repetition sees the position
# as it came.


@njit(nogil=True)
def near_leaf_moves(geometry, state, player):  # type: ignore[no-untyped-def]
    """Return the moves a node one ply from the leaves tries, as the loops' moves."""
    work = _work(state, 2)
    count = _node_moves(geometry, state, player, -1, 1, 1, False, False, work)
    return work[0][1][:count].copy()


def _moves_chosen(depth: int) -> Callable[..., tuple[int, int]]:
    """Return the loop that chooses a node's moves `depth` plies from the leaves."""

    @njit(nogil=True)
    def loop(geometry, state, player, moves, repeats):  # type: ignore[no-untyped-def]
        work = _work(state, 2)
        total = 0
        for _ in range(repeats):
            total += _node_moves(geometry, state, player, -1, depth, 1, False, False, work)
        return total, repeats

    return loop


@njit(nogil=True)
def _played_and_undone(geometry, state, player, moves, repeats):  # type: ignore[no-untyped-def]
    total = 0
    for _ in range(repeats):
        for move in moves:
            total += _play(geometry, state, move, player)
            _undo(geometry, state, move)
    return total, repeats * moves.shape[0]


@njit(nogil=True)
def _windows(geometry, state, player, moves, repeats):  # type: ignore[no-untyped-def]
    total = 0
    for _ in range(repeats):
        for move in moves:
            total += _recount(geometry, state, move, player, 1)
            _recount(geometry, state, move, player, -1)
    return total, repeats * moves.shape[0]


@njit(nogil=True)
def _shapes(geometry, state, player, moves, repeats):  # type: ignore[no-untyped-def]
    cells = state[0]
    for _ in range(repeats):
        for move in moves:
            cells[move] = player
            _mark_lines(state, move, player)
            _mark_lines(state, move, 0)
            cells[move] = 0
    return state[10][player, 1], repeats * moves.shape[0]


@njit(nogil=True)
def _near(geometry, state, player, moves, repeats):  # type: ignore[no-untyped-def]
    for _ in range(repeats):
        for move in moves:
            _mark_near(geometry, state, move, 1)
            _mark_near(geometry, state, move, -1)
    return state[2][moves[0]], repeats * moves.shape[0]


@njit(nogil=True)
def _leaves(geometry, state, player, moves, repeats):  # type: ignore[no-untyped-def]
    work = _work(state, 2)
    total = 0
    for _ in range(repeats):
        for move in moves:
            total += _leaf_value(geometry, state, move, player, 1, False, work)
    return total, repeats * moves.shape[0]


#: The parts, in the order printed: a name and its loop.
PARTS: tuple[tuple[str, Callable[..., tuple[int, int]]], ...] = (
    ("a node's moves, one ply from the leaves", _moves_chosen(1)),
    ("a node's moves, three plies from the leaves", _moves_chosen(3)),
    ("a move played and taken back", _played_and_undone),
    ("  its windows' counts and promise", _windows),
    ("  its shapes' keys and tally", _shapes),
    ("  its near cells", _near),
    ("a leaf's value", _leaves),
)


def measure(count: int, repeats: int) -> dict[str, float]:
    """Return each part's nanoseconds a call, the mean over `count` positions, and the
    tree's nanoseconds a node to depth 8 on them."""
    spent = dict.fromkeys((name for name, _ in PARTS), 0.0)
    found = positions(count)
    for board, mover in found:
        search = Search(board, mover, 600.0, table_slots=tree_speed.TABLE_SLOTS)
        geometry, state, _table, _limits = search.kernel
        player = search.mover
        moves = near_leaf_moves(geometry, state, player)
        for name, loop in PARTS:
            loop(geometry, state, player, moves, 1)  # compiled, and the caches warm
            started = time.perf_counter()
            _checksum, calls = loop(geometry, state, player, moves, repeats)
            spent[name] += (time.perf_counter() - started) / calls * 1e9
    result = {name: total / len(found) for name, total in spent.items()}
    tree = tree_speed.measure(count, 8)
    seconds, nodes = float(str(tree["seconds"])), int(str(tree["nodes"]))
    result["the tree, a node to depth 8"] = seconds / nodes * 1e9
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=2000)
    arguments = parser.parse_args()
    prepare()
    print("| part | nanoseconds a call |")
    print("|---|---|")
    for name, nanoseconds in measure(arguments.positions, arguments.repeats).items():
        print(f"| {name} | {nanoseconds:,.0f} |")


if __name__ == "__main__":
    main()

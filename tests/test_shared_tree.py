"""A search on several threads (`SharedTree`): the same tree as one thread's, depth for depth
(to depth 11 on one thread; to depth 5 on two, whose timing changes what the table holds),
sooner; the position handed back as it came; a node limit keeps a search on one thread;
and the service gives a search the cores of the slots free when it starts."""

from __future__ import annotations

import random
import threading
import time

import pytest

from service.api.admission import Admission, Asked, ThreadSlots
from service.game import compiled
from service.game.board import Board, Mark
from service.game.compiled.kernel import HEURISTIC_LIMIT
from service.game.renju import forbidden_cells
from service.game.rules import Rules, Variant
from service.game.search import Search, search
from service.game.shared_tree import SPLIT_FROM_DEPTH
from tests.helpers import gomoku_board

TIME = 60.0

#: Games whose trees are searched by shapes (five in a row) and by windows (four in a row,
#: normal and misère).
GAMES = [
    Rules(15, 15, 5),
    Rules(9, 9, 5, variant=Variant.STANDARD),
    Rules(11, 11, 5, variant=Variant.RENJU),
    Rules(9, 9, 4),
    Rules(9, 9, 4, misere=True),
]


#: Tries a comparison with one thread's value is given where the threads' timing may change
#: what the shared table holds when a node is reached.
TIMING_TRIES = 3


def crowded_middle(rules: Rules, seed: int, marks: int = 8) -> tuple[Board, Mark]:
    """Return a seeded position of `marks` marks within two cells of the centre, X and O in
    turn, that no line has ended, and the side to move."""
    rng = random.Random(seed)
    while True:
        centre_row, centre_col = rules.rows // 2, rules.cols // 2
        near = [
            row * rules.cols + col
            for row in range(centre_row - 2, centre_row + 3)
            for col in range(centre_col - 2, centre_col + 3)
        ]
        board, mover = Board.empty(rules), Mark.X
        for cell in rng.sample(near, marks):
            board, mover = board.play(cell, mover), mover.opponent
        if not board.status().is_over:
            return board, mover


def one_thread_value(board: Board, mover: Mark, depth: int, *, wines_weights: bool = False) -> int:
    """Return the tree's value of a position searched one depth at a time up to `depth`,
    by one thread (as `Search` deepens), in a table of its own."""
    alone = Search(board, mover, TIME, wines_weights=wines_weights)
    value = 0
    for each in range(1, depth + 1):
        value, _move = alone._negamax_root(each, exact=False)
    return value


@pytest.mark.parametrize("rules", GAMES, ids=str)
@pytest.mark.parametrize("seed", range(3))
def test_two_threads_find_the_value_one_thread_finds_at_each_depth(rules: Rules, seed: int) -> None:
    """Shared out, the tree is the same tree: its value at a depth is one thread's, save
    what the shared table holds when a node is reached, which the threads' timing changes
    (the module's docstring): with both cores kept busy besides, 1 to 3 runs in 15 of
    this test met such a node (and CI once), so each depth is given three tries to match."""

    board, mover = crowded_middle(rules, seed)
    for depth in (3, 4, 5):
        values = []
        for _try in range(TIMING_TRIES):
            shared = Search(board, mover, TIME)
            tree = shared.shared_tree(2)
            move, value, finished = tree.deepen(-1, shared.position.empty, most_depth=depth)
            if finished < depth:  # an end seen: deeper looks stop, as one thread's do
                assert abs(value) > HEURISTIC_LIMIT
            assert move in board.empty_cells()
            values.append(value)
            expected = one_thread_value(board, mover, finished)
            if value == expected:
                break
        assert values[-1] == expected, values


@pytest.mark.parametrize("seed", [0, 2, 5, 6])
def test_on_one_thread_the_shared_tree_is_one_threads_tree_at_every_depth(seed: int) -> None:
    """Its nodes read and store the table as one thread's do, so the two trees order their
    moves alike, and so reduce the same ones: the same value and move at every depth to 11
    (from positions where no end is seen by then), and the same nodes counted."""
    board, mover = crowded_middle(Rules(15, 15, 5), seed)
    alone = Search(board, mover, TIME)
    one_thread = {}
    for depth in range(1, 12):
        value, move = alone._negamax_root(depth, exact=False)
        one_thread[depth] = value, move, int(alone.kernel.limits[0])
    for depth in range(SPLIT_FROM_DEPTH, 12):
        shared = Search(board, mover, TIME)
        tree = shared.shared_tree(1)
        move, value, finished = tree.deepen(-1, shared.position.empty, most_depth=depth)
        assert finished == depth
        assert (value, move, tree.nodes()) == one_thread[depth]


@pytest.mark.parametrize("rules", GAMES, ids=str)
def test_a_search_on_threads_hands_back_its_position_as_it_came(rules: Rules) -> None:
    """Stopped by its deadline anywhere along the shared line, every move played in every
    thread's position is taken back."""
    board, mover = crowded_middle(rules, 7)
    for seconds in (0.002, 0.01, 0.03):
        found = Search(board, mover, seconds, threads=2)
        before = [array.tolist() for array in found.kernel.state]
        result = found.run()
        assert result.move in board.empty_cells()
        assert [array.tolist() for array in found.kernel.state] == before


@pytest.mark.parametrize("rules", GAMES[:3], ids=str)
def test_the_helper_threads_end_with_the_search_their_positions_handed_back(
    rules: Rules,
) -> None:
    """The helper threads live as long as the tree's search: stopped by its deadline
    anywhere, or at its last depth, none is left running, and each helper's position is
    the root's again, whatever shared node it went to."""
    board, mover = crowded_middle(rules, 2)
    # Threads of earlier tests may still be ending: the search may add none that outlives it.
    running = set(threading.enumerate())
    for seconds in (0.005, 0.02, 0.08, None):
        shared = Search(board, mover, TIME if seconds is None else seconds)
        tree = shared.shared_tree(2)
        before = [[array.tolist() for array in kernel.state] for kernel in tree.kernels]
        most_depth = 6 if seconds is None else None
        move, _value, _finished = tree.deepen(-1, shared.position.empty, most_depth=most_depth)
        assert move in board.empty_cells()
        assert set(threading.enumerate()) <= running
        assert [[array.tolist() for array in kernel.state] for kernel in tree.kernels] == before


@pytest.mark.parametrize("stops", [True, False])
def test_what_runs_beside_the_tree_on_a_helper_may_stop_it(stops: bool) -> None:
    """`beside` runs on the first helper's position while the main thread searches: if it
    says so the whole search stops at once, long before its budget, else the tree goes on
    to its last depth; either way every position is the root's again."""
    board, mover = crowded_middle(Rules(15, 15, 5), 2)  # no end seen by depth 7
    shared = Search(board, mover, TIME)
    tree = shared.shared_tree(2)
    before = [array.tolist() for array in tree.kernels[0].state]
    seen: list[list[list[int]]] = []

    def beside(kernel: compiled.kernel.Kernel) -> bool:
        seen.append([array.tolist() for array in kernel.state])
        return stops

    started = time.perf_counter()
    _move, _value, finished = tree.deepen(-1, shared.position.empty, most_depth=7, beside=beside)
    assert seen == [before]  # once, on a helper's position: the root's
    assert (finished < 7) if stops else (finished == 7)
    if stops:
        assert time.perf_counter() - started < TIME / 10
    for kernel in tree.kernels:
        assert [array.tolist() for array in kernel.state] == before


def test_a_node_limit_keeps_a_search_on_one_thread() -> None:
    """A node limit promises the same answer every time: threads would not keep it."""
    board, mover = crowded_middle(Rules(15, 15, 5), 3)
    alone = search(board, mover, TIME, max_nodes=3000)
    for _ in range(2):
        asked_for_two = search(board, mover, TIME, max_nodes=3000, threads=2)
        assert (asked_for_two.move, asked_for_two.nodes, asked_for_two.evaluation) == (
            alone.move,
            alone.nodes,
            alone.evaluation,
        )


def test_threads_count_their_nodes_and_search_deeper_in_the_same_time() -> None:
    """Both threads' nodes are counted; in the same time two threads finish at least the
    depth one does, on most of a few seeded positions (a machine's noise aside)."""
    deeper_or_same = 0
    for seed in range(6):
        board, mover = crowded_middle(Rules(15, 15, 5), seed, marks=6)
        one = search(board, mover, 0.2)
        two = search(board, mover, 0.2, threads=2)
        assert two.nodes > 0
        deeper_or_same += two.depth >= one.depth
    assert deeper_or_same >= 4


def test_under_renju_no_thread_makes_blacks_foul_its_move() -> None:
    """The root's barred cells are every thread's: black's fouls are never its move."""
    rules = Rules(15, 15, 5, variant=Variant.RENJU)
    # Black to move; a double three at (7, 7) among its other choices.
    board = gomoku_board(
        {(7, 5): "X", (7, 6): "X", (5, 7): "X", (6, 7): "X", (0, 0): "O", (0, 2): "O",
         (0, 4): "O", (14, 14): "O"},
        rules,
    )  # fmt: skip
    fouls = frozenset(forbidden_cells(board))
    assert 7 * 15 + 7 in fouls
    for seconds in (0.05, 0.2):
        found = search(board, Mark.X, seconds, barred=fouls, threads=2)
        assert found.move not in fouls


# --- the service: the cores of the free slots ---


def test_a_search_gets_the_threads_of_the_slots_free_as_it_starts() -> None:
    slots = ThreadSlots(3)
    admission = Admission(250, 5000, slots, search_threads=2)
    with admission.slot(Asked.MOVE, 250) as first:
        assert first == 2  # its own slot and one free, as many as it may use
        with admission.slot(Asked.MOVE, 250) as second:
            assert second == 2
            with admission.slot(Asked.MOVE, 250) as third:
                assert third == 1  # no other slot is free
    with admission.slot(Asked.MOVE, 250, searching=False) as none:
        assert none == 1
    one_thread = Admission(250, 5000, ThreadSlots(3), search_threads=1)
    with one_thread.slot(Asked.MOVE, 250) as alone:
        assert alone == 1


def test_the_threads_a_search_may_use_do_not_hold_slots() -> None:
    """A search on two threads takes one slot: a search that starts meanwhile runs."""
    slots = ThreadSlots(2)
    admission = Admission(250, 5000, slots, search_threads=2)
    with admission.slot(Asked.MOVE, 250) as first:
        assert first == 2
        assert slots.free() == 1
        with admission.slot(Asked.MOVE, 250) as second:
            assert second == 1
    assert slots.free() == 2


def test_the_kernel_of_each_thread_is_its_own() -> None:
    """Each thread plays its moves in a position of its own; the table is the one shared."""
    board, mover = crowded_middle(Rules(15, 15, 5), 1)
    shared = Search(board, mover, TIME).shared_tree(3)
    first, *helpers = shared.kernels
    for helper in helpers:
        assert helper.table is first.table
        assert helper.state[0] is not first.state[0]
        assert helper.state[0].tolist() == first.state[0].tolist()
        assert helper.limits is not first.limits
    assert compiled.state.keeps_shapes(first)


@pytest.mark.parametrize("wines_weights", [False, True])
def test_every_thread_values_its_leaves_by_the_weights_the_search_was_given(
    wines_weights: bool,
) -> None:
    """Under renju a search asked for Wine's weights (Swap2's) is searched by them on every
    thread, and its value is still one thread's; else by renju's fitted weights."""
    board, mover = crowded_middle(Rules(15, 15, 5, variant=Variant.RENJU), 1)
    shared = Search(board, mover, TIME, wines_weights=wines_weights)
    tree = shared.shared_tree(2)
    assert [compiled.state.reads_fitted_weights(kernel) for kernel in tree.kernels] == [
        not wines_weights
    ] * 2
    _move, value, finished = tree.deepen(-1, shared.position.empty, most_depth=4)
    assert value == one_thread_value(board, mover, finished, wines_weights=wines_weights)


@pytest.mark.parametrize("seed", [2, 9])
def test_one_threads_tree_cut_anywhere_plays_what_the_compiled_search_plays(seed: int) -> None:
    """Cut by a node limit anywhere, the tree on one thread (its root and the nodes near it
    driven from Python) plays the move and reports the depth one thread's compiled search
    does: among the cuts, those where a move its null window has shown better is played
    before its full search ends (`tests/test_search.py`)."""
    board, mover = crowded_middle(Rules(15, 15, 5), seed)
    legal = sorted(board.empty_cells())
    for node_limit in range(1_000, 60_000, 700):
        compiled_search = Search(board, mover, TIME, max_nodes=node_limit)
        move, _value, depth = compiled_search._deepen(legal)
        cut = Search(board, mover, TIME, max_nodes=node_limit)
        shared_move, _value, shared_depth = cut.shared_tree(1).deepen(-1, cut.position.empty)
        assert (shared_move, shared_depth) == (move, depth)


def test_a_depth_cut_short_plays_the_last_depths_move_or_one_it_showed_better() -> None:
    """Stopped within a depth, the tree plays the last finished depth's move unless the
    stopped depth has shown another better, by its null window or in full (as one
    thread's search does). One thread and a node limit make every cut the same each time; the
    position is one where some cuts find another move better (seed 6's no longer do, since
    a reply at depth 0 is searched)."""
    board, mover = crowded_middle(Rules(15, 15, 5), 9)
    finished_moves = {}
    for depth in range(1, 14):  # beyond what 60,000 nodes reach
        # Each depth after the ones before it, in one table, as the deepening has it.
        whole = Search(board, mover, TIME)
        finished_moves[depth], _value, finished = whole.shared_tree(1).deepen(
            -1, whole.position.empty, most_depth=depth
        )
        assert finished == depth
    kept = shown_better = 0
    for node_limit in range(2_000, 60_000, 2_000):
        cut = Search(board, mover, TIME, max_nodes=node_limit)
        tree = cut.shared_tree(1)
        move, _value, depth = tree.deepen(-1, cut.position.empty)
        if tree.root_best is None:
            assert move == finished_moves[depth]
            kept += 1
        else:
            assert move == tree.root_best
            shown_better += move != finished_moves[depth]
    assert kept > 0
    assert shown_better > 0

"""The heuristic tree searched by several threads at once: principal variation splitting.

One thread searches a node's first move (down the line of first moves, the same way), then
every thread takes the node's next move in turn until none is left: each shows its move no
better than the best so far with a null window (a late quiet move shallower first, as one
thread's tree does), and searches it in full if it is. Each thread plays its moves in a
compiled position of its own: the helper threads live as long as the search, wait for the
node the main thread shares, and go to it from the root by the moves that lead there. The
transposition table is the one the search was given, shared, and every node reads and
stores it as one thread's does (a move's place in the order decides whether it is reduced,
so both must order alike). At each depth the tree finds the value and the move one
thread's search finds, save what the table holds when a node is reached, which the
threads' timing changes (`tests/test_shared_tree.py` holds them equal to depth 11 on one
thread, and on five games to depth 5 on two). At 250 ms two threads look about 0.6 plies
deeper than one, where twice the time looks 1.1 to 1.3 deeper; helper threads started at
each shared node gained 0.4 plies (docs/STRENGTH.md). Stopped by the deadline within a
depth, it plays as one thread does: the last finished depth's move, unless the stopped
depth has shown another better, by its null window (its full search under way) or in
full. Nodes fewer than SPLIT_FROM_DEPTH plies from the leaves are searched whole by one
thread: sharing them costs more than they take.

The threads run the compiled search (`service.game.compiled`, without the interpreter
lock), and only between nodes near the root does Python hand out the moves. Each thread
reads the clock as the one-thread search does; a search limited by nodes, whose answer
must be the same every time, is never shared (`Search`). The first helper may first run
something else on its position while the main thread starts the tree (`deepen`'s
`beside`: the root's look for a win by threes), and stop the whole search if that is
the answer, as a helper's failure does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from service.game import compiled
from service.game.compiled.kernel import HEURISTIC_LIMIT, MATE, Kernel

#: Nodes at least this far from the leaves share their moves between the threads.
SPLIT_FROM_DEPTH = 4


@dataclass(frozen=True)
class _Window:
    """Where a node is: plies from the root, who moves, plies to the leaves, its window."""

    ply: int
    player: int
    depth: int
    alpha: int
    beta: int

    def below(self) -> _Window:
        """Return the window of the node after a move, from the other side."""
        return _Window(self.ply + 1, 3 - self.player, self.depth - 1, -self.beta, -self.alpha)


@dataclass(eq=False)
class _Split:
    """A node whose moves after its first the threads take in turn: where it is (the moves
    from the root), its moves, the place of the next one to take, its best value and move
    so far, and how many threads are searching one of its moves."""

    node: _Window
    path: tuple[int, ...]
    moves: list[int]
    value: int
    move: int
    taken: int = 1  # the first is searched before the node is shared
    searching: int = 0

    def open(self) -> bool:
        """Return whether a move is left to take and no cut found."""
        return self.taken < len(self.moves) and max(self.node.alpha, self.value) < self.node.beta


class SharedTree:
    """One search's tree on `threads` threads: `kernel` is the search's own (its position,
    table and limits, its node count included); the others' positions are made from
    `marks`, the same position, with the same barred root moves."""

    def __init__(
        self,
        kernel: Kernel,
        marks: npt.NDArray[np.int64],
        mover: int,
        threads: int,
        *,
        misere: bool = False,
    ) -> None:
        geometry, state, table, limits = kernel
        self.kernels = [kernel]
        for _ in range(threads - 1):
            helper = Kernel(
                geometry, compiled.state.new_state(geometry, marks, state[8]), table, limits.copy()
            )
            helper.state[6][:] = state[6]  # the root's barred cells
            helper.state[11][:] = state[11]  # the rules row: the leaves' weights as chosen
            helper.limits[0] = 0
            self.kernels.append(helper)
        self.mover = mover
        self.misere = misere
        self.stopped = threading.Event()
        #: The moves played from the root in the main kernel's position.
        self.path: list[int] = []
        #: The node whose moves the threads are taking, if any; what guards it, and the
        #: conditions the helpers wait on (a node shared, the search ended) and the main
        #: thread (the last move taken of its node searched).
        self.shared: _Split | None = None
        self.lock = threading.Lock()
        self.opened = threading.Condition(self.lock)
        self.searched = threading.Condition(self.lock)
        #: Whether the search has ended, and what a helper thread raised, if anything.
        self.ended = False
        self.failure: BaseException | None = None
        #: The root move best so far at the depth being searched: searched in full, or
        #: shown better than the best before it by its null window while its full search
        #: goes on.
        self.root_best: int | None = None
        #: Whether a root move shown better by its null window is the one to play before
        #: its full search ends (`compiled.tree`): not on the boards whose answers never
        #: change.
        self.shows_better_early = state[0].shape[0] > compiled.tree.PRUNED_ABOVE_CELLS
        #: The root's value at each depth finished, the first depth first.
        self.depth_values: list[int] = []

    def nodes(self) -> int:
        """Return the nodes every thread has searched, the main kernel's count included."""
        return sum(int(kernel.limits[0]) for kernel in self.kernels)

    def deepen(
        self,
        fallback: int,
        empty: int,
        most_depth: int | None = None,
        beside: Callable[[Kernel], bool] | None = None,
    ) -> tuple[int, int, int]:
        """Search one depth more at a time until the deadline, a seen end, the `empty`
        cells or `most_depth`; return the move, its value and the depth last finished, as
        one thread's search does (`Search._deepen`): stopped by the deadline, the move the
        stopped depth has shown best (`root_best`), from its second depth on. The
        helper threads wait for the nodes the main thread shares, for the whole search;
        what one raises is raised here. `beside` first runs on the first helper's position
        (the tree's shared nodes taken by the others meanwhile) and, if it returns True,
        stops the search."""
        self.ended, self.failure = False, None
        helpers = [
            threading.Thread(
                target=self._help, args=(kernel, beside if number == 0 else None), daemon=True
            )
            for number, kernel in enumerate(self.kernels[1:])
        ]
        for thread in helpers:
            thread.start()
        try:
            found = self._deepen(fallback, empty, most_depth)
        finally:
            with self.lock:
                self.ended = True
                self.opened.notify_all()
            for thread in helpers:
                thread.join()
        if self.failure is not None:
            raise self.failure
        return found

    def _deepen(self, fallback: int, empty: int, most_depth: int | None) -> tuple[int, int, int]:
        best_move, best_value, finished = fallback, 0, 0
        main = self.kernels[0]
        for depth in range(1, (empty if most_depth is None else most_depth) + 1):
            self.root_best = None
            if depth < SPLIT_FROM_DEPTH:
                value, move = (int(found) for found in compiled.tree.root_value(
                    *main[:3], self.mover, depth, self.misere, False, main.limits
                ))  # fmt: skip
                found = None if value == compiled.kernel.ABORTED else value
            else:
                root = _Window(0, self.mover, depth, -MATE - 1, MATE + 1)
                found, move = self._node(root)
            if found is None:
                # The move the stopped depth has shown best so far: the compiled root's
                # record below SPLIT_FROM_DEPTH, this tree's from there.
                stopped = self.root_best
                if depth < SPLIT_FROM_DEPTH:
                    stopped = int(main.limits[3]) if main.limits[3] >= 0 else None
                if stopped is not None and depth > 1:
                    best_move = stopped
                break
            best_move, best_value, finished = move, found, depth
            self.depth_values.append(found)
            if abs(found) > HEURISTIC_LIMIT:
                break  # an end was seen; deeper looks do not change the choice
        return best_move, best_value, finished

    def _node(self, node: _Window) -> tuple[int | None, int]:
        """Return a node's value (None if the deadline stopped it) and its best move (-1
        where the table or the shapes settled it, or the compiled tree searched it), with
        the node's position played in the main kernel; read from and stored in the table as
        one thread's node is (`compiled.tree._negamax`), so that both trees order alike."""
        geometry, state, table, _limits = main = self.kernels[0]
        if node.depth < SPLIT_FROM_DEPTH:
            value = self._call(
                main, compiled.tree.node_value, node.player, node.depth, node.alpha, node.beta,
                node.ply,
            )  # fmt: skip
            return (None, -1) if self.stopped.is_set() else (value, -1)
        known = self._enter(node)
        if known is not None or self.stopped.is_set():
            return known, -1
        # The table's move first: the last depth's line, where the table still holds it.
        moves = [
            int(cell)
            for cell in compiled.tree.node_moves(
                geometry, state, table, node.player, node.depth, node.ply, self.misere
            )
        ]
        first = self._first(node, moves[0])
        if first is None:
            return None, -1
        if node.ply == 0:
            self.root_best = moves[0]
        split = _Split(node, tuple(self.path), moves, first, moves[0])
        if split.open():
            self._share(split)
        if self.stopped.is_set():
            return None, -1
        bound = -1 if split.value <= node.alpha else (1 if split.value >= node.beta else 0)
        compiled.tree.store_node(table, state, node.depth, split.value, bound, split.move)
        return split.value, split.move

    def _enter(self, node: _Window) -> int | None:
        """Enter a node as one thread's tree does: count it (and mark the search stopped
        if the deadline has passed); return its value if the table settles it (below the
        root) or its shapes decide it, else None."""
        geometry, state, table, limits = self.kernels[0]
        if compiled.kernel.out_of_time(limits):
            self.stopped.set()
            return None
        if node.ply > 0:
            settled, stored = compiled.tree.settled_value(
                table, state, node.depth, node.alpha, node.beta
            )
            if settled:
                return int(stored)
        decided = int(
            compiled.tree.decided(geometry, state, node.player, node.depth, node.ply, self.misere)
        )
        return decided if decided != 0 else None  # as one thread's tree reads its shapes

    def _first(self, node: _Window, move: int) -> int | None:
        """Return the value of a node's first move (None if the deadline stopped it),
        searched down the line of first moves, the move played in the main kernel."""
        geometry, state, _table, _limits = self.kernels[0]
        completes = bool(compiled.state.play_move(geometry, state, move, node.player))
        self.path.append(move)
        try:
            if completes:  # the game ends at once: won, or under misère lost
                return (-1 if self.misere else 1) * (MATE - node.ply - 1)
            if state[4][1] == 0:
                return 0  # the board is full
            value, _move = self._node(node.below())
            return None if value is None else -value
        finally:
            self.path.pop()
            compiled.state.undo_move(geometry, state, move)

    def _share(self, split: _Split) -> None:
        """Open a node's moves after its first to the helper threads, take them in turn
        with them, and wait until the last one taken is searched."""
        with self.lock:
            self.shared = split
            self.opened.notify_all()
        try:
            self._take_moves(self.kernels[0], split)
        finally:
            with self.lock:
                self.shared = None
                split.taken = len(split.moves)  # closed: no thread takes a move after this
                while split.searching > 0:
                    self.searched.wait()

    def _help(self, kernel: Kernel, beside: Callable[[Kernel], bool] | None = None) -> None:
        """A helper thread: run `beside` if given, then take the moves of each node the
        main thread shares, from its own position, until the search ends; keep what it
        raises for `deepen`."""
        try:
            if beside is not None and beside(kernel):
                self._stop()
            while True:
                with self.lock:
                    while True:
                        split = self.shared
                        if self.ended:
                            return
                        if split is not None and split.open():
                            break
                        self.opened.wait()
                self._join(kernel, split)
        except BaseException as failure:  # raised again by `deepen`, the search stopped now
            self.failure = failure
            self._stop()

    def _stop(self) -> None:
        """Stop every thread's search now, as its deadline would."""
        for kernel in self.kernels:
            kernel.limits[2] = 0
        self.stopped.set()

    def _join(self, kernel: Kernel, split: _Split) -> None:
        """Go from the root to a shared node in a helper's position, take its moves with
        the main thread, and come back."""
        played: list[int] = []
        player = self.mover  # the path's first move is the root mover's
        try:
            for move in split.path:
                compiled.state.play_move(kernel.geometry, kernel.state, move, player)
                played.append(move)
                player = 3 - player
            self._take_moves(kernel, split)
        finally:
            for move in reversed(played):
                compiled.state.undo_move(kernel.geometry, kernel.state, move)

    def _take_moves(self, kernel: Kernel, split: _Split) -> None:
        """Take a node's next move and search it, while any is left and no cut is found:
        a null window first (a late quiet move shallower first, as one thread's tree does:
        `compiled.tree.reduction`), then the full one if the move may be better than the best."""
        node = split.node
        while not self.stopped.is_set():
            with self.lock:
                if not split.open():
                    return
                at, floor = split.taken, max(node.alpha, split.value)
                split.taken += 1
                split.searching += 1
            move = split.moves[at]
            value = None
            try:
                value = self._searched(kernel, split, at, floor)
            finally:
                with self.lock:
                    split.searching -= 1
                    if value is not None and not self.stopped.is_set():
                        if value > split.value:
                            split.value, split.move = value, move
                            if node.ply == 0:
                                self.root_best = move
                        elif node.ply == 0 and self.root_best == move:
                            self.root_best = split.move  # not better after all
                    if split.searching == 0:
                        self.searched.notify()

    def _searched(self, kernel: Kernel, split: _Split, at: int, floor: int) -> int:
        """Return the value of a shared node's `at`-th move, shown no better than `floor`
        or searched in full as one thread's node searches it (meaningless if the deadline
        stopped it)."""
        node, move = split.node, split.moves[at]
        reduction = int(
            compiled.tree.reduction(
                kernel.state, move, node.player, at, node.depth, node.ply, self.misere
            )
        )
        value = self._value_of(kernel, node, move, floor, floor + 1, reduction)
        if reduction > 0 and value > floor and not self.stopped.is_set():
            value = self._value_of(kernel, node, move, floor, floor + 1)
        if floor < value < node.beta and not self.stopped.is_set():
            with self.lock:
                floor = max(node.alpha, split.value)
                if node.ply == 0 and value > floor and self.shows_better_early:
                    # Shown better than the best so far by its null window: the move to
                    # play if the deadline stops its full search (`compiled.tree`).
                    self.root_best = move
            value = self._value_of(kernel, node, move, floor, node.beta)
        return value

    def _value_of(  # noqa: PLR0917
        self, kernel: Kernel, node: _Window, move: int, alpha: int, beta: int, reduction: int = 0
    ) -> int:
        return self._call(
            kernel, compiled.tree.move_value, move, node.player, node.depth - reduction, alpha,
            beta, node.ply,
        )  # fmt: skip

    def _call(self, kernel: Kernel, function: Callable[..., int], *arguments: object) -> int:
        """Call a compiled function of the tree on a kernel; mark the search stopped if the
        deadline (or the node limit) stopped it."""
        geometry, state, table, limits = kernel
        value = int(function(geometry, state, table, *arguments, self.misere, False, limits))
        if value == compiled.kernel.ABORTED:
            self.stopped.set()
        return value

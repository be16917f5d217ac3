"""A position as the compiled search holds it (`Kernel.state`), changed in place: each
window's marks and each cell's promise, kept up to date as marks are played and taken back
(`_play`, `_undo`), with the shapes' keys and tally (`service.game.compiled.shapes`); the
cells that complete a line; the arrays of a new search (`new_kernel`, `new_state`) and the work
its nodes write into (`_work`)."""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt
from numba import njit

from service.game.compiled.kernel import (
    CARO_ENDS,
    FITTED_ABOVE_CELLS,
    FITTED_WEIGHTS,
    RENJU_ENDS,
    RENJU_FITTED_WEIGHTS,
    UNLIMITED_NODES,
    WINES_WEIGHTS,
    GeometryArrays,
    Ints,
    Kernel,
    _inlined,
    _uncounted,
)  # fmt: skip
from service.game.compiled.shapes import (
    CARO_SHAPES,
    DOUBLE_THREES,
    EXACT_SHAPES,
    FREESTYLE_SHAPES,
    OFF_BOARD,
    RENJU_SHAPES,
    SHAPED_K,
    _mark_lines,
    _tally_directions,
    shape_table,
)  # fmt: skip
from service.game.transposition import Table


@_uncounted
def _value_of(weights, mine, theirs):  # type: ignore[no-untyped-def]
    if theirs == 0:
        return weights[mine]
    return -weights[theirs] if mine == 0 else 0


@_uncounted
def _promise_of(weights, mine, theirs):  # type: ignore[no-untyped-def]
    total = 0
    if theirs == 0:
        total += weights[mine + 1]
    if mine == 0:
        total += weights[theirs + 1]
    return total


@_uncounted
def _counts(geometry, cells, window, player):  # type: ignore[no-untyped-def]
    """Return whether `player`'s line in `window` would count: it holds no end of it (under
    renju, black only), and under caro the opponent does not hold both."""
    if geometry[8] == RENJU_ENDS and player == 2:
        return True
    ends = geometry[7]
    closed = 0
    for side in range(2):
        end = ends[window, side]
        if end >= 0:
            if cells[end] == player:
                return False
            if cells[end] == 3 - player:
                closed += 1
    return geometry[8] != CARO_ENDS or closed < 2


@_uncounted
def _tally(levels, player, mine, theirs, step):  # type: ignore[no-untyped-def]
    """Count a window (its `player` holding `mine`, the other `theirs`) in or out of the
    levels: how many windows each side holds so many marks of, the other none."""
    if theirs == 0:
        levels[player, mine] += step
    if mine == 0:
        levels[3 - player, theirs] += step


@_inlined
def _recount(geometry, state, cell, player, step):  # type: ignore[no-untyped-def]
    windows, windows_of, weights, k = geometry[0], geometry[1], geometry[3], geometry[6]
    counts, promise, scalars, levels = state[1], state[3], state[4], state[7]
    other = 3 - player
    sign = 1 if player == 1 else -1
    completed = False
    for slot in range(windows_of.shape[1]):
        window = windows_of[cell, slot]
        if window < 0:
            break
        before = counts[window, player]
        theirs = counts[window, other]
        after = before + step
        counts[window, player] = after
        _tally(levels, player, before, theirs, -1)
        _tally(levels, player, after, theirs, 1)
        if after == k and _counts(geometry, state[0], window, player):
            completed = True
        scalars[0] += sign * (
            _value_of(weights, after, theirs) - _value_of(weights, before, theirs)
        )
        change = _promise_of(weights, after, theirs) - _promise_of(weights, before, theirs)
        if change != 0:
            for member in range(k):
                promise[windows[window, member]] += change
    return completed


@_inlined
def _play(geometry, state, cell, player):  # type: ignore[no-untyped-def]
    keys = geometry[4]
    cells, scalars, zobrist = state[0], state[4], state[5]
    completed = _recount(geometry, state, cell, player, 1)
    cells[cell] = player
    scalars[1] -= 1
    zobrist[0] ^= keys[cell, player]
    _mark_near(geometry, state, cell, 1)
    if state[11][0] == 1:
        _mark_lines(state, cell, player)
    return completed


@_inlined
def _undo(geometry, state, cell):  # type: ignore[no-untyped-def]
    keys = geometry[4]
    cells, scalars, zobrist = state[0], state[4], state[5]
    player = cells[cell]
    _recount(geometry, state, cell, player, -1)
    cells[cell] = 0
    scalars[1] += 1
    zobrist[0] ^= keys[cell, player]
    if state[11][0] == 1:
        _mark_lines(state, cell, 0)  # while the cells near it still count
    _mark_near(geometry, state, cell, -1)


@_inlined
def _mark_near(geometry, state, cell, step):  # type: ignore[no-untyped-def]
    """Count a mark on `cell` in (1) or out (-1) of its near cells' counts; where the game
    keeps shapes, an empty cell that comes near a mark (or is near none any more) comes
    into (goes out of) the tally of shapes."""
    near = geometry[2]
    cells, near_marks = state[0], state[2]
    shaped = state[11][0] == 1
    for slot in range(near.shape[1]):
        neighbour = near[cell, slot]
        if neighbour < 0:
            break
        if step > 0:
            near_marks[neighbour] += 1
        if shaped and near_marks[neighbour] == 1 and cells[neighbour] == 0:
            _tally_directions(state, neighbour, step)
        if step < 0:
            near_marks[neighbour] -= 1


@_inlined
def _completing(geometry, state, player, marked, found):  # type: ignore[no-untyped-def]
    """Write the empty cells where `player` completes a line into `found`, ascending (with
    `marked`, a flag per cell, as scratch); return how many."""
    windows, k = geometry[0], geometry[6]
    cells, counts = state[0], state[1]
    if not _may_complete(geometry, state, player):
        return 0  # no window is one mark short: no scan
    marked[:] = False
    count = 0
    for window in range(windows.shape[0]):
        if (
            counts[window, player] == k - 1
            and counts[window, 3 - player] == 0
            and _counts(geometry, cells, window, player)
        ):
            for member in range(k):
                cell = windows[window, member]
                if cells[cell] == 0 and not marked[cell]:
                    marked[cell] = True
                    count += 1
    at = 0
    for cell in range(cells.shape[0]):
        if marked[cell]:
            found[at] = cell
            at += 1
    return count


@njit(cache=True, nogil=True)
def _completing_cells(geometry, state, player):  # type: ignore[no-untyped-def]
    """Return the empty cells where `player` completes a line, ascending, in new arrays (for
    the threat search; the tree writes them into its work: `_completing`)."""
    if not _may_complete(geometry, state, player):
        return np.empty(0, dtype=np.int64)
    size = state[0].shape[0]
    found = np.empty(size, dtype=np.int64)
    count = _completing(geometry, state, player, np.zeros(size, dtype=np.bool_), found)
    return found[:count]


@njit(cache=True, nogil=True)
def _neighbours(geometry, size, half):  # type: ignore[no-untyped-def]
    """Return each of `size` cells' neighbours in each direction, `half` (4 or 5) before
    and as many after (-1 off the board), read off the windows of 5 through it and, for the
    fifth, through the fourth; and its keys on the empty board."""
    windows, windows_of, k = geometry[0], geometry[1], geometry[6]
    neighbours = np.full((size, 4, 2 * half), -1, dtype=np.int64)
    keys = np.zeros((size, 4), dtype=np.int64)
    steps = np.zeros(4, dtype=np.int64)  # a direction: the step between a window's cells
    for cell in range(size):
        for slot in range(windows_of.shape[1]):
            window = windows_of[cell, slot]
            if window < 0:
                break
            direction = _direction_of(windows, window, steps)
            at = 0
            while windows[window, at] != cell:
                at += 1
            for member in range(k):
                offset = member - at
                if offset != 0:
                    place = -offset - 1 if offset < 0 else half + offset - 1
                    neighbours[cell, direction, place] = windows[window, member]
    if half == 5:
        _fifth_neighbours(neighbours)
    for cell in range(size):
        for direction in range(4):
            for slot in range(2 * half):
                if neighbours[cell, direction, slot] < 0:
                    keys[cell, direction] |= OFF_BOARD << (2 * slot)
    return neighbours, keys


@_uncounted
def _direction_of(windows, window, steps):  # type: ignore[no-untyped-def]
    """Return which of the 4 directions a window runs in, told apart by the step between
    its cells: the slot of `steps` holding that step, or the first free one, filled."""
    step = windows[window, 1] - windows[window, 0]
    direction = 0
    while direction < 3 and steps[direction] != 0 and steps[direction] != step:
        direction += 1
    steps[direction] = step
    return direction


@njit(cache=True, nogil=True)
def _fifth_neighbours(neighbours):  # type: ignore[no-untyped-def]
    """Fill in each cell's fifth neighbours each way (slots 4 and 9): the fourth's nearest."""
    for cell in range(neighbours.shape[0]):
        for direction in range(4):
            fourth = neighbours[cell, direction, 3]
            if fourth >= 0:
                neighbours[cell, direction, 4] = neighbours[fourth, direction, 0]
            fourth = neighbours[cell, direction, 8]
            if fourth >= 0:
                neighbours[cell, direction, 9] = neighbours[fourth, direction, 5]


@njit(cache=True, nogil=True)
def new_state(geometry, marks, shapes):  # type: ignore[no-untyped-def]
    """Return the state of a position: `marks` holds 0 (empty), 1 (X) or 2 (O) per cell;
    `shapes` is the game's `shape_table`, read when the game keeps shapes (five in a row)."""
    windows_of, weights, k = geometry[1], geometry[3], geometry[6]
    size = marks.shape[0]
    levels = np.zeros((3, k + 1), dtype=np.int64)
    levels[1, 0] = levels[2, 0] = geometry[0].shape[0]  # every window: empty, for both
    promise = np.zeros(size, dtype=np.int64)
    for cell in range(size):
        for slot in range(windows_of.shape[1]):
            if windows_of[cell, slot] >= 0:
                promise[cell] += weights[1] * 2
    shaped = k == SHAPED_K
    half = 4 if shapes.shape[1] == 4**8 else 5
    neighbours, keys = _neighbours(geometry, size if shaped else 0, half)
    tally = np.zeros((3, 11), dtype=np.int64)
    state = (
        np.zeros(size, dtype=np.int64),
        np.zeros((geometry[0].shape[0], 3), dtype=np.int64),
        np.zeros(size, dtype=np.int64),
        promise,
        np.array([0, size], dtype=np.int64),
        np.zeros(1, dtype=np.uint64),
        np.zeros(size, dtype=np.int64),
        levels,
        shapes,
        keys,
        tally,
        # Whether the game keeps shapes; the player whose double fours are fouls, or 0;
        # whether two fives to make may both be stopped by one stone (caro); which weights
        # value its leaves (`_leaf_weights`).
        np.array(
            [
                1 if shaped else 0,
                1 if geometry[8] == RENJU_ENDS else 0,
                1 if geometry[8] == CARO_ENDS else 0,
                _leaf_weights(geometry, shaped, half, size),
            ],
            dtype=np.int64,
        ),
        neighbours,
        np.zeros((size if shaped else 0, 3, 2), dtype=np.int64),
        np.zeros((size if shaped else 0, 3), dtype=np.int64),
        np.zeros((size + 63) // 64 if shaped else 0, dtype=np.int64),
    )
    for cell in range(size):
        if marks[cell] != 0:
            _play(geometry, state, cell, marks[cell])
    return state


@_uncounted
def _may_complete(geometry, state, player):  # type: ignore[no-untyped-def]
    """Return whether `player` holds a window one mark short, by the levels: else
    `_completing` would find no cell."""
    return state[7][player, geometry[6] - 1] > 0


@njit(cache=True, nogil=True)
def play_move(geometry, state, move, player):  # type: ignore[no-untyped-def]
    """Play `move` for `player` in a compiled position; return whether it completes a line."""
    return _play(geometry, state, move, player)


@njit(cache=True, nogil=True)
def undo_move(geometry, state, move):  # type: ignore[no-untyped-def]
    """Take `move` back in a compiled position."""
    _undo(geometry, state, move)


@njit(cache=True, nogil=True)
def _work(state, plies):  # type: ignore[no-untyped-def]
    """Return the work a search's nodes write into, allocated once a search rather than at
    each node (whose arrays' reference counts cost more than the rest of it): a row of
    moves per ply (as many cells long as the board: `_candidates`), each cell's candidacy,
    a flag per cell (`_completing`), the per-direction counts of `_shape` and a leaf's
    tally of shapes (`_tally_after`)."""
    size = state[0].shape[0]
    return (
        np.empty((plies, size), dtype=np.int64),
        np.zeros(size, dtype=np.int64),
        np.zeros(size, dtype=np.bool_),
        np.zeros((3, 4), dtype=np.int64),
        np.zeros((3, DOUBLE_THREES + 1), dtype=np.int64),
    )


@_uncounted
def _leaf_weights(geometry, shaped, half, size):  # type: ignore[no-untyped-def]
    """Return which weights value a game's leaves: on boards of more than 16 cells, whose
    answers may change, those fitted to freestyle's games (whose keys are 8 neighbours) or
    to renju's, averaged over two plies (`evaluation.FITTED_MOVER_VALUES`); else Wine's."""
    if not shaped or size <= FITTED_ABOVE_CELLS:
        return WINES_WEIGHTS
    if half == 4:
        return FITTED_WEIGHTS
    return RENJU_FITTED_WEIGHTS if geometry[8] == RENJU_ENDS else WINES_WEIGHTS


def keeps_shapes(kernel: Kernel) -> bool:
    """Return whether the search keeps shapes (five in a row, every variant): it values
    its leaves and orders its moves by them, unless the game is misère."""
    return bool(kernel.state[11][0] == 1)


def reads_fitted_weights(kernel: Kernel) -> bool:
    """Return whether the leaves are valued by the weights fitted to games' outcomes
    (`evaluation.FITTED_MOVER_VALUES`), whose values read on `FITTED_SHAPE_SCALE`."""
    return bool(kernel.state[11][3] != WINES_WEIGHTS)


def value_leaves_by_wines_weights(kernel: Kernel) -> None:
    """Value a search's leaves by Wine's weights whatever its game (`_leaf_weights`):
    colour-blind, they read which side leads where the fitted ones may not (Swap2's
    decisions, docs/STRENGTH.md); its values then read on `SHAPE_SCALE`."""
    kernel.state[11][3] = WINES_WEIGHTS


def shape_rule(geometry: GeometryArrays) -> int:
    """Return which fives a game's table of shapes counts (FREESTYLE_SHAPES...), from what
    its windows' ends mean."""
    ends, meaning = geometry[7], geometry[8]
    if meaning == RENJU_ENDS:
        return RENJU_SHAPES
    if meaning == CARO_ENDS:
        return CARO_SHAPES
    return FREESTYLE_SHAPES if bool((ends < 0).all()) else EXACT_SHAPES


def new_kernel(
    geometry: GeometryArrays,
    marks: Ints,
    table: Table,
    deadline_ns: int,
    max_nodes: int | None,
    *,
    barred: list[int] | None = None,
) -> Kernel:
    """Return the compiled state of one search of a position, with its table, deadline and
    node limit, and the cells the mover may not play at the root (`barred`)."""
    limits = np.array(
        [0, UNLIMITED_NODES if max_nodes is None else max_nodes, deadline_ns, -1, 0],
        dtype=np.int64,
    )
    state = new_state(geometry, marks, _shapes(shape_rule(geometry)))
    state[6][barred or []] = 1
    return Kernel(geometry, state, table, limits)


def make_shape_tables() -> None:
    """Make every rule's table of shapes, where a process starts: no request waits for one
    (a first search under a rule once spent 0.17 s of its budget making it)."""
    for rule in (FREESTYLE_SHAPES, EXACT_SHAPES, CARO_SHAPES, RENJU_SHAPES):
        _shapes(rule)


@functools.cache
def _shapes(rule: int) -> npt.NDArray[np.int8]:
    """Return a rule's table of shapes, made once a process (`make_shape_tables`):
    freestyle's in a few milliseconds (196 KB), the others' in 0.02 s (3 MB)."""
    table: npt.NDArray[np.int8] = shape_table(rule)
    return table

"""Which moves a node of the tree tries, in its order: a five to make, else the cells that
stop the opponent's, else the answers to a threat of an open four, else the likeliest near
cells (CANDIDATES_TRIED of them; every empty cell in an exact search), ordered by the
shapes they make and stop (else by their promise and the threats they make); never black's
foul below the root under renju, nor a barred cell at it, nor under misère a cell that
completes the mover's own line while another is left. The answers to a threat of an open
four (`_answers_to_open_fours`) serve the threat search's defences too; the threats a move
makes and stops over the windows (`_shape`) order the moves of the games without shapes."""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from service.game.compiled.fouls import _without_fouls
from service.game.compiled.kernel import RENJU_ENDS, _inlined, _uncounted
from service.game.compiled.shapes import DOUBLE_FOURS, FOUR, OPEN_FOUR, _move_value
from service.game.compiled.state import _completing, _counts, _direction_of, _work

#: How many of a node's best-looking candidates the heuristic search tries.
CANDIDATES_TRIED = 16

#: What a threat a move makes or stops (`_shape`: 1 an open three, 2 a four, 8 two at
#: once) adds to its promise in the order of the candidates, 3 plies or more from the
#: leaves: a four or an open three before the moves that only fill windows
#: (docs/STRENGTH.md: 52.5 % against Wine where the promise alone gave 47.5 %).
SHAPE_WEIGHT = 64

#: How far from the leaves the candidates are ordered by their threats too: nearer the
#: leaves the count costs more than the order saves.
SHAPED_FROM_DEPTH = 3


@_inlined
# Forced moves, threats, the near cells, misère's losing cells: hence the branches.
def _candidates(geometry, state, player, hint, misere, exact, shaped, forced, work, ply):  # type: ignore[no-untyped-def]  # noqa: PLR0912, PLR0917
    """Write the moves worth trying at a node into its ply's row of the work's moves
    (`_work`), the most promising first (the table's `hint` before them); return how many.
    Where the game keeps shapes, by the shapes they make and stop (`_move_value`); else by
    the promise of their windows, and with `shaped` also by the threats they make and stop
    (`_shape`); every empty cell when `exact`, else the CANDIDATES_TRIED best near the
    marks. With `forced`, only a win at once, or the cells that stop the opponent's, or the
    answers to its threat of an open four, when any."""
    centre = geometry[5]
    cells, near_marks, promise = state[0], state[2], state[3]
    moves, chosen, marked, scratch, _after = work
    row = moves[ply]
    size = cells.shape[0]
    if forced and not misere:
        if _completing(geometry, state, player, marked, row) > 0:
            return 1  # the first win
        if not exact:
            threats = _completing(geometry, state, 3 - player, marked, row)
            if threats > 0:
                return threats  # any other move lets the opponent complete a line next
    if (
        state[11][0] == 1
        and not misere
        and not exact
        and not (forced and _may_threaten_open_four(geometry, state, 3 - player))
        and not (player == 1 and geometry[8] == RENJU_ENDS and ply > 0)
    ):
        # The common node: the near cells by their shapes, in one pass (none marked first).
        kept = _shaped_near_cells(state, player, row[: min(size, CANDIDATES_TRIED)])
        if kept > 0:
            _hint_first(row[:kept], hint)
            return kept
    # 1: a candidate; 0: not. The near cells, or the centre (the first empty cell) if none.
    chosen[:] = 0
    count = 0
    if forced and not misere and not exact:
        # The opponent threatens an open four: only the answers to it are tried.
        count = _answers_to_open_fours(geometry, state, player, chosen)
    answering = count > 0
    for cell in range(size):
        if not answering and cells[cell] == 0 and (exact or near_marks[cell] > 0):
            chosen[cell] = 1
            count += 1
    if count == 0:
        first = centre
        if cells[centre] != 0:
            for cell in range(size):
                if cells[cell] == 0:
                    first = cell
                    break
        chosen[first] = 1
        count = 1
    if misere:
        # No cell that completes the mover's own line while another candidate, or failing
        # that another empty cell, does not. The row holds them until the keys below.
        losing = _completing(geometry, state, player, marked, row)
        count = _without_losing(cells, chosen, count, row[:losing])
    if player == 1 and geometry[8] == RENJU_ENDS and state[11][0] == 1 and not exact and ply > 0:
        # Black's fouls as its shapes show them, below the root: there the judge's own
        # (`unbarred`), which knows the threes that only look like threes.
        count = _without_fouls(state, chosen, count)
    # The best `tried` keys, ascending, kept by insertion in the row as the cells come: a
    # few of dozens, where a sort of them all cost two allocations and more moves.
    tried = count if exact else min(count, CANDIDATES_TRIED)
    keys = row[:tried]
    kept = 0
    for cell in range(size):
        if chosen[cell] == 1:
            if state[11][0] == 1 and not misere and not exact:
                key = _shaped_key(state, cell, player)
            else:
                worth = promise[cell]
                if shaped and not misere and not exact:
                    worth += SHAPE_WEIGHT * (
                        2 * _shape(geometry, state, cell, player, scratch)
                        + _shape(geometry, state, cell, 3 - player, scratch)
                    )
                key = -worth * size + cell  # by (-worth, cell)
            kept = _keep_best(keys, kept, key)
    for at in range(kept):
        row[at] = keys[at] % size  # the cell: the key's remainder (floored)
    _hint_first(row[:kept], hint)
    return kept


@_uncounted
def _shaped_near_cells(state, player, keys):  # type: ignore[no-untyped-def]
    """Write the best of the empty cells near a mark, as many as `keys` holds, into it by
    their shapes, then their promise, then the cell (`_shaped_key`), as `_candidates`
    orders them; return how many (0: no cell is near a mark)."""
    counted = state[15]
    size = state[3].shape[0]
    kept = 0
    for block in range(counted.shape[0]):
        bits = counted[block]
        while bits != 0:  # the block's counted cells, read off its bits: no scan of the board
            bit: int = trailing_zeros(bits)  # type: ignore[call-arg]  # numba passes the context
            bits ^= np.int64(1) << bit  # not bits - 1: the sign bit alone would overflow
            cell = (block << 6) + bit
            kept = _keep_best(keys, kept, _shaped_key(state, cell, player))
    for at in range(kept):
        keys[at] = keys[at] % size  # the cell: the key's remainder (floored)
    return kept


@_uncounted
def _shaped_key(state, cell, player):  # type: ignore[no-untyped-def]
    """Return a candidate's key in their order where the game keeps shapes, the smallest
    first: by the shapes the move makes and stops (`_move_value`; none where the cell is
    not counted), then its promise, then the cell, the key's remainder by the board's size."""
    promise = state[3]
    worth = _move_value(state, cell, player) * 100_000 + min(promise[cell], 99_999)
    return -worth * promise.shape[0] + cell


@_uncounted
def _keep_best(keys, kept, key):  # type: ignore[no-untyped-def]
    """Insert `key` among the `kept` smallest keys so far, ascending, the largest dropped
    when `keys` is full (no two keys alike); return how many are kept."""
    tried = keys.shape[0]
    if kept == tried and key > keys[tried - 1]:
        return kept
    at = min(kept, tried - 1)
    while at > 0 and keys[at - 1] > key:
        keys[at] = keys[at - 1]
        at -= 1
    keys[at] = key
    return min(kept + 1, tried)


@_uncounted
def _hint_first(ordered, hint):  # type: ignore[no-untyped-def]
    """Move the table's `hint` to the front of the moves, in place, if it is among them."""
    if hint >= 0:
        for at in range(ordered.shape[0]):
            if ordered[at] == hint:
                for back in range(at, 0, -1):
                    ordered[back] = ordered[back - 1]
                ordered[0] = hint
                break


@_uncounted
def _shape(geometry, state, cell, player, scratch):  # type: ignore[no-untyped-def]
    """Return what `player` playing `cell` makes of its lines, as a gomoku player ranks it:
    8 for two threats at once (two fours, a four and an open three, two open threes),
    2 for a four, 1 for an open three, else 0. A four: a window one mark short after the
    move; an open three: two windows or more of one direction two marks short."""
    windows, windows_of, k = geometry[0], geometry[1], geometry[6]
    counts = state[1]
    other = 3 - player
    if k < 4:
        return 0
    # Per direction (told apart by the step between a window's cells): a four made, and
    # how many windows are left two short.
    steps, four, short_two = scratch[0], scratch[1], scratch[2]
    scratch[:] = 0
    for slot in range(windows_of.shape[1]):
        window = windows_of[cell, slot]
        if window < 0:
            break
        if counts[window, other] != 0:
            continue
        mine = counts[window, player]
        if mine != k - 2 and mine != k - 3:
            continue
        at = _direction_of(windows, window, steps)
        if mine == k - 2:
            four[at] = 1
        else:
            short_two[at] += 1
    fours = 0
    threes = 0
    for at in range(4):
        if four[at] == 1:
            fours += 1
        elif short_two[at] >= 2:
            threes += 1
    if fours >= 2 or (fours >= 1 and threes >= 1) or threes >= 2:
        return 8
    return 2 * fours + threes


@njit(cache=True, nogil=True)
def unbarred(state, moves):  # type: ignore[no-untyped-def]
    """Return a root's moves without the barred cells, as `Search._unbarred` has them."""
    room = np.empty(max(moves.shape[0], state[0].shape[0]), dtype=np.int64)
    room[: moves.shape[0]] = moves
    return room[: _unbarred(state, room, moves.shape[0])]


@_uncounted
def _unbarred(state, moves, count):  # type: ignore[no-untyped-def]
    """Take the barred cells out of the first `count` of `moves` (as many cells long as the
    board at least), in place; if none is left, write the CANDIDATES_TRIED most promising
    other empty cells instead; if there is none, leave the moves as they were. Return how
    many moves there are."""
    cells, promise, barred = state[0], state[3], state[6]
    size = cells.shape[0]
    kept = 0
    for at in range(count):
        if barred[moves[at]] == 0:
            moves[kept] = moves[at]
            kept += 1
    if kept > 0 or count == 0:
        return kept
    # Every move barred (none written over): the others by (-promise, cell), as the root
    # sorts them, the best kept by insertion.
    keys = moves[: min(CANDIDATES_TRIED, size)]
    for cell in range(size):
        if cells[cell] == 0 and barred[cell] == 0:
            kept = _keep_best(keys, kept, -promise[cell] * size + cell)
    if kept == 0:
        return count
    for at in range(kept):
        moves[at] = keys[at] % size  # the cell: the key's remainder (floored)
    return kept


@_uncounted
def _makes_open_four(geometry, state, cell, attacker):  # type: ignore[no-untyped-def]
    """Return whether `attacker` playing `cell` leaves two or more cells that complete a line."""
    windows, windows_of, k = geometry[0], geometry[1], geometry[6]
    cells, counts = state[0], state[1]
    defender = 3 - attacker
    first = -1
    for slot in range(windows_of.shape[1]):
        window = windows_of[cell, slot]
        if window < 0:
            break
        if (
            counts[window, attacker] == k - 2
            and counts[window, defender] == 0
            and _counts(geometry, cells, window, attacker)
        ):
            for member in range(k):
                other = windows[window, member]
                if other != cell and cells[other] == 0:
                    if first < 0:
                        first = other
                    elif other != first:
                        return True
    return False


@_inlined
def _answers_to_open_fours(geometry, state, player, chosen):  # type: ignore[no-untyped-def]
    """Mark in `chosen` the answers to the opponent's threats of an open four (or a double
    four) when there are any: every empty cell of the windows that make one, and the
    player's own fours; return how many are marked (0: no such threat)."""
    windows, windows_of, k = geometry[0], geometry[1], geometry[6]
    cells, counts = state[0], state[1]
    opponent = 3 - player
    count = 0
    if k < 4:
        return 0  # short lines: every other mark threatens, the answers are everywhere
    if not _may_threaten_open_four(geometry, state, opponent):
        return 0
    for window in range(windows.shape[0]):
        if counts[window, opponent] != k - 2 or counts[window, player] != 0:
            continue
        for member in range(k):
            cell = windows[window, member]
            if cells[cell] != 0 or not _makes_open_four(geometry, state, cell, opponent):
                continue
            for slot in range(windows_of.shape[1]):
                through = windows_of[cell, slot]
                if through < 0:
                    break
                if (
                    counts[through, opponent] == k - 2
                    and counts[through, player] == 0
                    and _counts(geometry, cells, through, opponent)
                ):
                    count += _mark_empties(windows, cells, through, chosen)
    if count > 0:
        for window in range(windows.shape[0]):
            if counts[window, player] == k - 2 and counts[window, opponent] == 0:
                count += _mark_empties(windows, cells, window, chosen)
    return count


@_uncounted
def _may_threaten_open_four(geometry, state, player):  # type: ignore[no-untyped-def]
    """Return whether `player` may threaten an open four (`_answers_to_open_fours`): it
    holds a window two marks short, and its shapes show two fives at a cell; else no scan."""
    return state[7][player, geometry[6] - 2] > 0 and _may_make_open_four(state, player)


@_uncounted
def _may_make_open_four(state, player):  # type: ignore[no-untyped-def]
    """Return whether `player` may have a move that leaves two cells completing a line, as
    the tally of shapes tells (always, where the game keeps none, or under caro, whose open
    fours are fewer than such moves): an open four to make, or fours in two directions."""
    if state[11][0] == 0 or state[11][2] == 1:
        return True
    tally = state[10]
    if tally[player, OPEN_FOUR] > 0:
        return True
    if state[11][1] == player:
        return tally[player, FOUR] >= 2  # renju's black: its double fours are not counted
    return tally[player, DOUBLE_FOURS] > 0


@_uncounted
def _mark_empties(windows, cells, window, chosen):  # type: ignore[no-untyped-def]
    """Mark the empty cells of a window in `chosen`; return how many were not marked before."""
    added = 0
    for member in range(windows.shape[1]):
        cell = windows[window, member]
        if cells[cell] == 0 and chosen[cell] == 0:
            chosen[cell] = 1
            added += 1
    return added


@_uncounted
def _without_losing(cells, chosen, count, losing):  # type: ignore[no-untyped-def]
    """Take the losing cells out of the chosen ones, unless that leaves none: then every
    other empty cell, unless there is none; return how many are chosen."""
    if losing.shape[0] == 0:
        return count
    kept = count
    for at in range(losing.shape[0]):
        if chosen[losing[at]] == 1:
            kept -= 1
    if kept > 0:
        for at in range(losing.shape[0]):
            chosen[losing[at]] = 0
        return kept
    safe = 0
    for cell in range(cells.shape[0]):
        if cells[cell] == 0:
            safe += 1
    safe -= losing.shape[0]
    if safe == 0:
        return count  # every move completes the mover's line: it loses whatever it plays
    for cell in range(cells.shape[0]):
        chosen[cell] = 1 if cells[cell] == 0 else 0
    for at in range(losing.shape[0]):
        chosen[losing[at]] = 0
    return safe


@_inlined
def _node_moves(geometry, state, player, hint, depth, ply, misere, exact, work):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Write the moves the tree tries at a node `ply` plies below the root, `depth` from
    its leaves, into its ply's row of the work, in its order (`hint` first; at the root,
    never a barred cell); return how many."""
    count = _candidates(
        geometry, state, player, hint, misere, exact, depth >= SHAPED_FROM_DEPTH, True, work, ply
    )
    if ply == 0:
        count = _unbarred(state, work[0][ply], count)
    return count


@njit(cache=True, nogil=True)
def likeliest_moves(geometry, state, mover, misere, forced):  # type: ignore[no-untyped-def]
    """Return the moves the heuristic tree tries first at the root, in its order (with
    `forced`, only the forced ones when there are any: `_candidates`)."""
    ply = np.int64(0)  # not a literal, as the tree passes it (see root_value)
    work = _work(state, ply + 1)
    count = _candidates(geometry, state, mover, -1, misere, False, True, forced, work, ply)
    return work[0][0, :count].copy()

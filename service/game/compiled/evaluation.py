"""What a position is worth to the tree: in five in a row by the tally of shapes each side
could make (in freestyle and renju on boards of more than 16 cells, weights fitted to how
the search's games ended, against Rapfi and against itself: `benchmarks.fit`; elsewhere
Wine's, the side to move's weighed 1.2 times) and the ends they decide (an open four, two
fours, a four and an open three, two open threes, as Rapfi's static win check reads them:
`_shape_end`, which decides the tree's nodes above the leaves too), else by the windows'
counts; a leaf's value read without playing its move (`_leaf_value`, `_tally_after`)."""

from __future__ import annotations

import numpy as np

from service.game.compiled.kernel import (
    FITTED_WEIGHTS,
    HEURISTIC_LIMIT,
    MATE,
    WINES_WEIGHTS,
    _inlined,
    _uncounted,
)
from service.game.compiled.shapes import (
    DOUBLE_FOURS,
    DOUBLE_THREES,
    FIVE,
    FOUR,
    FOUR_THREES,
    OPEN_FOUR,
    OPEN_THREE,
    _counted_makes_at_least,
    _packed,
)  # fmt: skip
from service.game.compiled.state import _counts, _value_of

#: What each shape a side could make next is worth at a leaf (jinjiebang/wine's weights).
SHAPE_VALUES = np.array([0, 2, 12, 18, 96, 144, 800, 1200], dtype=np.int64)

#: What each shape (and each double threat: the tally's columns) is worth at a leaf in
#: freestyle on boards of more than 16 cells, to the side to move and to the side that
#: has just moved: a logistic fit of the tallies of 33,044 positions to how the 1,097
#: games they came from ended, against Rapfi and between two revisions of the search
#: (Texel tuning, `benchmarks.fit`; docs/STRENGTH.md), scaled so that an open three to
#: move is 96. The side to move's open four, five and two fours to make decide
#: the leaf unless a five stands against them: valued then at Wine's, 1.2 times. Two open
#: threes at one cell count as their two threes: not fitted (the first fit made them of
#: opposite signs to the threes'), 0.
FITTED_MOVER_VALUES = np.array(
    [0, 17, 18, 39, 96, 157, 960, 1440, 960, 1231, 0], dtype=np.int64
)  # fmt: skip
FITTED_WAITING_VALUES = np.array(
    [0, 13, 4, 36, 64, 177, 550, 1200, 49, 622, 0], dtype=np.int64
)  # fmt: skip

#: The same under renju, where black (X) and white play by different rules: a row for
#: each side to move, black's first, fitted as freestyle's were (`benchmarks.fit`) to
#: 33,548 positions of 1,169 games under renju, the search's against Rapfi and against
#: itself (docs/STRENGTH.md). Black's two fours and two open threes at one cell are fouls
#: (0); where the fit had no position with a shape (the side to move's open four and five,
#: which decide its leaves; a five to make for the side that has just moved), freestyle's
#: weight. Its double threes count as their threes, as freestyle's do; a few weights of the
#: lesser shapes the fit made below 0 are 0.
RENJU_FITTED_MOVER_VALUES = np.array(
    [[0, 15, 0, 21, 93, 167, 960, 1440, 0, 1389, 0],
     [0, 13, 3, 32, 99, 235, 960, 1440, 960, 611, 0]], dtype=np.int64
)  # fmt: skip
RENJU_FITTED_WAITING_VALUES = np.array(
    [[0, 13, 0, 17, 65, 238, 534, 1200, 109, 508, 0],
     [0, 12, 0, 14, 43, 179, 532, 1200, 0, 924, 0]], dtype=np.int64
)  # fmt: skip

#: A leaf the shapes decide: a five to make, two fives against one stop, or an open four
#: (or two fours at once) to make with no five against it. Far above what the shapes of a
#: position sum to.
SHAPE_WIN = 30_000

#: The value a search reports as an evaluation of tanh(1) where its leaves are valued by
#: fitted weights (freestyle and renju on boards of more cells than the tables hold):
#: fitted to a judge on 15x15 freestyle at 250 ms (`benchmarks.calibration`), so that
#: (1 + evaluation) / 2 is about the chance of winning that Rapfi gives the side to move:
#: 1,500 best fitted the refitted weights' games against Rapfi and against the search
#: itself, and renju's games against Rapfi 1,600, one step away, so renju reads on it too
#: (docs/STRENGTH.md; searched on a machine slower than most runs', so a little
#: shallower); other sizes are not measured.
FITTED_SHAPE_SCALE = 1_500

#: The same for standard's and caro's leaves, and Swap2's searches under renju (Wine's
#: weights), on boards of more cells than the tables hold, as fitted to freestyle's games
#: before the fitted weights.
SHAPE_SCALE = 2_600

#: The same on boards of 16 cells or fewer, as it was before the fit (their answers never
#: change): a leaf the shapes decide reads 0.9866.
SMALL_BOARD_SHAPE_SCALE = 12_000


@_uncounted
def _shape_end(tally, caro, player_who_moved):  # type: ignore[no-untyped-def]
    """Return what the shapes decide of a position (its `tally`; `caro` 1 under caro) to the
    player who has just moved: -SHAPE_WIN won for the side to move (a five to make; with
    no five against it an open four or two fours; with no four against it a four and an
    open three, or two open threes and no open four against them), SHAPE_WIN lost for it
    (two fives against one stop, not under caro), or 0."""
    mover, waiting = 3 - player_who_moved, player_who_moved
    if tally[mover, FIVE] > 0:
        return -SHAPE_WIN
    if tally[waiting, FIVE] >= 2 and caro == 0:  # caro: one stone may stop both
        return SHAPE_WIN
    if tally[waiting, FIVE] == 0 and (
        tally[mover, OPEN_FOUR] > 0 or tally[mover, DOUBLE_FOURS] > 0
    ):
        return -SHAPE_WIN
    if tally[waiting, FIVE] == 0 and tally[waiting, FOUR] == 0 and caro == 0:
        # The other side has no four to answer with (caro aside, where closed ends count):
        # a four and an open three at once wins, and two open threes unless it has an open
        # four to make first.
        if tally[mover, FOUR_THREES] > 0:
            return -SHAPE_WIN
        if tally[mover, DOUBLE_THREES] > 0 and tally[waiting, OPEN_FOUR] == 0:
            return -SHAPE_WIN
    return 0


@_inlined
def _shape_value(tally, rules, player_who_moved):  # type: ignore[no-untyped-def]
    """Return a leaf's value to the player who has just moved, from the shapes each side
    could make next (the position's `tally`; `rules` its state's row of them: caro's, and
    which weights apply), by freestyle's or renju's fitted weights or by Wine's with the
    side to move's weighed 1.2 times (it makes its own first)."""
    decided = _shape_end(tally, rules[2], player_who_moved)
    if decided != 0:
        return decided
    mover, waiting = 3 - player_who_moved, player_who_moved
    if rules[3] != WINES_WEIGHTS:
        if rules[3] == FITTED_WEIGHTS:
            mover_values, waiting_values = FITTED_MOVER_VALUES, FITTED_WAITING_VALUES
        else:  # renju's: a row for black (X, player 1) to move, one for white
            mover_values = RENJU_FITTED_MOVER_VALUES[mover - 1]
            waiting_values = RENJU_FITTED_WAITING_VALUES[mover - 1]
        value = 0
        for column in range(1, tally.shape[1]):
            value += waiting_values[column] * tally[waiting, column]
            value -= mover_values[column] * tally[mover, column]
        return value
    # The mover's cells of two fours count as open fours, not as two fours.
    theirs = tally[mover, DOUBLE_FOURS] * (SHAPE_VALUES[OPEN_FOUR] - 2 * SHAPE_VALUES[FOUR])
    mine = 0
    for shape in range(1, 8):
        theirs += SHAPE_VALUES[shape] * tally[mover, shape]
        mine += SHAPE_VALUES[shape] * tally[waiting, shape]
    return mine - (theirs * 6) // 5


@_uncounted
def _heuristic(state, player_who_moved, misere):  # type: ignore[no-untyped-def]
    if state[11][0] == 1 and not misere:
        return _shape_value(state[10], state[11], player_who_moved)
    return _heuristic_of(state[4][0], player_who_moved, misere)


@_uncounted
def _heuristic_of(total, player_who_moved, misere):  # type: ignore[no-untyped-def]
    """Return a position's heuristic value (`total`: X's windows less O's) to the player
    who has just moved, within the heuristic limit."""
    value = total if player_who_moved == 1 else -total
    if misere:
        value = -value
    return max(-HEURISTIC_LIMIT, min(HEURISTIC_LIMIT, value))


@_uncounted
def _change_by(geometry, state, cell, player):  # type: ignore[no-untyped-def]
    """Return what `player` playing `cell` would do, without playing it: whether it
    completes a line, and how it changes the heuristic total (as `_recount` would)."""
    windows_of, weights, k = geometry[1], geometry[3], geometry[6]
    counts = state[1]
    other = 3 - player
    change = 0
    completed = False
    for slot in range(windows_of.shape[1]):
        window = windows_of[cell, slot]
        if window < 0:
            break
        before = counts[window, player]
        theirs = counts[window, other]
        if before + 1 == k and _counts(geometry, state[0], window, player):
            completed = True
        change += _value_of(weights, before + 1, theirs) - _value_of(weights, before, theirs)
    return completed, change if player == 1 else -change


@_inlined
def _leaf_value(geometry, state, move, player, ply, misere, work):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return a leaf's value to `player`, who plays `move` one ply from the leaves, without
    playing it: by the tally of shapes it would leave where the game keeps them (into the
    work's row for it), else from the window counts (`_change_by`)."""
    if state[11][0] == 1 and not misere:
        # What `_play` would find and leave for `_shape_value`, without its counts, promise,
        # near cells and hash, which no leaf reads: whether the move completes a line (a
        # five in its shapes, as `_recount` judges it), whether it fills the board, and the
        # tally of shapes (`_tally_after`).
        if _counted_makes_at_least(state, move, player, FIVE):
            return MATE - ply - 1
        if state[4][1] == 1:
            return 0  # the board is full
        after = work[4]
        _tally_after(geometry, state, move, player, after)
        return _shape_value(after, state[11], player)
    completed, change = _change_by(geometry, state, move, player)
    if completed:
        # Completing a line ends the game at once: won, or under misère lost.
        return -(MATE - ply - 1) if misere else MATE - ply - 1
    if state[4][1] == 1:
        return 0  # the board is full
    return _heuristic_of(state[4][0] + change, player, misere)


@_inlined
def _tally_after(geometry, state, move, player, after):  # type: ignore[no-untyped-def]
    """Write into `after` the tally of shapes `player` playing the empty `move` would leave,
    without playing it: what `_mark_near` and `_mark_lines` would change, worked out from
    the cells it changes (the move's own, the empty cells on its lines, the cells it brings
    near a mark) and taken from and added to the tally as it is."""
    near, cells, near_marks, tally = geometry[2], state[0], state[2], state[10]
    for side in range(3):  # a copy by hand: compiled without reference counts
        for shape in range(tally.shape[1]):
            after[side, shape] = tally[side, shape]
    fouls = state[11][1]
    if near_marks[move] > 0:  # the move's cell: taken, it makes no shape
        for side in range(1, 3):
            _count_cell(after, side, state[14][move, side], side == fouls, -1)
    _lines_after(state, move, player, after)
    for slot in range(near.shape[1]):
        other = near[move, slot]
        if other < 0:
            break
        if near_marks[other] == 0 and cells[other] == 0 and not _in_line(state, move, other):
            for side in range(1, 3):
                _count_cell(after, side, _packed(state, other, side, -1, 0), side == fouls, 1)


@_inlined
def _lines_after(state, move, player, after):  # type: ignore[no-untyped-def]
    """Count into `after` what `player` playing `move` changes of the shapes at the empty
    cells on its lines that are counted, or will be (within two of it)."""
    cells, near_marks, neighbours, keys = state[0], state[2], state[12], state[9]
    fouls = state[11][1]
    half = neighbours.shape[2] // 2
    for direction in range(4):
        for slot in range(2 * half):
            other = neighbours[move, direction, slot]
            if other < 0 or cells[other] != 0:
                continue
            # In reach of the move (within two): counted from now on if it was not.
            reached = slot < 2 or half <= slot < half + 2
            if near_marks[other] == 0 and not reached:
                continue
            mirrored = slot + half if slot < half else slot - half
            before = keys[other, direction]
            key = (before & ~(3 << (2 * mirrored))) | (player << (2 * mirrored))
            for side in range(1, 3):
                if near_marks[other] == 0:  # counted from now on, every direction
                    packed = _packed(state, other, side, direction, key)
                    _count_cell(after, side, packed, side == fouls, 1)
                else:  # counted: one direction's shape changes
                    _change_shape(state, after, other, side, before, key)


@_uncounted
def _in_line(state, move, other):  # type: ignore[no-untyped-def]
    """Return whether `other` lies within two cells of `move` on one of its lines."""
    neighbours = state[12]
    half = neighbours.shape[2] // 2
    for direction in range(4):
        for slot in (0, 1, half, half + 1):
            if neighbours[move, direction, slot] == other:
                return True
    return False


@_inlined
def _change_shape(state, tally, cell, player, old_key, new_key):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Count in `tally` the shape `player` makes at a counted cell in one direction, whose
    key changes from `old_key` to `new_key`, in place of the one it made, with the cell's
    double threats (`_tally_threats`, on the counts of its fours and threes it keeps)."""
    table = state[8]
    old, new = table[player, old_key], table[player, new_key]
    if old == new:
        return
    tally[player, old] -= 1
    tally[player, new] += 1
    fouls = state[11][1] == player
    fours, threes = state[13][cell, player, 0], state[13][cell, player, 1]
    now_fours = fours - (old == FOUR) + (new == FOUR)
    now_threes = threes - (old == OPEN_THREE) + (new == OPEN_THREE)
    tally[player, DOUBLE_FOURS] += (not fouls and now_fours >= 2) - (not fouls and fours >= 2)
    tally[player, FOUR_THREES] += (now_fours >= 1 and now_threes >= 1) - (
        fours >= 1 and threes >= 1
    )
    tally[player, DOUBLE_THREES] += (not fouls and now_threes >= 2) - (not fouls and threes >= 2)


@_inlined
def _count_cell(tally, player, packed, fouls, step):  # type: ignore[no-untyped-def]
    """Count the shapes `player` makes at a cell (`packed`: one a direction) in (1) or out
    (-1) of `tally`, with its double threats (not two fours or two threes where `fouls`:
    renju's black), as the tally counts them one direction at a time (`_tally_cell`)."""
    fours = threes = 0
    for line in range(4):
        shape = (packed >> (3 * line)) & 7
        tally[player, shape] += step
        if shape == FOUR:
            fours += 1
        elif shape == OPEN_THREE:
            threes += 1
    if not fouls and fours >= 2:
        tally[player, DOUBLE_FOURS] += step
    if fours >= 1 and threes >= 1:
        tally[player, FOUR_THREES] += step
    if not fouls and threes >= 2:
        tally[player, DOUBLE_THREES] += step

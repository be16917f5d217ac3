"""The shapes of five in a row: what a move at each cell would make of its line in each
direction for each side (an open four, a blocked three...: Wine's pattern types), read
from a table of the rule's (`shape_table`) by the cell's key, its 8 neighbours in that
direction (10 where fives are exact), kept up to date as marks come and go; the tally of
the shapes each side could make next (`_mark_lines`), and what a move makes, by its four
shapes in one look-up (`_move_value`)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from service.game.compiled.kernel import _inlined, _uncounted

#: The lines whose shapes the search keeps (every variant): five in a row.
SHAPED_K = 5

#: Which fives a table of shapes counts: five or more (freestyle); exactly five (standard);
#: exactly five the opponent has not closed at both ends (caro); black's exactly five and
#: white's five or more (renju).
FREESTYLE_SHAPES, EXACT_SHAPES, CARO_SHAPES, RENJU_SHAPES = range(4)

#: What a move makes of its line in one direction, weakest first (Wine's pattern types).
NO_SHAPE, BLOCKED_TWO, OPEN_TWO, BLOCKED_THREE, OPEN_THREE, FOUR, OPEN_FOUR, FIVE = range(8)

#: What each lesser shape adds to a move's value (Wine's: the stronger ones count alone).
LESSER_VALUES = np.array([0, 2, 5, 5, 12, 12, 0, 0], dtype=np.int64)

#: Where the tally counts the cells at which a side makes fours in two directions at once:
#: for the side to move, as good as an open four (Wine's evaluation counts it as one),
#: except black's under renju, where it is a foul.
DOUBLE_FOURS = 8

#: Where the tally counts the cells at which a side makes a four and an open three at once,
#: and those where it makes two open threes (not black's under renju: a foul). For the
#: side to move, when the other side has no four to make, either wins in five plies (a
#: four that the block cannot answer, then the open four; two threes no one stone stops),
#: as Rapfi's static win check reads them (`_shape_value`).
FOUR_THREES, DOUBLE_THREES = 9, 10

#: A neighbour's code in a cell's key: empty, X, O, off the board (2 bits each).
OFF_BOARD = 3


@njit(cache=True, nogil=True)
def _line_shape(line, player, rule):  # type: ignore[no-untyped-def]
    """Return the shape `player` makes by playing the middle of `line` (codes 0 empty, 1 X,
    2 O, 3 off the board; the middle its own), by the 5-cell windows through it: 9 cells
    for freestyle's five or more, 11 for the other rules, whose fives depend on the cells
    just beyond a window (exactly five: not the player's; caro's: not both the opponent's)."""
    middle = line.shape[0] // 2
    completion = -1
    open_four = False
    fours = threes = twos = 0
    for start in range(middle - 4, middle + 1):
        mine, empty = _window_marks(line, start, player, rule)
        if mine == 5:
            return FIVE
        if mine == 4:
            fours += 1
            if completion < 0:
                completion = empty
            elif empty != completion:
                open_four = True
        elif mine == 3:
            threes += 1
        elif mine == 2:
            twos += 1
    if open_four and rule == CARO_SHAPES and _stopped_at_once(line, player, rule):
        return FOUR  # caro: one stone closes one five and takes the other's cell
    return _shape_named(open_four, fours, threes, twos)


@njit(cache=True, nogil=True)
def _stopped_at_once(line, player, rule):  # type: ignore[no-untyped-def]
    """Return whether one stone of the opponent's on an empty cell of `line` leaves the
    player's move (the middle) no cell that completes a five with it."""
    middle = line.shape[0] // 2
    for reply in range(line.shape[0]):
        if reply == middle or line[reply] != 0:
            continue
        line[reply] = 3 - player
        left = 0
        for start in range(middle - 4, middle + 1):
            mine, _empty = _window_marks(line, start, player, rule)
            if mine == 4:
                left += 1
        line[reply] = 0
        if left == 0:
            return True
    return False


@njit(cache=True, nogil=True)
def _window_marks(line, start, player, rule):  # type: ignore[no-untyped-def]
    """Return how many of the 5 cells of `line` from `start` are the player's (the middle
    counted as its own) and one empty cell among them; (-1, -1) if the window cannot hold
    the rule's five (the opponent's mark or the edge in it, or its ends: `_may_hold_five`)."""
    if not _may_hold_five(line, start, player, rule):
        return -1, -1
    middle = line.shape[0] // 2
    mine = 0
    empty = -1
    for at in range(start, start + 5):
        code = line[at]
        if code == player or at == middle:
            mine += 1
        elif code == 0:
            empty = at
        else:
            return -1, -1
    return mine, empty


@njit(cache=True, nogil=True)
def _may_hold_five(line, start, player, rule):  # type: ignore[no-untyped-def]
    """Return whether the 5 cells of `line` from `start`, filled, would be a five by the
    rule's ends: beyond them no mark of the player's where fives are exact (an overline
    otherwise), and under caro not both the opponent's."""
    if rule == FREESTYLE_SHAPES or (rule == RENJU_SHAPES and player == 2):
        return True
    before, after = line[start - 1], line[start + 5]
    if player in (before, after):
        return False
    return rule != CARO_SHAPES or not (before == 3 - player and after == 3 - player)


@njit(cache=True, nogil=True)
def _shape_named(open_four, fours, threes, twos):  # type: ignore[no-untyped-def]
    """Return the shape a move makes, from the windows it leaves one, two and three marks
    short (a four made open when two cells complete it; a three when two windows hold it)."""
    if open_four:
        return OPEN_FOUR
    if fours > 0:
        return FOUR
    if threes > 0:
        return OPEN_THREE if threes >= 2 else BLOCKED_THREE
    if twos > 0:
        return OPEN_TWO if twos >= 3 else BLOCKED_TWO
    return NO_SHAPE


@njit(cache=True, nogil=True)
def shape_table(rule):  # type: ignore[no-untyped-def]
    """Return the shape each side makes under `rule` (FREESTYLE_SHAPES...), by player, then
    by the key of the cell's neighbours, 2 bits each, nearest the middle in the low bits of
    each side: 8 neighbours for freestyle (3 x 4^8), 10 for the others (3 x 4^10)."""
    half = 4 if rule == FREESTYLE_SHAPES else 5
    table = np.zeros((3, 4 ** (2 * half)), dtype=np.int8)
    line = np.zeros(2 * half + 1, dtype=np.int64)
    for key in range(4 ** (2 * half)):
        if not _on_a_board(key, half):
            continue  # most keys (of 4^10, seven in eight): made in 0.02 s, not 0.17
        for slot in range(2 * half):
            code = (key >> (2 * slot)) & 3
            line[_slot_place(slot, half)] = code
        for player in range(1, 3):
            table[player, key] = _line_shape(line, player, rule)
    return table


@_uncounted
def _on_a_board(key, half):  # type: ignore[no-untyped-def]
    """Return whether a key's neighbours can lie on a board: on each side, once a cell is
    off the board (3), so is every cell beyond it (the others' shapes are never read)."""
    for side in range(2):
        off = False
        for slot in range(side * half, side * half + half):
            code = (key >> (2 * slot)) & 3
            if off and code != 3:
                return False
            off = code == 3
    return True


@_uncounted
def _slot_place(slot, half):  # type: ignore[no-untyped-def]
    """Return where a key's slot lies on the line of `half` cells each side of the middle:
    slots 0 to half-1 before the middle, nearest first; the next ones after it."""
    return half - 1 - slot if slot < half else slot + 1


@_uncounted
def _tally_cell(state, cell, direction, step):  # type: ignore[no-untyped-def]
    """Count the shapes an empty cell makes in one direction in (1) or out (-1) of the
    tally, and the cells where a side makes two threats at once (`_tally_threats`)."""
    keys, table, tally, packed = state[9], state[8], state[10], state[14]
    key = keys[cell, direction]
    shift = 3 * direction
    for player in range(1, 3):
        shape = table[player, key]
        tally[player, shape] += step
        if step > 0:  # counted: its packed shapes read by the candidates and the leaves
            packed[cell, player] = (packed[cell, player] & ~(7 << shift)) | (
                np.int64(shape) << shift
            )
        if shape == FOUR:
            _tally_threats(state, cell, player, 0, step)
        elif shape == OPEN_THREE:
            _tally_threats(state, cell, player, 1, step)


@_uncounted
def _tally_threats(state, cell, player, kind, step):  # type: ignore[no-untyped-def]
    """Count a direction in which `player` makes a four (`kind` 0) or an open three (1) at
    an empty cell in (1) or out (-1), and the cell's double threats in the tally: two
    fours (DOUBLE_FOURS), a four and an open three (FOUR_THREES), two open threes
    (DOUBLE_THREES); the doubles black's fouls would be under renju are not counted."""
    made, tally = state[13], state[10]
    fouls = state[11][1] == player
    fours, threes = made[cell, player, 0], made[cell, player, 1]
    before_fours = not fouls and fours >= 2
    before_four_three = fours >= 1 and threes >= 1
    before_threes = not fouls and threes >= 2
    made[cell, player, kind] += step
    fours, threes = made[cell, player, 0], made[cell, player, 1]
    tally[player, DOUBLE_FOURS] += (not fouls and fours >= 2) - before_fours
    tally[player, FOUR_THREES] += (fours >= 1 and threes >= 1) - before_four_three
    tally[player, DOUBLE_THREES] += (not fouls and threes >= 2) - before_threes


@_inlined
def _tally_directions(state, cell, step):  # type: ignore[no-untyped-def]
    """Count the shapes an empty cell makes in every direction in (1) or out (-1), and the
    cell in (out of) the counted cells' bits; out, its packed shapes are 0, as every cell's
    are that is not counted."""
    for direction in range(4):
        _tally_cell(state, cell, direction, step)
    bit = np.int64(1) << (cell & 63)
    if step > 0:
        state[15][cell >> 6] |= bit
    else:
        state[15][cell >> 6] &= ~bit
        state[14][cell, 1] = state[14][cell, 2] = 0


@_inlined
def _mark_lines(state, cell, code):  # type: ignore[no-untyped-def]
    """Write a cell's new code (0 when emptied) into its neighbours' keys, bringing the
    tally of shapes up to date: the tally counts the empty cells near a mark (within
    two, as the candidates are), as Wine's evaluation does."""
    cells, near_marks, neighbours, keys = state[0], state[2], state[12], state[9]
    half = neighbours.shape[2] // 2
    if near_marks[cell] > 0:
        _tally_directions(state, cell, -1 if code != 0 else 1)  # taken, it makes no shape
    for direction in range(4):
        for slot in range(2 * half):
            other = neighbours[cell, direction, slot]
            if other < 0:
                continue
            # The cell lies in `other`'s key in the mirrored slot.
            mirrored = slot + half if slot < half else slot - half
            counted = cells[other] == 0 and near_marks[other] > 0
            if counted:
                _tally_cell(state, other, direction, -1)
            keys[other, direction] = (keys[other, direction] & ~(3 << (2 * mirrored))) | (
                code << (2 * mirrored)
            )
            if counted:
                _tally_cell(state, other, direction, 1)


def cell_values() -> npt.NDArray[np.int64]:
    """Return what a move makes over its four directions, by their shapes packed 3 bits
    each (Wine's move values: a five 5000; an open four or two fours 1200; a four and an
    open three 1000; two open threes 200; else a little for each lesser shape)."""
    values = np.zeros(8**4, dtype=np.int64)
    for code in range(8**4):
        shapes = [(code >> (3 * direction)) & 7 for direction in range(4)]
        if FIVE in shapes:
            values[code] = 5000
        elif OPEN_FOUR in shapes or shapes.count(FOUR) > 1:
            values[code] = 1200
        elif FOUR in shapes and OPEN_THREE in shapes:
            values[code] = 1000
        elif shapes.count(OPEN_THREE) > 1:
            values[code] = 200
        else:
            values[code] = sum(int(LESSER_VALUES[shape]) for shape in shapes)
    return values


#: What a move makes, by its four shapes packed (`cell_values`): one look-up, where
#: telling the shapes apart cost a candidate most of its time.
CELL_VALUES = cell_values()


@_uncounted
def _packed(state, cell, player, direction, key):  # type: ignore[no-untyped-def]
    """Return the shapes `player` makes at `cell` in its four directions, packed 3 bits
    each, with the key of `direction` (if not -1) taken as `key`."""
    keys, table = state[9], state[8]
    packed = np.int64(0)
    for line in range(4):
        shape = table[player, key if line == direction else keys[cell, line]]
        packed |= np.int64(shape) << (3 * line)
    return packed


@_uncounted
def _move_value(state, cell, player):  # type: ignore[no-untyped-def]
    """Return how likely a move at a counted cell (empty, near a mark: `_mark_lines`) is
    to matter: what it makes for the mover (`cell_values`), twice, and what it takes from
    the opponent; past a double threat, only the greater of the two."""
    packed = state[14]
    mine = CELL_VALUES[packed[cell, player]]
    theirs = CELL_VALUES[packed[cell, 3 - player]]
    if mine >= 200 or theirs >= 200:
        return 2 * mine if mine >= theirs else theirs
    return 2 * mine + theirs


def strongest_shapes() -> npt.NDArray[np.int64]:
    """Return the strongest of a cell's four shapes, by their shapes packed 3 bits each."""
    return np.array(
        [max((code >> (3 * direction)) & 7 for direction in range(4)) for code in range(8**4)],
        dtype=np.int64,
    )


#: The strongest shape a move makes, by its four shapes packed (`strongest_shapes`).
STRONGEST_SHAPES = strongest_shapes()


@_uncounted
def _counted_makes_at_least(state, cell, player, shape):  # type: ignore[no-untyped-def]
    """Return whether `player` playing a counted cell (empty, near a mark) makes `shape` or
    a stronger one in some direction, by its packed shapes (as `_makes_at_least`)."""
    return STRONGEST_SHAPES[state[14][cell, player]] >= shape


@_uncounted
def _makes_at_least(state, cell, player, shape):  # type: ignore[no-untyped-def]
    """Return whether `player` playing the empty `cell` makes `shape` or a stronger one
    in some direction, as its shapes show (FIVE: a five; FOUR: a four or better)."""
    keys, table = state[9], state[8]
    # A loop, not any() of a generator: compiled without reference counts, no generators.
    for direction in range(4):  # noqa: SIM110
        if table[player, keys[cell, direction]] >= shape:
            return True
    return False

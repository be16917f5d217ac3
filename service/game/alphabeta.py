"""The search, compiled by numba: the alpha-beta tree (heuristic and exact) and the threat
search (what its runs prove: `service.game.threats`). `service.game.search` and
`service.game.analysis` decide at the root in Python and call these for the rest.

The tree keeps each window's marks and each cell's promise up to date as marks come and go,
and in five in a row the shape a move at each cell would make in each direction for each
side (an open four, a blocked three...: Wine's pattern types), read from a table of the
rule's by the cell's 8 neighbours (10 where fives are exact); it tries the candidates of
`_candidates` in order of the shapes they make and stop (else of their promise and the
threats they make), values its leaves by those shapes (else by the windows), read without
playing the leaf's move, searches each move after the first with a null window
first (principal variation search), reads and writes the transposition table
(`service.game.transposition`) and reads the deadline every `CLOCK_EVERY` nodes.
The tests hold it to judges that share none of its code: brute force and the exact tables
(docs/SEARCH.md).

A position lives in a few NumPy arrays (a `Kernel`), changed in place by `_play` and `_undo`.
Every function here releases the interpreter lock while it runs (`nogil`), so that a search
leaves the other threads of its worker free to answer, and two searches in one worker each
use a core. The machine code is cached on disk (`cache=True`): next to this file, or under
`NUMBA_CACHE_DIR`, where the Docker image prepares it at build time (`python -m
service.game.warmup`). `service.game.warmup.prepare` loads it, or compiles it once (about
10 s), before any request needs it.

The functions that allocate no array and return none are compiled without reference
counts (numba's `_nrt=False`): they only borrow the arrays their callers hold, and numba
could not prune the counts of the position's tuples at each call (an atomic add and
subtract per array per call, about 45% of a node's time). The tree is one of them: its
nodes write their candidates into a row per ply of work allocated once a search (`_work`).

The deadline is read from the operating system's monotonic clock (`clock_gettime`), called
from the compiled code itself, so that the search stops on its own clock without the lock.
"""

from __future__ import annotations

import functools
import time
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from service.game.transposition import Table

#: How the functions that allocate nothing are compiled: as the others, but without
#: reference counts (numba's `_nrt=False`, an option its type stubs leave out).
_uncounted = njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]

#: Values of proven ends in the search: far above any heuristic, less the plies to them.
MATE = 1_000_000
HEURISTIC_LIMIT = MATE // 2

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

#: The deadline is read once in this many nodes. A node costs 2 to 10 µs, a look at the
#: clock 30 ns: every fourth node keeps a search within about 40 µs of its deadline (at 64 it
#: was 0.4 ms late, most of a short budget's margin) for well under 1% of its time.
CLOCK_EVERY = 4

#: What a compiled search returns when its deadline or node limit has passed.
ABORTED = -(2**62)

#: No node limit: more nodes than any search visits.
UNLIMITED_NODES = 2**62

Ints = npt.NDArray[np.int64]

#: What a window's ends mean (the last of `GeometryArrays`): its holder must not hold one
#: (PLAIN_ENDS, none listed in freestyle); nor may the opponent hold both (CARO_ENDS); only
#: black, player 1, must not hold one (RENJU_ENDS).
PLAIN_ENDS, CARO_ENDS, RENJU_ENDS = 0, 1, 2

#: A game as the compiled search takes it: windows (W x k), windows_of (cells x most, -1
#: padded), near (cells x most, -1 padded), weights, Zobrist keys (cells x 3), the centre
#: cell, k, each window's ends that its holder must not hold (W x 2, -1 padded), and what
#: the ends mean (PLAIN_ENDS, CARO_ENDS or RENJU_ENDS).
GeometryArrays = tuple[Ints, Ints, Ints, Ints, npt.NDArray[np.uint64], int, int, Ints, int]


class Kernel(NamedTuple):
    """One search's compiled state: the game's arrays, the position's, the table, the limits."""

    geometry: GeometryArrays
    #: cells, counts (W x 3), near_marks, promise, [value, empty], [hash], barred: 1 for a
    #: cell the mover at the root may not play (renju's fouls), else 0; and levels (3 x
    #: k+1): for each player and count, the windows it holds that many marks of and the
    #: other none, so that a look for lines one or two marks short skips the scan of every
    #: window when there are none; then, for the shapes (five in a row only): the rule's
    #: table of shapes (`shape_table`), each cell's key per direction (its 8 or 10
    #: neighbours), the tally of shapes each side could make (3 x 11: the shapes, then
    #: DOUBLE_FOURS, FOUR_THREES, DOUBLE_THREES), [1 if the game keeps shapes, the player
    #: whose double fours and threes are fouls or 0, 1 if one stone may stop two fives
    #: (caro)], each cell's neighbours per direction (cells x 4 x 8 or 10, -1 off the
    #: board), and the directions each side makes a four and an open three in at each cell
    #: (cells x 3 x 2).
    state: tuple[
        Ints, Ints, Ints, Ints, Ints, npt.NDArray[np.uint64], Ints, Ints,
        npt.NDArray[np.int8], Ints, Ints, Ints, Ints, Ints,
    ]  # fmt: skip
    #: The transposition table (`service.game.transposition`): read by `_probe`, written by
    #: `_store`.
    table: Table
    #: [nodes so far, the node limit, the deadline in monotonic nanoseconds, the best root
    #: move of the depth being searched (-1 until one is searched in full), its value].
    limits: Ints


@intrinsic
def _monotonic_ns(typing_context):  # type: ignore[no-untyped-def]
    """Read CLOCK_MONOTONIC in nanoseconds, by a call to the C library, without the lock."""
    del typing_context

    def codegen(context, builder, signature, arguments):  # type: ignore[no-untyped-def]
        del context, signature, arguments
        int64 = ir.IntType(64)
        timespec = ir.LiteralStructType([int64, int64])  # time_t, long: 64-bit on 64-bit
        function = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()]),
            "clock_gettime",
        )
        place = cgutils.alloca_once(builder, timespec)
        builder.call(function, [ir.Constant(ir.IntType(32), time.CLOCK_MONOTONIC), place])
        seconds = builder.load(cgutils.gep_inbounds(builder, place, 0, 0))
        nanoseconds = builder.load(cgutils.gep_inbounds(builder, place, 0, 1))
        return builder.add(builder.mul(seconds, ir.Constant(int64, 1_000_000_000)), nanoseconds)

    return types.int64(), codegen


@njit(cache=True, nogil=True)
def monotonic_ns() -> int:
    """Return the monotonic clock the compiled search reads, in nanoseconds."""
    return _monotonic_ns()  # type: ignore[call-arg]  # numba passes the context


# --- the position: play, undo and what follows from the counts ---


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


@_uncounted
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


@_uncounted
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


@_uncounted
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


@_uncounted
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


# --- shapes: what a move makes of its line in each direction, for each side ---

#: The lines whose shapes the search keeps (every variant): five in a row.
SHAPED_K = 5

#: Which fives a table of shapes counts: five or more (freestyle); exactly five (standard);
#: exactly five the opponent has not closed at both ends (caro); black's exactly five and
#: white's five or more (renju).
FREESTYLE_SHAPES, EXACT_SHAPES, CARO_SHAPES, RENJU_SHAPES = range(4)

#: What a move makes of its line in one direction, weakest first (Wine's pattern types).
NO_SHAPE, BLOCKED_TWO, OPEN_TWO, BLOCKED_THREE, OPEN_THREE, FOUR, OPEN_FOUR, FIVE = range(8)

#: What each shape a side could make next is worth at a leaf (jinjiebang/wine's weights).
SHAPE_VALUES = np.array([0, 2, 12, 18, 96, 144, 800, 1200], dtype=np.int64)

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

#: A leaf the shapes decide: a five to make, two fives against one stop, or an open four
#: (or two fours at once) to make with no five against it. Far above what the shapes of a
#: position sum to.
SHAPE_WIN = 30_000

#: The value a search of a shaped game reports as an evaluation of tanh(1): a leaf the
#: shapes decide reads about 0.99, an open three for the side to move about 0.1.
SHAPE_SCALE = 12_000

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
        for slot in range(2 * half):
            code = (key >> (2 * slot)) & 3
            line[_slot_place(slot, half)] = code
        for player in range(1, 3):
            table[player, key] = _line_shape(line, player, rule)
    return table


@_uncounted
def _slot_place(slot, half):  # type: ignore[no-untyped-def]
    """Return where a key's slot lies on the line of `half` cells each side of the middle:
    slots 0 to half-1 before the middle, nearest first; the next ones after it."""
    return half - 1 - slot if slot < half else slot + 1


@_uncounted
def _tally_cell(state, cell, direction, step):  # type: ignore[no-untyped-def]
    """Count the shapes an empty cell makes in one direction in (1) or out (-1) of the
    tally, and the cells where a side makes two threats at once (`_tally_threats`)."""
    keys, table, tally = state[9], state[8], state[10]
    key = keys[cell, direction]
    for player in range(1, 3):
        shape = table[player, key]
        tally[player, shape] += step
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


@_uncounted
def _tally_directions(state, cell, step):  # type: ignore[no-untyped-def]
    """Count the shapes an empty cell makes in every direction in (1) or out (-1)."""
    for direction in range(4):
        _tally_cell(state, cell, direction, step)


@_uncounted
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
def _cell_value(state, cell, player):  # type: ignore[no-untyped-def]
    """Return what `player` playing the empty `cell` makes (`cell_values`)."""
    return CELL_VALUES[_packed(state, cell, player, -1, 0)]


@_uncounted
def _move_value(state, cell, player):  # type: ignore[no-untyped-def]
    """Return how likely a move is to matter: what it makes for the mover, twice, and what
    it takes from the opponent; past a double threat, only the greater of the two."""
    mine = _cell_value(state, cell, player)
    theirs = _cell_value(state, cell, 3 - player)
    if mine >= 200 or theirs >= 200:
        return 2 * mine if mine >= theirs else theirs
    return 2 * mine + theirs


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


@_uncounted
def _shape_value(tally, caro, player_who_moved):  # type: ignore[no-untyped-def]
    """Return a leaf's value to the player who has just moved, from the shapes each side
    could make next (the position's `tally`; `caro` 1 under caro), the side to move's
    weighed 1.2 times (it makes its own first)."""
    decided = _shape_end(tally, caro, player_who_moved)
    if decided != 0:
        return decided
    mover, waiting = 3 - player_who_moved, player_who_moved
    # The mover's cells of two fours count as open fours, not as two fours.
    theirs = tally[mover, DOUBLE_FOURS] * (SHAPE_VALUES[OPEN_FOUR] - 2 * SHAPE_VALUES[FOUR])
    mine = 0
    for shape in range(1, 8):
        theirs += SHAPE_VALUES[shape] * tally[mover, shape]
        mine += SHAPE_VALUES[shape] * tally[waiting, shape]
    return mine - (theirs * 6) // 5


@_uncounted
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
        # whether two fives to make may both be stopped by one stone (caro).
        np.array(
            [
                1 if shaped else 0,
                1 if geometry[8] == RENJU_ENDS else 0,
                1 if geometry[8] == CARO_ENDS else 0,
            ],
            dtype=np.int64,
        ),
        neighbours,
        np.zeros((size if shaped else 0, 3, 2), dtype=np.int64),
    )
    for cell in range(size):
        if marks[cell] != 0:
            _play(geometry, state, cell, marks[cell])
    return state


@_uncounted
def _probe(table, key):  # type: ignore[no-untyped-def]
    """Return (depth, value, bound, move) stored for a position; depth 0 when none is."""
    entry = table[key & np.uint64(table.shape[0] - 1)]
    if entry.depth > 0 and entry.key == key:
        return (np.int64(entry.depth), np.int64(entry.value), np.int64(entry.bound),
                np.int64(entry.move))  # fmt: skip
    return np.int64(0), np.int64(0), np.int64(0), np.int64(-1)


@_uncounted
def _store(table, key, depth, value, bound, move):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Store what the search found of a position, in place of what its slot held."""
    entry = table[key & np.uint64(table.shape[0] - 1)]
    entry.key = key
    entry.value = value
    entry.move = move
    entry.depth = depth
    entry.bound = bound


# --- the search ---


@_uncounted
def _out_of_time(limits):  # type: ignore[no-untyped-def]
    """Count a node; return whether the node limit or the deadline has passed."""
    limits[0] += 1
    if limits[0] > limits[1]:
        return True
    return limits[0] % CLOCK_EVERY == 0 and _monotonic_ns() >= limits[2]  # type: ignore[call-arg]  # numba passes it


@_uncounted
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
            worth = promise[cell]
            if state[11][0] == 1 and not misere and not exact:
                worth = _move_value(state, cell, player) * 100_000 + min(worth, 99_999)
            elif shaped and not misere and not exact:
                worth += SHAPE_WEIGHT * (
                    2 * _shape(geometry, state, cell, player, scratch)
                    + _shape(geometry, state, cell, 3 - player, scratch)
                )
            kept = _keep_best(keys, kept, -worth * size + cell)  # by (-worth, cell)
    for at in range(kept):
        row[at] = keys[at] % size  # the cell: the key's remainder (floored)
    _hint_first(row[:kept], hint)
    return kept


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
def _may_complete(geometry, state, player):  # type: ignore[no-untyped-def]
    """Return whether `player` holds a window one mark short, by the levels: else
    `_completing` would find no cell."""
    return state[7][player, geometry[6] - 1] > 0


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
def _foul_shapes(state, cell):  # type: ignore[no-untyped-def]
    """Return what black playing `cell` makes, as its shapes show them: (whether a five,
    how many fours (two in a line whose two cells that complete five are not the ends of
    four in a row: X.XXX.X played in the middle), the directions holding an open three as
    bits, whether an overline)."""
    keys, table = state[9], state[8]
    half = state[12].shape[2] // 2
    five = overline = False
    fours = threes = 0
    for direction in range(4):
        key = keys[cell, direction]
        shape = table[1, key]
        five = five or shape == FIVE
        if shape == OPEN_FOUR and _black_run(key, half) < 4:
            fours += 2  # two cells complete five, each its own four: a double four in one line
        elif FOUR <= shape < FIVE:
            fours += 1
        elif shape == OPEN_THREE:
            threes |= 1 << direction
        overline = overline or _black_run(key, half) >= 6
    return five, fours, threes, overline


@_uncounted
def _shape_foul(state, cell):  # type: ignore[no-untyped-def]
    """Return whether black playing `cell` makes two fours (in one line or two) or two open
    threes, as its shapes show them, or an overline, and no five: renju's double four,
    double three and overline, with threes read without the recursive definition of a three
    (the root's fouls are judged in full), so that no foul passes: more cells than the
    fouls (a three that only looks like one), never fewer."""
    five, fours, threes, overline = _foul_shapes(state, cell)
    return not five and (fours >= 2 or _directions(threes) >= 2 or overline)


@_uncounted
def _directions(bits):  # type: ignore[no-untyped-def]
    """Return how many of the four directions `bits` holds."""
    return (bits & 1) + (bits >> 1 & 1) + (bits >> 2 & 1) + (bits >> 3 & 1)


@_uncounted
def _black_run(key, half):  # type: ignore[no-untyped-def]
    """Return how long a row of black's marks a black stone makes in the middle of a key's
    line (`half` cells each side, nearest first: `_slot_place`)."""
    run = 1
    for first in (0, half):
        for slot in range(first, first + half):
            if (key >> (2 * slot)) & 3 != 1:
                break
            run += 1
    return run


@_uncounted
def _without_fouls(state, chosen, count):  # type: ignore[no-untyped-def]
    """Take black's fouls (`_shape_foul`) out of the chosen cells, unless that leaves none;
    return how many are chosen."""
    found = 0
    for cell in range(chosen.shape[0]):
        if chosen[cell] == 1 and _shape_foul(state, cell):
            chosen[cell] = 2  # a foul: marked in place, where an array of them cost an allocation
            found += 1
    if found == 0:
        return count
    left = 1 if found == count else 0  # every candidate a foul: they all stay
    for cell in range(chosen.shape[0]):
        if chosen[cell] == 2:
            chosen[cell] = left
    return count if found == count else count - found


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


@_uncounted
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
    if state[7][opponent, k - 2] == 0 or not _may_make_open_four(state, opponent):
        # No window of the opponent's two marks short, or no cell where its shapes show
        # two fives: no scan.
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


@_uncounted
def _heuristic(state, player_who_moved, misere):  # type: ignore[no-untyped-def]
    if state[11][0] == 1 and not misere:
        return _shape_value(state[10], state[11][2], player_who_moved)
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


@_uncounted
def _settled(stored_depth, stored_value, bound, depth, alpha, beta):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return whether what the table holds of a position settles it at this depth and
    window: stored as deep, and exact or a bound beyond the window."""
    if stored_depth < depth:
        return False
    return (
        bound == 0 or (bound < 0 and stored_value <= alpha) or (bound > 0 and stored_value >= beta)
    )


@_uncounted
def _leaf_value(geometry, state, move, player, ply, misere, work):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return a leaf's value to `player`, who plays `move` one ply from the leaves, without
    playing it: by the tally of shapes it would leave where the game keeps them (into the
    work's row for it), else from the window counts (`_change_by`)."""
    if state[11][0] == 1 and not misere:
        # What `_play` would find and leave for `_shape_value`, without its counts, promise,
        # near cells and hash, which no leaf reads: whether the move completes a line (a
        # five in its shapes, as `_recount` judges it), whether it fills the board, and the
        # tally of shapes (`_tally_after`).
        if _makes_at_least(state, move, player, FIVE):
            return MATE - ply - 1
        if state[4][1] == 1:
            return 0  # the board is full
        after = work[4]
        _tally_after(geometry, state, move, player, after)
        return _shape_value(after, state[11][2], player)
    completed, change = _change_by(geometry, state, move, player)
    if completed:
        # Completing a line ends the game at once: won, or under misère lost.
        return -(MATE - ply - 1) if misere else MATE - ply - 1
    if state[4][1] == 1:
        return 0  # the board is full
    return _heuristic_of(state[4][0] + change, player, misere)


@_uncounted
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
            _count_cell(after, side, _packed(state, move, side, -1, 0), side == fouls, -1)
    _lines_after(state, move, player, after)
    for slot in range(near.shape[1]):
        other = near[move, slot]
        if other < 0:
            break
        if near_marks[other] == 0 and cells[other] == 0 and not _in_line(state, move, other):
            for side in range(1, 3):
                _count_cell(after, side, _packed(state, other, side, -1, 0), side == fouls, 1)


@_uncounted
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


@_uncounted
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


@_uncounted
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


@_uncounted
def _best_leaf(geometry, state, moves, count, player, alpha, beta, ply, misere, work):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return (value, move) of the best of the first `count` of `moves` one ply from the
    leaves (`_leaf_value`), stopping at a cut as the tree does."""
    best_value = -MATE - 1
    best_move = moves[0]
    for at in range(count):
        move = moves[at]
        value = _leaf_value(geometry, state, move, player, ply, misere, work)
        if value > best_value:
            best_value = value
            best_move = move
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best_value, best_move


@_uncounted
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


@_uncounted
def _decided(geometry, state, player, depth, ply, misere, exact):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return the value to `player`, to move at a node below the root and above the leaves,
    of a position its shapes decide as a leaf's are (`_shape_end`: an open four, two
    fours, a four and an open three, or two open threes to make, none answered), so that
    the tree does not search what it would read as won or lost one ply lower (Rapfi's
    static win check at every node); 0 if they do not, or where a five is to be made
    (the tree finds that end, and proves it, in a ply or two). Under renju, also one ply
    from the leaves: black lost where white's one five is to be made on black's foul; and
    black's open four to make decides only where one is no foul by its shapes."""
    if ply == 0 or misere or exact or state[11][0] == 0:
        return 0
    tally = state[10]
    if tally[player, FIVE] > 0:
        return 0
    fouls = state[11][1] == player  # renju's black
    if fouls and tally[3 - player, FIVE] > 0 and _blocked_by_a_foul(geometry, state, player):
        # One ply from the leaves too: whether black blocks (a foul, which loses at once)
        # or not (the five), it has lost.
        return -SHAPE_WIN
    if depth <= 1 or tally[3 - player, FIVE] >= 2:
        return 0
    # Turned round from the player who has just moved.
    decided = -_shape_end(state[10], state[11][2], 3 - player)
    if decided > 0 and fouls and tally[player, OPEN_FOUR] > 0 and not _open_four_for_black(state):
        # The tally reads black's open four to make where it may be a foul (X.XXX.X's
        # middle among them): searched, not read as won.
        return 0
    return decided


@_uncounted
def _open_four_for_black(state):  # type: ignore[no-untyped-def]
    """Return whether black has an empty cell where its shapes show an open four (or
    better: where `_decided` asks, black has no five to make) and no foul (`_shape_foul`)."""
    cells = state[0]
    for cell in range(cells.shape[0]):
        if (
            cells[cell] == 0
            and _makes_at_least(state, cell, 1, OPEN_FOUR)
            and not _shape_foul(state, cell)
        ):
            return True
    return False


@_uncounted
def _blocked_by_a_foul(geometry, state, player):  # type: ignore[no-untyped-def]
    """Return whether the opponent has one cell to make a five, and it is `player`'s foul
    (renju's black: `_blocking_foul`), so that `player` cannot stop it."""
    cells, table, keys = state[0], state[8], state[9]
    opponent = 3 - player
    found = -1
    for cell in range(cells.shape[0]):
        if cells[cell] != 0:
            continue
        for direction in range(4):
            if table[opponent, keys[cell, direction]] == FIVE:
                if found >= 0:
                    return False  # two cells: the tree finds that loss by itself
                found = cell
                break
    return found >= 0 and _blocking_foul(geometry, state, found)


@_uncounted
def _blocking_foul(geometry, state, cell):  # type: ignore[no-untyped-def]
    """Return whether black's stone on `cell` is a foul, read so that only fouls are called
    fouls: two fours (in two directions or in one line) or an overline, as the shapes show
    them exactly, or two threes as the renju rules define them, one level deep: a three
    counts only if one more stone makes a straight four through `cell`
    (`_straight_four_with`) on a cell that makes no five and is no foul by its shapes
    (which see every foul there: the straight four is a four, so a second four in any line
    is two)."""
    five, fours, threes, overline = _foul_shapes(state, cell)
    if five:
        return False
    if fours >= 2 or overline:
        return True  # a double four or an overline: read exactly from the shapes
    if _directions(threes) < 2:
        return False
    neighbours = state[12]
    _play(geometry, state, cell, 1)
    real = 0
    for direction in range(4):
        if threes >> direction & 1 == 0:
            continue
        for slot in range(neighbours.shape[2]):
            other = neighbours[cell, direction, slot]
            if (
                other >= 0
                and state[0][other] == 0
                and _straight_four_with(state, cell, direction, slot)
                and _free_for_black(state, other)
            ):
                real += 1
                break
    _undo(geometry, state, cell)
    return real >= 2


@_uncounted
def _straight_four_with(state, cell, direction, slot):  # type: ignore[no-untyped-def]
    """Return whether a black stone on the empty neighbour `slot` of black's `cell` along
    `direction` (`_neighbours`' places) makes four in a row through both, whose two ends
    are empty and each make exactly five (no black stone beyond them)."""
    cells, line = state[0], state[12][cell, direction]
    half = line.shape[0] // 2
    other = line[slot]
    cells[other] = 1
    back = 0
    while back < half and line[back] >= 0 and cells[line[back]] == 1:
        back += 1
    forward = 0
    while forward < half and line[half + forward] >= 0 and cells[line[half + forward]] == 1:
        forward += 1
    cells[other] = 0
    within = slot < back if slot < half else slot - half < forward
    return (
        within
        and back + forward == 3
        and _open_end(cells, line, back, 0, half)
        and _open_end(cells, line, forward, half, half)
    )


@_uncounted
def _open_end(cells, line, run, first, half):  # type: ignore[no-untyped-def]
    """Return whether the cell after a run of `run` black stones on one side of a line
    (its places from `first`, nearest first) is empty, and the one beyond it no black
    stone's: black there makes exactly five."""
    end = line[first + run]
    if end < 0 or cells[end] != 0:
        return False
    if run + 1 >= half:
        return False  # beyond the cells kept: not known, so not counted
    beyond = line[first + run + 1]
    return beyond < 0 or cells[beyond] != 1


@_uncounted
def _free_for_black(state, cell):  # type: ignore[no-untyped-def]
    """Return whether black playing `cell` makes no five and is no foul by its shapes: a
    three's extension that black may play for a straight four."""
    five, fours, threes, overline = _foul_shapes(state, cell)
    return not five and fours < 2 and _directions(threes) < 2 and not overline


@njit(cache=True, nogil=True)
def decided(geometry, state, player, depth, ply, misere):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return what the tree reads as decided at a node without searching it (`_decided`),
    or 0: for the tree shared between threads, which the one thread's nodes must match."""
    exact = False  # a search shared between threads is never exact (`Search`)
    return _decided(geometry, state, player, depth, ply, misere, exact)


@njit(cache=True, nogil=True)
def out_of_time(limits):  # type: ignore[no-untyped-def]
    """Count a node; return whether the node limit or the deadline has passed
    (`_out_of_time`): for the tree shared between threads, whose nodes count as one
    thread's do."""
    return _out_of_time(limits)


@njit(cache=True, nogil=True)
def settled_value(table, state, depth, alpha, beta):  # type: ignore[no-untyped-def]
    """Return (True, value) when the table settles the position at this depth and window
    (`_settled`), else (False, 0): for the tree shared between threads, whose nodes below
    the root must read the table as one thread's do."""
    stored_depth, stored_value, bound, _move = _probe(table, state[5][0])
    if _settled(stored_depth, stored_value, bound, depth, alpha, beta):
        return True, stored_value
    return False, np.int64(0)


@njit(cache=True, nogil=True)
def store_node(table, state, depth, value, bound, move):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Store a node's value, its bound (-1 at most, 0 exact, 1 at least) and best move, as
    one thread's node does when it is done: for the tree shared between threads."""
    _store(table, state[5][0], depth, value, bound, move)


#: Late-move reductions: from a node's REDUCED_FROM-th move on (the first is 0), at least
#: REDUCED_FROM_DEPTH plies from the leaves and below the root, a quiet move (its move
#: value, `_move_value` on Wine's scale, under QUIET_BELOW: it makes and stops no five,
#: open four or double threat, and its lesser shapes sum to little; and it neither makes a
#: four nor takes the cell of one of the opponent's, `_makes_at_least`) is searched
#: REDUCED_PLIES shallower, with a null window, and again at full depth if it may raise
#: alpha. Two plies, not one, so that the search below ends
#: on the same side's move as the unreduced one: the shapes value a position very
#: differently for the side to move, and by one ply 15 % of the reduced moves failed high
#: (docs/STRENGTH.md). Three plies from the leaves the reduced move's reply is searched as
#: a leaf's parent (depth 0 reads as 1): one ply less there, as measured.
REDUCED_FROM = 3
REDUCED_FROM_DEPTH = 3
REDUCED_PLIES = 2
QUIET_BELOW = 96


@_uncounted
def _reduction(state, move, player, at, depth, ply, misere, exact):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return the plies by which the tree searches the `at`-th move of a node shallower
    (REDUCED_PLIES for a late quiet move, where the game keeps shapes), else 0."""
    if at < REDUCED_FROM or depth < REDUCED_FROM_DEPTH or ply == 0 or misere or exact:
        return 0
    if state[11][0] == 0 or _move_value(state, move, player) >= QUIET_BELOW:
        return 0
    if _makes_at_least(state, move, player, FOUR) or _makes_at_least(state, move, 3 - player, FOUR):
        # A single four is worth little on Wine's scale, but reduced it may leave the
        # defence short (docs/STRENGTH.md): fours made and stopped keep their depth.
        return 0
    return REDUCED_PLIES


@njit(cache=True, nogil=True)
def reduction(state, move, player, at, depth, ply, misere):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return by how many plies the tree searches a node's `at`-th move shallower
    (`_reduction`): for the tree shared between threads, whose nodes must match."""
    exact = False  # a search shared between threads is never exact (`Search`)
    return _reduction(state, move, player, at, depth, ply, misere, exact)


@_uncounted
# Forced ends, the first move and the later ones, and the abort: hence the branches.
def _negamax(  # type: ignore[no-untyped-def]  # noqa: PLR0912, PLR0917
    geometry, state, table, player, depth, alpha, beta, ply, misere, exact, limits, work
):
    if _out_of_time(limits):
        return ABORTED
    original_alpha = alpha
    key = state[5][0]
    # Nothing stored reads as depth 0 and hint -1: below any depth searched, no move.
    stored_depth, stored_value, bound, hint = _probe(table, key)
    if ply > 0 and _settled(stored_depth, stored_value, bound, depth, alpha, beta):
        return stored_value
    decided = _decided(geometry, state, player, depth, ply, misere, exact)
    if decided != 0:
        return decided
    count = _node_moves(geometry, state, player, hint, depth, ply, misere, exact, work)
    moves = work[0][ply]  # this ply's row: the plies below write only theirs
    if depth <= 1:
        best_value, best_move = _best_leaf(
            geometry, state, moves, count, player, alpha, beta, ply, misere, work
        )
    else:
        best_value = -MATE - 1
        best_move = moves[0]
    for at in range(count if depth > 1 else 0):
        move = moves[at]
        reduction = _reduction(state, move, player, at, depth, ply, misere, exact)
        if _play(geometry, state, move, player):
            # Completing a line ends the game at once: won, or under misère lost.
            value = -(MATE - ply - 1) if misere else MATE - ply - 1
        elif state[4][1] == 0:
            value = 0
        else:
            # Principal variation search: each move after the first is first shown not to
            # beat the best so far (a null window), and searched again in full only if it does.
            # A late quiet move is first searched shallower (`_reduction`), and again at
            # full depth if it may raise alpha.
            first_beta = beta if at == 0 else alpha + 1
            deeper = _negamax(
                geometry, state, table, 3 - player, depth - 1 - reduction, -first_beta,
                -alpha, ply + 1, misere, exact, limits, work,
            )  # fmt: skip
            if reduction > 0 and deeper != ABORTED and -deeper > alpha:
                deeper = _negamax(
                    geometry, state, table, 3 - player, depth - 1, -first_beta, -alpha, ply + 1,
                    misere, exact, limits, work,
                )  # fmt: skip
            if deeper != ABORTED and first_beta < beta and alpha < -deeper < beta:
                deeper = _negamax(
                    geometry, state, table, 3 - player, depth - 1, -beta, -alpha, ply + 1,
                    misere, exact, limits, work,
                )  # fmt: skip
            if deeper == ABORTED:
                _undo(geometry, state, move)
                return ABORTED
            value = -deeper
        _undo(geometry, state, move)
        if value > best_value:
            best_value = value
            best_move = move
            if ply == 0:
                # Searched in full (the first move) or shown better than every move before
                # it: the move to play if the deadline stops this depth.
                limits[3], limits[4] = move, value
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    bound = -1 if best_value <= original_alpha else (1 if best_value >= beta else 0)
    _store(table, key, depth, best_value, bound, best_move)
    return best_value


@njit(cache=True, nogil=True)
def root_value(geometry, state, table, mover, depth, misere, exact, limits):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Search the position `depth` plies deep; return (value, move), or (ABORTED, -1)."""
    # The ply as a plain int64, as the recursion passes it: a literal 0 would compile a
    # second negamax calling the first, which numba's cache cannot link (numba#6061).
    ply = np.int64(0)
    limits[3] = -1  # no root move of this depth searched yet
    value = _negamax(geometry, state, table, mover, depth, -MATE - 1, MATE + 1, ply, misere,
                     exact, limits, _work(state, depth + 1))  # fmt: skip
    if value == ABORTED:
        return ABORTED, -1
    return value, _probe(table, state[5][0])[3]  # the root, stored last, is always there


@njit(cache=True, nogil=True)
def value_after(geometry, state, table, move, mover, depth, misere, exact, limits):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return a move's value searched `depth` plies deep, the move included, or ABORTED."""
    limits[0] += 1  # not a look at the clock: one ply must always finish
    _play(geometry, state, move, mover)
    if depth <= 1:
        value = _heuristic(state, mover, misere)
    else:
        ply = np.int64(1)  # not a literal: see root_value
        value = _negamax(geometry, state, table, 3 - mover, depth - 1, -MATE - 1, MATE + 1, ply,
                         misere, exact, limits, _work(state, depth + 1))  # fmt: skip
        if value != ABORTED:
            value = -value
    _undo(geometry, state, move)
    return value


# --- the tree shared between threads (`Search` with `threads`): its nodes one at a time ---


@njit(cache=True, nogil=True)
def node_moves(geometry, state, table, player, depth, ply, misere):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return the moves the tree tries at a node `ply` plies below the root, `depth` from
    its leaves, in its order (the table's move first; at the root, never a barred cell)."""
    work = _work(state, ply + 1)
    hint = _probe(table, state[5][0])[3]
    exact = False  # a search shared between threads is never exact (`Search`)
    count = _node_moves(geometry, state, player, hint, depth, ply, misere, exact, work)
    return work[0][ply][:count].copy()


@njit(cache=True, nogil=True)
def node_value(geometry, state, table, player, depth, alpha, beta, ply, misere, exact, limits):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return the tree's value of a node `ply` plies below the root, `depth` from its
    leaves, within (`alpha`, `beta`), for `player` to move; or ABORTED."""
    # `exact` as the caller's argument, never a literal: a literal would compile a second
    # negamax, which numba's cache cannot link (see root_value).
    return _negamax(geometry, state, table, player, depth, alpha, beta, ply, misere, exact,
                    limits, _work(state, ply + depth + 1))  # fmt: skip


@njit(cache=True, nogil=True)
def move_value(  # type: ignore[no-untyped-def]  # noqa: PLR0917
    geometry, state, table, move, player, depth, alpha, beta, ply, misere, exact, limits
):
    """Return the value of `player` playing `move` at a node `ply` plies below the root,
    `depth` from its leaves, within (`alpha`, `beta`), as the node's loop finds it (an end
    at once, else the reply's value turned round); or ABORTED."""
    if _play(geometry, state, move, player):
        value = -(MATE - ply - 1) if misere else MATE - ply - 1
    elif state[4][1] == 0:
        value = 0
    else:
        value = _negamax(geometry, state, table, 3 - player, depth - 1, -beta, -alpha, ply + 1,
                         misere, exact, limits, _work(state, ply + depth + 1))  # fmt: skip
        if value != ABORTED:
            value = -value
    _undo(geometry, state, move)
    return value


@njit(cache=True, nogil=True)
def play_move(geometry, state, move, player):  # type: ignore[no-untyped-def]
    """Play `move` for `player` in a compiled position; return whether it completes a line."""
    return _play(geometry, state, move, player)


@njit(cache=True, nogil=True)
def undo_move(geometry, state, move):  # type: ignore[no-untyped-def]
    """Take `move` back in a compiled position."""
    _undo(geometry, state, move)


@njit(cache=True, nogil=True)
def likeliest_moves(geometry, state, mover, misere, forced):  # type: ignore[no-untyped-def]
    """Return the moves the heuristic tree tries first at the root, in its order (with
    `forced`, only the forced ones when there are any: `_candidates`)."""
    ply = np.int64(0)  # not a literal, as the tree passes it (see root_value)
    work = _work(state, ply + 1)
    count = _candidates(geometry, state, mover, -1, misere, False, True, forced, work, ply)
    return work[0][0, :count].copy()


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


@njit(cache=True, nogil=True)
def expected_line(geometry, state, table, move, mover, depth):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return a move and the replies the table holds best after it, up to `depth` plies."""
    cells = state[0]
    played = np.empty(depth, dtype=np.int64)
    played[0] = move
    count = 1
    player = mover
    ended = _play(geometry, state, move, player)
    while not ended and state[4][1] > 0 and count < depth:
        player = 3 - player
        stored_depth, _value, _bound, reply = _probe(table, state[5][0])
        if stored_depth == 0 or cells[reply] != 0:
            break
        played[count] = reply
        count += 1
        ended = _play(geometry, state, reply, player)
    for at in range(count - 1, -1, -1):
        _undo(geometry, state, played[at])
    return played[:count]


# --- the threat search (what its runs prove: service.game.threats) ---


@njit(cache=True, nogil=True)
def _four_makers(geometry, state, attacker):  # type: ignore[no-untyped-def]
    """Return the empty cells of the windows one mark short of a four, ascending: every
    cell where `attacker` makes a four lies in one."""
    windows, k = geometry[0], geometry[6]
    cells, counts = state[0], state[1]
    if state[7][attacker, k - 2] == 0:
        return np.empty(0, dtype=np.int64)
    marked = np.zeros(cells.shape[0], dtype=np.bool_)
    found = 0
    for window in range(windows.shape[0]):
        if counts[window, attacker] == k - 2 and counts[window, 3 - attacker] == 0:
            for member in range(k):
                cell = windows[window, member]
                if cells[cell] == 0 and not marked[cell]:
                    marked[cell] = True
                    found += 1
    result = np.empty(found, dtype=np.int64)
    at = 0
    for cell in range(cells.shape[0]):
        if marked[cell]:
            result[at] = cell
            at += 1
    return result


@njit(cache=True, nogil=True)
def _fours(geometry, state, attacker, moves_left, limits):  # type: ignore[no-untyped-def]
    """Return (plies, first move) of a win by at most `moves_left` fours: (0, -1) for none,
    (ABORTED, -1) out of time. On entry nothing of the defender's completes a line."""
    defender = 3 - attacker
    candidates = _four_makers(geometry, state, attacker)
    for at in range(candidates.shape[0]):
        cell = candidates[at]
        if _out_of_time(limits):
            return ABORTED, -1
        if _foul_for(geometry, state, attacker, cell):
            continue  # under renju, read so that no foul passes: what the run proves holds
        plies = 0
        if _play(geometry, state, cell, attacker):
            plies = 1
        else:
            blocks = _completing_cells(geometry, state, attacker)
            if _unstoppable(geometry, state, attacker, blocks) and state[4][1] >= 2:
                plies = 3  # two cells to stop (one stays), or one black may not play
            elif blocks.shape[0] == 1 and moves_left > 1 and state[4][1] >= 2:
                _play(geometry, state, blocks[0], defender)
                # The forced block must not let the defender win next, nor fill the board.
                if _completing_cells(geometry, state, defender).shape[0] == 0 and state[4][1] > 0:
                    deeper, _first = _fours(geometry, state, attacker, moves_left - 1, limits)
                    if deeper == ABORTED:
                        _undo(geometry, state, blocks[0])
                        _undo(geometry, state, cell)
                        return ABORTED, -1
                    if deeper > 0:
                        plies = deeper + 2
                _undo(geometry, state, blocks[0])
        _undo(geometry, state, cell)
        if plies > 0:
            return plies, cell
    return 0, -1


@_uncounted
def _unstoppable(geometry, state, attacker, blocks):  # type: ignore[no-untyped-def]
    """Return whether the defender, to move, cannot stop the attacker's line at its cells
    that complete one (`blocks`): two or more, or under renju white's one where black's
    stone is a foul (`_blocking_foul`, which calls only fouls fouls)."""
    if blocks.shape[0] >= 2:
        return True
    return (
        blocks.shape[0] == 1
        and attacker == 2
        and geometry[8] == RENJU_ENDS
        and _blocking_foul(geometry, state, blocks[0])
    )


@njit(cache=True, nogil=True)
def _foul_for(geometry, state, player, cell):  # type: ignore[no-untyped-def]
    """Return whether `player` playing the empty `cell` may be a foul: under renju, black's
    that `_shape_foul` refuses; never anyone else's."""
    return player == 1 and geometry[8] == RENJU_ENDS and _shape_foul(state, cell)


@njit(cache=True, nogil=True)
def shortest_run_of_fours(geometry, state, _table, attacker, most_moves, limits):  # type: ignore[no-untyped-def]
    """Return (plies, first move) of the shortest win by at most `most_moves` fours: (0, -1)
    for none, or when the defender has a line to complete; (ABORTED, -1) out of time."""
    # `_table` is unused: taken as every function called through a Kernel takes it.
    if _completing_cells(geometry, state, 3 - attacker).shape[0] > 0:
        return 0, -1
    for moves in range(1, most_moves + 1):
        plies, first = _fours(geometry, state, attacker, moves, limits)
        if plies != 0:
            return plies, first
    return 0, -1


@njit(cache=True, nogil=True)
def _threat_moves(geometry, state, attacker, threes, last):  # type: ignore[no-untyped-def]
    """Return the empty cells where `attacker` may make a four (in a window two marks
    short of a line, none of the defender's), then, with `threes`, those where it may make
    a three (three marks short) on a line through its `last` move (any, if -1): in
    ascending order each. Under renju none of black's that may be a foul (`_shape_foul`)."""
    windows, k = geometry[0], geometry[6]
    cells, counts, levels = state[0], state[1], state[7]
    size = cells.shape[0]
    level = np.zeros(size, dtype=np.int64)  # 2: a four may be made here; 1: a three
    if levels[attacker, k - 2] > 0 or (threes and levels[attacker, k - 3] > 0):
        for window in range(windows.shape[0]):
            mine = counts[window, attacker]
            if counts[window, 3 - attacker] != 0:
                continue
            made = 2 if mine == k - 2 else (1 if threes and mine == k - 3 else 0)
            if made == 0:
                continue
            for member in range(k):
                cell = windows[window, member]
                if cells[cell] == 0 and level[cell] < made:
                    level[cell] = made
    if last >= 0:
        _threes_near(state, level, last)
    found = np.empty(size, dtype=np.int64)
    count = 0
    for made in (2, 1):
        for cell in range(size):
            if level[cell] == made and not _foul_for(geometry, state, attacker, cell):
                found[count] = cell
                count += 1
    return found[:count]


@njit(cache=True, nogil=True)
def _open_four_to_make(geometry, state, attacker):  # type: ignore[no-untyped-def]
    """Return whether `attacker` has a move that leaves two cells completing a line, under
    renju one of black's that `_shape_foul` lets through: the threat of an open four is
    real, and stays so whatever the defender plays off its windows (that reading calls
    every foul a foul, and a white stone only takes shapes from black)."""
    candidates = _four_makers(geometry, state, attacker)
    for at in range(candidates.shape[0]):
        cell = candidates[at]
        if _makes_open_four(geometry, state, cell, attacker) and not _foul_for(
            geometry, state, attacker, cell
        ):
            return True
    return False


@njit(cache=True, nogil=True)
def _threes_near(state, level, last):  # type: ignore[no-untyped-def]
    """Drop the threes (level 1) off the lines through the attack's `last` move: the
    attack keeps to the lines it is building, which keeps its breadth small."""
    neighbours = state[12]
    if neighbours.shape[0] == 0:
        return  # no neighbours kept (lines of other than five): every three stays
    near = np.zeros(level.shape[0], dtype=np.bool_)
    for direction in range(4):
        for slot in range(neighbours.shape[2]):
            other = neighbours[last, direction, slot]
            if other >= 0:
                near[other] = True
    for cell in range(level.shape[0]):
        if level[cell] == 1 and not near[cell]:
            level[cell] = 0


@_uncounted
def _open_four_among(geometry, state, attacker, candidates):  # type: ignore[no-untyped-def]
    """Return whether `attacker` makes two or more cells that complete a line (an open
    four, or two fours) at one of the `candidates`."""
    for at in range(candidates.shape[0]):
        if _makes_open_four(geometry, state, candidates[at], attacker):
            return True
    return False


@njit(cache=True, nogil=True)
# The attacker's turn and the defender's in one body: hence the branches.
def _threats(geometry, state, attacker, threes, moves_left, last, attacking, limits):  # type: ignore[no-untyped-def]  # noqa: PLR0911, PLR0912, PLR0917
    """Return the plies of `attacker`'s win by threats (fours, and at most `threes`
    threes) of at most `moves_left` moves against every defence: 0 for none found,
    ABORTED out of time. With `attacking` 1 the attacker is to move, and the defender has
    no line to complete; with 0 the defender is to move, after a threat. One function for
    both turns: numba's cache cannot link two functions that call each other.

    Against a four the block is the only defence (under renju none, where it is black's
    foul: `_unstoppable`); against the threat of an open four, every cell of its windows and
    every four of the defender's (`_answers_to_open_fours`): any other move lets the open
    four be made, and the defender has no line to complete.
    A four of the defender's is blocked, and the defender moves again. Under renju black
    neither threatens nor blocks with a cell that may be a foul (`_shape_foul`)."""
    defender = 3 - attacker
    # The turns as plain int64s, as the calls pass them: a literal would compile a second
    # function calling the first, which numba's cache cannot link (numba#6061).
    defending, attacks = np.int64(0), np.int64(1)
    if attacking == 1:
        if _completing_cells(geometry, state, attacker).shape[0] > 0:
            return 1
        if moves_left == 0:
            return 0
        candidates = _threat_moves(geometry, state, attacker, threes > 0, last)
        if _open_four_among(geometry, state, attacker, candidates):
            return 3  # the shortest win from here: any other takes a four or three more
        for at in range(candidates.shape[0]):
            cell = candidates[at]
            if _out_of_time(limits):
                return ABORTED
            _play(geometry, state, cell, attacker)  # completes nothing: no cell did
            plies = 0
            fours = _completing_cells(geometry, state, attacker).shape[0]
            if state[4][1] > 0 and (fours > 0 or threes > 0):
                # A four costs no three; anything else is tried as a three (the defender's
                # turn finds whether it threatens an open four).
                spent = 0 if fours > 0 else 1
                plies = _threats(
                    geometry,
                    state,
                    attacker,
                    threes - spent,
                    moves_left - 1,
                    cell,
                    defending,
                    limits,
                )
            _undo(geometry, state, cell)
            if plies == ABORTED:
                return ABORTED
            if plies > 0:
                return plies + 1
        return 0
    if _completing_cells(geometry, state, defender).shape[0] > 0:
        return 0  # the defender completes its line first
    wins = _completing_cells(geometry, state, attacker)
    if _unstoppable(geometry, state, attacker, wins):
        return 2  # one block and the other cell completes the line, or no block
    size = state[0].shape[0]
    chosen = np.zeros(size, dtype=np.int64)
    if wins.shape[0] == 1:
        chosen[wins[0]] = 1
    elif not _threatened(geometry, state, attacker, chosen):
        return 0  # the defender is free
    longest = 0
    for reply in range(size):
        if chosen[reply] == 0:
            continue
        if _out_of_time(limits):
            return ABORTED
        _play(geometry, state, reply, defender)  # completes nothing: no cell did
        plies = 0
        counter = _completing_cells(geometry, state, defender)
        if (
            state[4][1] == 0
            or counter.shape[0] >= 2
            or (counter.shape[0] == 1 and _foul_for(geometry, state, attacker, counter[0]))
        ):
            plies = 0  # a draw, or the defender's five the attacker cannot stop (a foul)
        elif counter.shape[0] == 1:
            block = counter[0]
            _play(geometry, state, block, attacker)  # completes nothing: it had no line
            if state[4][1] > 0:
                plies = _threats(
                    geometry, state, attacker, threes, moves_left, last, defending, limits
                )
                if plies > 0:
                    plies += 1
            _undo(geometry, state, block)
        else:
            plies = _threats(geometry, state, attacker, threes, moves_left, last, attacks, limits)
        _undo(geometry, state, reply)
        if plies <= 0:
            return plies  # ABORTED, or this defence escapes
        longest = max(longest, plies + 1)
    return longest


@njit(cache=True, nogil=True)
def _threatened(geometry, state, attacker, chosen):  # type: ignore[no-untyped-def]
    """Return whether `attacker` threatens an open four, under renju one of black's that
    is no foul (`_open_four_to_make`), and mark the defender's answers in `chosen`
    (`_answers_to_open_fours`)."""
    if _answers_to_open_fours(geometry, state, 3 - attacker, chosen) == 0:
        return False
    fouls = attacker == 1 and geometry[8] == RENJU_ENDS
    return not fouls or _open_four_to_make(geometry, state, attacker)


@njit(cache=True, nogil=True)
def win_by_threes(geometry, state, _table, attacker, most_threes, most_moves, limits):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return (plies, first move) of a win by threats with the fewest threes (one to
    `most_threes`) found, of at most `most_moves` moves: (0, -1) for none, or when the
    defender has a line to complete or the attacker one of its own (a win at once is the
    rules'); (ABORTED, -1) out of time. Freestyle, standard and renju rules only
    (`Search.threes_tried`)."""
    if (
        _completing_cells(geometry, state, 3 - attacker).shape[0] > 0
        or _completing_cells(geometry, state, attacker).shape[0] > 0
    ):
        return 0, -1
    defending = np.int64(0)  # not a literal: see `_threats`
    for threes in range(1, most_threes + 1):
        candidates = _threat_moves(geometry, state, attacker, True, -1)
        for at in range(candidates.shape[0]):
            cell = candidates[at]
            _play(geometry, state, cell, attacker)
            plies = 0
            if state[4][1] > 0:
                fours = _completing_cells(geometry, state, attacker).shape[0]
                spent = 0 if fours > 0 else 1
                plies = _threats(
                    geometry,
                    state,
                    attacker,
                    threes - spent,
                    most_moves - 1,
                    cell,
                    defending,
                    limits,
                )
            _undo(geometry, state, cell)
            if plies == ABORTED:
                return ABORTED, -1
            if plies > 0:
                return plies + 1, cell
    return 0, -1


@njit(cache=True, nogil=True)
def threat_win_after(geometry, state, _table, move, mover, most_threes, most_moves, limits):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return 1 if the opponent wins by threats (a run of at most `most_moves` fours, or
    with `most_threes` > 0 by fours and threes: `win_by_threes`) after `mover` plays
    `move`, 0 if none is found, ABORTED out of time."""
    opponent = 3 - mover
    if _play(geometry, state, move, mover):
        _undo(geometry, state, move)
        return 0  # the move itself wins
    found = 0
    if _completing_cells(geometry, state, opponent).shape[0] > 0:
        found = 1  # a line of the opponent's left open: it wins at once
    elif _completing_cells(geometry, state, mover).shape[0] == 0 and state[4][1] > 0:
        plies, _first = _fours(geometry, state, opponent, most_moves, limits)
        if plies == 0 and most_threes > 0:
            plies, _first = win_by_threes(
                geometry, state, _table, opponent, most_threes, most_moves, limits
            )
        found = ABORTED if plies == ABORTED else (1 if plies > 0 else 0)
    _undo(geometry, state, move)
    return found


# --- from Python ---


def keeps_shapes(kernel: Kernel) -> bool:
    """Return whether the search keeps shapes (five in a row, every variant): it values
    its leaves and orders its moves by them, unless the game is misère."""
    return bool(kernel.state[11][0] == 1)


def shape_rule(geometry: GeometryArrays) -> int:
    """Return which fives a game's table of shapes counts (FREESTYLE_SHAPES...), from what
    its windows' ends mean."""
    ends, meaning = geometry[7], geometry[8]
    if meaning == RENJU_ENDS:
        return RENJU_SHAPES
    if meaning == CARO_ENDS:
        return CARO_SHAPES
    return FREESTYLE_SHAPES if bool((ends < 0).all()) else EXACT_SHAPES


def kernel(
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


@functools.cache
def _shapes(rule: int) -> npt.NDArray[np.int8]:
    """Return a rule's table of shapes, made once a process: freestyle's in a few
    milliseconds (196 KB), the others' in 0.1 to 0.2 s (3 MB)."""
    table: npt.NDArray[np.int8] = shape_table(rule)
    return table


def compilations() -> int:
    """Return how many of the functions called from Python were compiled in this process,
    rather than loaded from the cache."""
    called = (
        monotonic_ns,
        new_state,
        root_value,
        value_after,
        expected_line,
        likeliest_moves,
        node_moves,
        node_value,
        move_value,
        play_move,
        undo_move,
        unbarred,
        shortest_run_of_fours,
        shape_table,
    )
    return sum(sum(function.stats.cache_misses.values()) for function in called)

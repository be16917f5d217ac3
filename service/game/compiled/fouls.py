"""Renju's fouls as the compiled search reads them: from black's shapes, without a move
(`_shape_foul`: two fours, in one line or two, two open threes or an overline, and no
five), so that no foul passes where black's moves are chosen (more cells than the fouls,
never fewer); and the trap they set, white's five whose one block is black's foul
(`_blocking_foul`, which calls a foul only where one is). The root's fouls are judged in
full, the three defined recursively, by `service.game.renju`."""

from __future__ import annotations

from numba import njit

from service.game.compiled.kernel import RENJU_ENDS, _uncounted
from service.game.compiled.shapes import FIVE, FOUR, OPEN_FOUR, OPEN_THREE, _makes_at_least
from service.game.compiled.state import _play, _undo


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
def _foul_for(geometry, state, player, cell):  # type: ignore[no-untyped-def]
    """Return whether `player` playing the empty `cell` may be a foul: under renju, black's
    that `_shape_foul` refuses; never anyone else's."""
    return player == 1 and geometry[8] == RENJU_ENDS and _shape_foul(state, cell)

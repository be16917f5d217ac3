"""The threat search: the shortest run of fours that wins (`shortest_run_of_fours`, a VCF)
and a win by fours and threes (`win_by_threes`, a VCT, every defence of a three tried),
for either side, and whether the opponent has either after a move (`threat_win_after`, the
root's check of its candidates); renju's fouls left out of black's runs and set as traps
for white's. What their runs prove, and what they may spend, is `service.game.threats`'."""

from __future__ import annotations

import numpy as np
from numba import njit

from service.game.compiled.candidates import _answers_to_open_fours, _makes_open_four
from service.game.compiled.fouls import _blocking_foul, _foul_for
from service.game.compiled.kernel import ABORTED, RENJU_ENDS, _out_of_time, _uncounted
from service.game.compiled.state import _completing_cells, _play, _undo


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

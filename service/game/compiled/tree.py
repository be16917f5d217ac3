"""The alpha-beta tree, heuristic and exact: a principal variation search over the moves
of `service.game.compiled.candidates`, late quiet moves searched shallower first (and near
the leaves not at all), the transposition table (`service.game.transposition`) read and
written at every node, the nodes that the shapes decide not searched, nor those near the
leaves whose shapes stand far above the window, and the leaves valued by
`service.game.compiled.evaluation` without playing their moves. From Python: a root's
value, a move's, the expected line, and the nodes of the tree shared between threads
(`service.game.shared_tree`), one at a time."""

from __future__ import annotations

import numpy as np
from numba import njit

from service.game.compiled.candidates import _node_moves
from service.game.compiled.evaluation import (
    SHAPE_WIN,
    _heuristic,
    _leaf_value,
    _shape_end,
    _shape_value,
)
from service.game.compiled.fouls import _blocked_by_a_foul, _open_four_for_black
from service.game.compiled.kernel import (
    ABORTED,
    MATE,
    WINES_WEIGHTS,
    _inlined,
    _out_of_time,
    _uncounted,
)
from service.game.compiled.shapes import (
    FIVE,
    FOUR,
    OPEN_FOUR,
    _counted_makes_at_least,
    _move_value,
)
from service.game.compiled.state import _play, _undo, _work


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


@_uncounted
def _settled(stored_depth, stored_value, bound, depth, alpha, beta):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return whether what the table holds of a position settles it at this depth and
    window: stored as deep, and exact or a bound beyond the window."""
    if stored_depth < depth:
        return False
    return (
        bound == 0 or (bound < 0 and stored_value <= alpha) or (bound > 0 and stored_value >= beta)
    )


@_inlined
def _best_leaf(geometry, state, moves, count, player, alpha, beta, ply, misere, work):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return (value, move) of the best of the first `count` of `moves` one ply from the
    leaves (`_leaf_value`), stopping at a cut as the tree does. Where the fitted weights
    value the leaves, a leaf the shapes do not decide is worth the mean of its value and
    the position's before its move, as Rapfi averages its evaluation over two plies: the
    side to move's threats swing a position's value from one ply to the next."""
    best_value = -MATE - 1
    best_move = moves[0]
    averaged = state[11][3] != WINES_WEIGHTS and not misere
    before = np.int64(0)
    if averaged:
        before = -_shape_value(state[10], state[11], 3 - player)
        averaged = abs(before) < SHAPE_WIN
    for at in range(count):
        move = moves[at]
        value = _leaf_value(geometry, state, move, player, ply, misere, work)
        if averaged and abs(value) < SHAPE_WIN:
            value = (value + before) // 2
        if value > best_value:
            best_value = value
            best_move = move
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best_value, best_move


@_inlined
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


@njit(cache=True, nogil=True)
def decided(geometry, state, player, depth, ply, misere):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return what the tree reads as decided at a node without searching it (`_decided`),
    or 0: for the tree shared between threads, which the one thread's nodes must match."""
    exact = False  # a search shared between threads is never exact (`Search`)
    return _decided(geometry, state, player, depth, ply, misere, exact)


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
#: REDUCED_FROM_DEPTH plies from the leaves and below the root, a quiet move (`_quiet`) is
#: searched REDUCED_PLIES shallower, with a null window, and again at full depth if it may
#: raise alpha. Two plies, not one, so that the search below ends
#: on the same side's move as the unreduced one: the shapes value a position very
#: differently for the side to move, and by one ply 15 % of the reduced moves failed high
#: (docs/STRENGTH.md). Three plies from the leaves the reduced move's reply is searched as
#: a leaf's parent (depth 0 reads as 1): one ply less there, as measured.
REDUCED_FROM = 3

REDUCED_FROM_DEPTH = 3

REDUCED_PLIES = 2

#: Later quiet moves of deeper nodes are reduced more, an even number of plies still:
#: (from the move, at least this far from the leaves, by so many plies), the last that
#: applies.
DEEPER_REDUCTIONS = ((6, 6, 4), (10, 8, 6))

#: A move is quiet when its move value (`_move_value`, on Wine's scale) is under
#: QUIET_BELOW: it makes and stops no five, open four or double threat, and its lesser
#: shapes sum to little; and it neither makes a four nor takes the cell of one of the
#: opponent's (`_counted_makes_at_least`).
QUIET_BELOW = 96

#: Late-move pruning: a node two or three plies from the leaves, below the root and not
#: lost, leaves its quiet moves unsearched from its PRUNED_FROM[depth]-th move on (the
#: first is 0): Rapfi's move-count pruning.
PRUNED_FROM = (0, 0, 5, 7)

#: Futility pruning of a node (Rapfi's, of a child node): below the root, at most
#: len(FUTILITY_MARGINS) - 1 plies from the leaves, searched with a null window, with no
#: five to make for either side, a node whose static value (its shapes, for the side to
#: move) less FUTILITY_MARGINS[depth] is at least beta is worth that value, unsearched:
#: 150 a ply beyond the first. (A reduced move's reply three plies from the leaves, at
#: depth 0, is read so with a margin of -150, as measured: a fail-low there is searched
#: again in full.) A node's searched value stands about 450 above its static value at
#: every depth in freestyle, whose leaves are averaged over two plies (`python -m
#: benchmarks.margins`; with a leaf's own value, about 1,400 one and three plies from the
#: leaves, where the side to move makes the last move: margins measured for that did not
#: pay, docs/STRENGTH.md).
FUTILITY_MARGINS = (-150, 0, 150, 300)

#: The deeper reductions, the late-move pruning and the futility pruning apply on boards
#: of more than this many cells: the smaller boards' answers never change.
PRUNED_ABOVE_CELLS = 16


@_uncounted
def _quiet(state, move, player):  # type: ignore[no-untyped-def]
    """Return whether a move is quiet (QUIET_BELOW), where the game keeps shapes."""
    if state[11][0] == 0 or _move_value(state, move, player) >= QUIET_BELOW:
        return False
    # A single four is worth little on Wine's scale, but reduced it may leave the defence
    # short (docs/STRENGTH.md): fours made and stopped are not quiet.
    return not (
        _counted_makes_at_least(state, move, player, FOUR)
        or _counted_makes_at_least(state, move, 3 - player, FOUR)
    )


@_uncounted
def _futile(state, player, depth, alpha, beta, ply, misere, exact):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return the static value of a node the tree leaves unsearched above the window
    (FUTILITY_MARGINS), or ABORTED (which no value is) where it searches it."""
    if ply == 0 or misere or exact or depth >= len(FUTILITY_MARGINS) or beta - alpha != 1:
        return ABORTED
    if state[0].shape[0] <= PRUNED_ABOVE_CELLS:
        return ABORTED
    tally = state[10]
    if state[11][0] == 0 or tally[player, FIVE] > 0 or tally[3 - player, FIVE] > 0:
        return ABORTED
    static = -_shape_value(tally, state[11], 3 - player)
    if static - FUTILITY_MARGINS[depth] >= beta and abs(static) < SHAPE_WIN:
        return static
    return ABORTED


@_uncounted
def _pruned(state, move, player, at, depth, ply, misere, exact, best_value):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return whether the tree leaves a node's `at`-th move unsearched (PRUNED_FROM)."""
    if ply == 0 or misere or exact or depth >= len(PRUNED_FROM) or at < PRUNED_FROM[depth]:
        return False
    if depth < 2 or state[0].shape[0] <= PRUNED_ABOVE_CELLS:
        return False
    return best_value > -SHAPE_WIN and _quiet(state, move, player)


@_uncounted
def _reduction(state, move, player, at, depth, ply, misere, exact):  # type: ignore[no-untyped-def]  # noqa: PLR0917
    """Return the plies by which the tree searches the `at`-th move of a node shallower
    (REDUCED_PLIES for a late quiet move, where the game keeps shapes), else 0."""
    if at < REDUCED_FROM or depth < REDUCED_FROM_DEPTH or ply == 0 or misere or exact:
        return 0
    if not _quiet(state, move, player):
        return 0
    plies = REDUCED_PLIES
    if state[0].shape[0] <= PRUNED_ABOVE_CELLS:
        return plies
    for from_move, from_depth, deeper in DEEPER_REDUCTIONS:
        if at >= from_move and depth >= from_depth:
            plies = deeper
    return plies


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
    # Nothing stored settles nothing: read as depth 0, exact and worth 0, it would settle a
    # reduced reply at depth 0 as a draw, as it still does on boards of 16 cells or fewer
    # (their answers never change).
    unstored = stored_depth == 0 and state[0].shape[0] > PRUNED_ABOVE_CELLS
    if ply > 0 and not unstored and _settled(stored_depth, stored_value, bound, depth, alpha, beta):
        return stored_value
    decided = _decided(geometry, state, player, depth, ply, misere, exact)
    if decided != 0:
        return decided
    futile = _futile(state, player, depth, alpha, beta, ply, misere, exact)
    if futile != ABORTED:
        return futile
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
        if _pruned(state, move, player, at, depth, ply, misere, exact, best_value):
            continue
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
                if ply == 0 and state[0].shape[0] > PRUNED_ABOVE_CELLS:
                    # Shown better than the best so far by its null window: the move to
                    # play if the deadline stops its full search, which costs the most
                    # when the last depth's move has just failed (docs/STRENGTH.md). Not
                    # on the smaller boards, whose answers never change.
                    limits[3], limits[4] = move, alpha + 1
                deeper = _negamax(
                    geometry, state, table, 3 - player, depth - 1, -beta, -alpha, ply + 1,
                    misere, exact, limits, work,
                )  # fmt: skip
                if ply == 0 and limits[3] == move and deeper != ABORTED and -deeper <= best_value:
                    limits[3], limits[4] = best_move, best_value  # not better after all
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

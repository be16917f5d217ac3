"""The threat search (normal rules): a forced win made of fours.

A *four* is a move after which the opponent has exactly one cell to stop an immediate win:
any other reply loses at once, so the block is the only reply to consider. A run of fours
ends in two such cells (one of them stays) or in a win. Shorter runs are tried first, so
the run found is the shortest made of fours. What its length proves:

- it is the position's fastest win only up to EXACT_RUN_PLIES (five plies): a win in one is
  the rules' (a cell that completes a line), and a win in three needs a move that leaves two
  cells to stop, which is a run of one four. A longer run is a bound: a win not made of
  fours (a double three) may be faster;
- its first move is worth exactly the run up to EXACT_MOVE_PLIES (seven plies): after the
  forced block, what is left is a run of five at most.

Under renju a black block may be a foul, which black may not play: white's four then wins
faster than its run says, so there a run, and its first move, is exact only up to
RENJU_EXACT_PLIES (three plies), and black, whose fours may be fouls, runs none
(`service.game.search`).

This is the specification, and the search a test's own clock can drive; the service runs
`alphabeta.shortest_run_of_fours`, the same runs in the same order, node for node, compiled
and without the interpreter lock.
"""

from __future__ import annotations

from collections.abc import Callable

from service.game.search_board import SearchBoard

#: How many moves of its own the threat search plays at most.
THREAT_SEARCH_MOVES = 8

#: The longest run of fours that is the position's fastest win.
EXACT_RUN_PLIES = 5

#: The longest run of fours whose first move is worth exactly that run.
EXACT_MOVE_PLIES = EXACT_RUN_PLIES + 2

#: Under renju, the longest run of white's fours, and of its first move, that is exact: a
#: block that is black's foul is no block, so a longer run may be won faster.
RENJU_EXACT_PLIES = 3


def shortest_run_of_fours(
    position: SearchBoard, attacker: int, count_node: Callable[[], None]
) -> tuple[int, int] | None:
    """Return (first move, plies) of the shortest win by fours for `attacker` to move, or
    None: none within THREAT_SEARCH_MOVES, or the defender has a line to complete first.

    `count_node` is called for every move tried and may raise to stop the search; every
    move is taken back either way, so the position is left as it was found.
    """
    if position.completing(3 - attacker):
        return None  # the threat search is for an attacker whom nothing threatens
    for moves in range(1, THREAT_SEARCH_MOVES + 1):
        found = _fours(position, attacker, moves, count_node)
        if found is not None:
            return found
    return None


def _fours(
    position: SearchBoard, attacker: int, moves_left: int, count_node: Callable[[], None]
) -> tuple[int, int] | None:
    """Return (first move, plies) of a win by at most `moves_left` fours, or None.

    On entry nothing of the defender's completes a line.
    """
    defender = 3 - attacker
    k = position.geometry.rules.k
    windows = position.geometry.windows
    # Every cell that makes a four lies in a window one mark short of one (k - 2 marks).
    candidates = sorted(
        {
            cell
            for index, counts in enumerate(position.counts)
            if counts[attacker] == k - 2 and counts[defender] == 0
            for cell in windows[index]
            if position.cells[cell] == 0
        }
    )
    for cell in candidates:
        count_node()
        completed = position.play(cell, attacker)
        # Out of time or not, every move is taken back: the search goes on after this.
        try:
            if completed:
                return cell, 1
            blocks = position.completing(attacker)
            if len(blocks) >= 2 and position.empty >= 2:
                return cell, 3  # two cells to stop: one stays
            if len(blocks) == 1 and moves_left > 1 and position.empty >= 2:
                position.play(blocks[0], defender)
                try:
                    # The forced block must not let the defender win next, nor fill the board.
                    if not position.completing(defender) and position.empty > 0:
                        deeper = _fours(position, attacker, moves_left - 1, count_node)
                        if deeper is not None:
                            return cell, deeper[1] + 2
                finally:
                    position.undo(blocks[0])
        finally:
            position.undo(cell)
    return None

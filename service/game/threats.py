"""The threat search's terms (normal rules): a forced win made of fours, and what it proves.

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

The search itself is compiled, `alphabeta.shortest_run_of_fours`: the cells that make a four
lie in the windows one mark short of one (k - 2 marks, none of the defender's); each is
tried in ascending order, then the forced block, with runs of one four first, then two, up
to THREAT_SEARCH_MOVES. This module holds what its runs prove.
"""

from __future__ import annotations

#: How many moves of its own the threat search plays at most.
THREAT_SEARCH_MOVES = 8

#: The longest run of fours that is the position's fastest win.
EXACT_RUN_PLIES = 5

#: The longest run of fours whose first move is worth exactly that run.
EXACT_MOVE_PLIES = EXACT_RUN_PLIES + 2

#: Under renju, the longest run of white's fours, and of its first move, that is exact: a
#: block that is black's foul is no block, so a longer run may be won faster.
RENJU_EXACT_PLIES = 3

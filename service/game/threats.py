"""The threat search's terms (normal rules): a forced win made of fours (and in freestyle,
standard and renju of threes), and what it proves.

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
(`compiled.threat_search._unstoppable`, where `_blocking_foul` reads the block as a foul,
which it does only for fouls, and not for every one: a three two levels deep), so a run of
white's may be won faster than it says, and a run, and its first move, is exact only up to
RENJU_EXACT_PLIES (three plies). Black's fours may be fouls: its runs leave out every four
whose shapes show an overline, two fours (in two directions, or in one line: two cells
that complete five and are not the ends of four in a row) or open threes in two
directions (more than renju's threes, which must become a straight four through a cell
that is no foul itself), so that no foul passes (`compiled.fouls._shape_foul`).

The search itself is compiled, `compiled.threat_search.shortest_run_of_fours`: the cells
that make a four lie in the windows one mark short of one (k - 2 marks, none of the
defender's); each is tried in ascending order, then the forced block, with runs of one
four first, then two, up to THREAT_SEARCH_MOVES. This module holds what its runs prove.

Where no run of fours wins, in freestyle, standard and renju five in a row, the search
also tries *threes* (a VCT, `compiled.threat_search.win_by_threes`): a move after which
the attacker threatens an open four. Its defences are not one cell but every empty cell of
the windows that would make the open four, and every four of the defender's (which the
attacker blocks before the defender moves again); any other reply lets the open four be
made, and the defender has no line to complete. That holds where the defender stops a line
only by a mark in its window: in freestyle, and in standard, whose overlines spoil only the
attacker's own lines (which its own checks see); and under renju. For white, which has no
fouls and wins with five or more, the defences include black's fouls, which black may not
play, and black's fours that would make an overline, which win nothing: the proof only
assumes more of black than it can do. Black's threes, fours and blocks of white's fours
leave out every cell that may be a foul, as its runs do, and its threat of an open four
counts only where one is made on a cell that reading lets through. That reading calls
every foul a foul, and a white stone only takes shapes from black (a five stays one, no
four becomes a three), so a cell it lets through stays so after any reply of white's.
Not under caro,
where closing a line's far end stops it too. It uses at most
THREE_SEARCH_THREES threes, the fewest first, and after its first move only threes on the
lines through its last move. Its length is the proof's, the longest defence's: a bound. It
is the fastest win only up to EXACT_RUN_PLIES (no run of fours wins, so there is no win in
three), and so is its first move's value, since a defence is a choice; under renju, never
(RENJU_EXACT_PLIES). The search spends at
most FOURS_SEARCH_SHARE of its time on the run of fours, and THREE_SEARCH_SHARE of what is
left on the win by threes: on several threads, on a helper's position while the tree
searches (where the game is under way, the tree gets about 6 % more nodes at 250 ms, some
0.1 plies, than when the helper idled through the look; docs/STRENGTH.md).

Before the tree searches, the root's candidates after which the opponent wins by a run of
fours (DEFENCE_THREES: no threes), as far as DEFENCE_NODES nodes each find, are barred
while another candidate is left (`Search._bar_threat_wins_against`): the tree's
horizon is shorter than such a win, and the move is lost whatever the tree makes of it.
"""

from __future__ import annotations

#: How many moves of its own the threat search plays at most.
THREAT_SEARCH_MOVES = 8

#: The longest run of fours that is the position's fastest win.
EXACT_RUN_PLIES = 5

#: The longest run of fours whose first move is worth exactly that run.
EXACT_MOVE_PLIES = EXACT_RUN_PLIES + 2

#: Under renju, the longest run of fours, and of its first move, that is exact: a block
#: that is black's foul is no block, and not every one is read as one, so a longer run of
#: white's may be won faster, and a four of black's that the run leaves out as a possible
#: foul may be none, and win sooner.
RENJU_EXACT_PLIES = 3

#: How many threes a win by fours and threes (a VCT) may use at most.
THREE_SEARCH_THREES = 3

#: The share of the time left that the look for a run of fours may take: with many fours
#: on the board and no run among them it once took the whole budget (97,000 nodes), and
#: the tree, given what was left, finished one ply.
FOURS_SEARCH_SHARE = 0.5

#: The share of the time left that the look for a win by threes may take.
THREE_SEARCH_SHARE = 0.125

#: Threes are tried only on lines of five (gomoku's three), and on boards of more cells
#: than the tables hold (whose answers never change).
THREE_SEARCH_K = 5
THREE_SEARCH_MIN_CELLS = 16

#: The share of the time left that the look for the opponent's wins after each root
#: move may take, and the nodes it may spend on each.
DEFENCE_SHARE = 0.25
DEFENCE_NODES = 3_000

#: How many threes that look tries: none. With threes it filled its share and took the
#: tree's depth: against the search before, 37.5 % where fours alone gave 47.5 %
#: (docs/STRENGTH.md).
DEFENCE_THREES = 0

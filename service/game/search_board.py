"""The position at a search's root, as the Python around the compiled search reads it.

The tree, the threat search and the exact search play on the compiled state
(`service.game.compiled`); what is decided at the root stays in Python, and asks this
board: the rules at the root (the cells that complete a line, for either side), and an
analysis's moves the rules decide (each played and undone). The root's candidates come from
the compiled tree's own (`compiled.candidates.likeliest_moves`). It searches nothing
itself: no tree, no heuristic value, no hash."""

from __future__ import annotations

from service.game.board import Board, Mark
from service.game.geometry import Geometry


class SearchBoard:
    """A search's root position, changed in place by `play` and `undo`, with running counts.

    Players are 1 (X) and 2 (O). For every window it keeps each player's marks in it; from
    them follow the cells that complete a line (`completing`).
    """

    def __init__(self, geometry: Geometry, board: Board) -> None:
        self.geometry = geometry
        self.cells = [0] * geometry.cells
        self.counts = [[0, 0, 0] for _ in geometry.windows]
        self.free = set(range(geometry.cells))
        self.empty = geometry.cells
        #: For each player, the windows it fills but for one cell the other has not entered
        #: (on the empty board, none; every window when a line is one cell long).
        every = set(range(len(geometry.windows))) if geometry.rules.k == 1 else set()
        self.fours: list[set[int]] = [set(), set(every), set(every)]
        for cell, mark in enumerate(board.cells):
            if mark is not None:
                self.play(cell, 1 if mark is Mark.X else 2)

    def play(self, cell: int, player: int) -> bool:
        """Put `player`'s mark on `cell`; return whether it completes a line."""
        completed = self._recount(cell, player, 1)
        self.cells[cell] = player
        self.free.discard(cell)
        self.empty -= 1
        return completed

    def undo(self, cell: int) -> None:
        """Take the mark off `cell`, as it was before `play`."""
        player = self.cells[cell]
        self._recount(cell, player, -1)
        self.cells[cell] = 0
        self.free.add(cell)
        self.empty += 1

    def _recount(self, cell: int, player: int, step: int) -> bool:
        """Add `step` marks of `player` to every window of `cell`, and all that follows from
        the counts: the fours. Return whether a window is full."""
        geometry = self.geometry
        k = geometry.rules.k
        other = 3 - player
        mine_fours, their_fours = self.fours[player], self.fours[other]
        completed = False
        for window in geometry.windows_of[cell]:
            counts = self.counts[window]
            before, theirs = counts[player], counts[other]
            after = before + step
            counts[player] = after
            completed = completed or (after == k and self._counts(window, player))
            # A four is k - 1 marks of one side in a window the other has not entered.
            if theirs == 0:
                if after == k - 1:
                    mine_fours.add(window)
                elif before == k - 1:
                    mine_fours.discard(window)
            if theirs == k - 1:
                if after == 0:
                    their_fours.add(window)
                elif before == 0:
                    their_fours.discard(window)
        return completed

    def _counts(self, window: int, player: int) -> bool:
        """Return whether `player`'s line in `window` would count: it holds no end of it
        (under renju, black only), and under caro the opponent does not hold both."""
        if not self.geometry.rules.variant.exact_length_for(first_player=player == 1):
            return True
        ends = self.geometry.ends[window]
        if any(self.cells[end] == player for end in ends):
            return False
        return not (
            self.geometry.rules.variant.closed_ends_block
            and len(ends) == 2
            and all(self.cells[end] == 3 - player for end in ends)
        )

    def completing(self, player: int) -> list[int]:
        """Return the empty cells where `player` would complete a line that counts, ascending."""
        windows, cells = self.geometry.windows, self.cells
        return sorted(
            {
                cell
                for index in self.fours[player]
                if self._counts(index, player)
                for cell in windows[index]
                if cells[cell] == 0
            }
        )

    def empty_cells(self) -> list[int]:
        """Return every empty cell, ascending."""
        return sorted(self.free)

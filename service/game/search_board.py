"""The position at a search's root, as the Python around the compiled search reads it.

The tree, the threat search and the exact search play on the compiled state
(`service.game.alphabeta`); what is decided at the root stays in Python, and asks this
board: the rules at the root (the cells that complete a line, for either side), the root's
candidates and the fallback move (the cells near the marks, what each promises, the answers
to a threat of an open four), and an analysis's moves the rules decide (each played and
undone). It searches nothing itself: no tree, no heuristic value, no hash."""

from __future__ import annotations

from service.game.board import Board, Mark
from service.game.geometry import Geometry


class SearchBoard:
    """A search's root position, changed in place by `play` and `undo`, with running counts.

    Players are 1 (X) and 2 (O). For every window it keeps each player's marks in it; from
    them follow the cells that complete a line (`completing`) and each cell's promise.
    """

    def __init__(self, geometry: Geometry, board: Board) -> None:
        self.geometry = geometry
        self.cells = [0] * geometry.cells
        self.counts = [[0, 0, 0] for _ in geometry.windows]
        self.near_marks = [0] * geometry.cells
        self.free = set(range(geometry.cells))
        self.empty = geometry.cells
        #: For each player, the windows it fills but for one cell the other has not entered
        #: (on the empty board, none; every window when a line is one cell long).
        every = set(range(len(geometry.windows))) if geometry.rules.k == 1 else set()
        self.fours: list[set[int]] = [set(), set(every), set(every)]
        #: For each cell, what its windows promise either side: how likely a move there matters.
        self.promise: list[int] = list(geometry.empty_promise)
        for cell, mark in enumerate(board.cells):
            if mark is not None:
                self.play(cell, 1 if mark is Mark.X else 2)

    def play(self, cell: int, player: int) -> bool:
        """Put `player`'s mark on `cell`; return whether it completes a line."""
        completed = self._recount(cell, player, 1)
        self.cells[cell] = player
        self.free.discard(cell)
        self.empty -= 1
        for neighbour in self.geometry.near[cell]:
            self.near_marks[neighbour] += 1
        return completed

    def undo(self, cell: int) -> None:
        """Take the mark off `cell`, as it was before `play`."""
        player = self.cells[cell]
        self._recount(cell, player, -1)
        self.cells[cell] = 0
        self.free.add(cell)
        self.empty += 1
        for neighbour in self.geometry.near[cell]:
            self.near_marks[neighbour] -= 1

    def _recount(self, cell: int, player: int, step: int) -> bool:
        """Add `step` marks of `player` to every window of `cell`, and all that follows from
        the counts: the promises, the fours. Return whether a window is full."""
        geometry = self.geometry
        weights, windows, k = geometry.weights, geometry.windows, geometry.rules.k
        other = 3 - player
        mine_fours, their_fours = self.fours[player], self.fours[other]
        completed = False
        for window in geometry.windows_of[cell]:
            counts = self.counts[window]
            before, theirs = counts[player], counts[other]
            after = before + step
            counts[player] = after
            completed = completed or (after == k and self._counts(window, player))
            change = _promise_of(weights, after, theirs) - _promise_of(weights, before, theirs)
            if change:
                for member in windows[window]:
                    self.promise[member] += change
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

    def answers_to_open_fours(self, player: int) -> list[int]:
        """Return the moves that may answer the opponent's threat of an open four (a move
        after which two cells complete its line), ascending: every empty cell of the windows
        that make one, and `player`'s own fours. None when there is no such threat, or when
        lines are shorter than four (then every other mark threatens one)."""
        windows, windows_of, k = (
            self.geometry.windows,
            self.geometry.windows_of,
            self.geometry.rules.k,
        )
        cells, counts = self.cells, self.counts
        opponent = 3 - player
        if k < 4:
            return []
        answers: set[int] = set()
        for index, window_counts in enumerate(counts):
            if window_counts[opponent] != k - 2 or window_counts[player] != 0:
                continue
            for cell in windows[index]:
                if cells[cell] != 0 or not self._makes_open_four(cell, opponent):
                    continue
                for through in windows_of[cell]:
                    if (
                        counts[through][opponent] == k - 2
                        and counts[through][player] == 0
                        and self._counts(through, opponent)
                    ):
                        answers.update(other for other in windows[through] if cells[other] == 0)
        if answers:
            for index, window_counts in enumerate(counts):
                if window_counts[player] == k - 2 and window_counts[opponent] == 0:
                    answers.update(cell for cell in windows[index] if cells[cell] == 0)
        return sorted(answers)

    def _makes_open_four(self, cell: int, attacker: int) -> bool:
        """Return whether `attacker` playing `cell` leaves two or more cells completing a line."""
        windows, k = self.geometry.windows, self.geometry.rules.k
        defender = 3 - attacker
        completions = {
            other
            for through in self.geometry.windows_of[cell]
            if self.counts[through][attacker] == k - 2
            and self.counts[through][defender] == 0
            and self._counts(through, attacker)
            for other in windows[through]
            if other != cell and self.cells[other] == 0
        }
        return len(completions) >= 2

    def empty_cells(self) -> list[int]:
        """Return every empty cell, ascending."""
        return sorted(self.free)


def _promise_of(weights: list[int], mine: int, theirs: int) -> int:
    """Return what a window with these marks promises a move in it, for either side."""
    return (weights[mine + 1] if theirs == 0 else 0) + (weights[theirs + 1] if mine == 0 else 0)

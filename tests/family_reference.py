"""An independent reference for every game of the m,n,k family the tests can afford to walk.

Written differently from the service on purpose: boards are strings, a line is found by
stepping from a cell in one of four directions and counting, legal positions are those a
walk of every game reaches, and perfect play compares (result, plies) pairs instead of
backing up depth-discounted scores.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

EMPTY = "."
STEPS = ((0, 1), (1, 0), (1, 1), (1, -1))


def other(mark: str) -> str:
    """Return the opponent's mark."""
    return "O" if mark == "X" else "X"


@dataclass(frozen=True)
class Game:
    """One member of the family, with its boards as strings of X, O and '.'."""

    rows: int
    cols: int
    k: int
    misere: bool = False
    #: The standard variant: only a run of exactly k wins, an overline does not.
    exact: bool = False
    #: Caro: a run of exactly k, unless the opponent holds the cells at both its ends.
    caro: bool = False
    _reachable: dict[str, set[tuple[str, str]]] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    @property
    def empty(self) -> str:
        return EMPTY * (self.rows * self.cols)

    def has_line(self, text: str, mark: str) -> bool:
        """Return whether `mark` holds k in a row somewhere (exactly k in the standard
        variant; and not closed by the opponent at both ends in caro), counting cell by cell
        along every run from its first cell."""
        exact = self.exact or self.caro
        for row in range(self.rows):
            for col in range(self.cols):
                for row_step, col_step in STEPS:
                    before = (row - row_step, col - col_step)
                    if exact and self.holds(text, mark, *before):
                        continue  # not the first cell of its run
                    run = 0
                    r, c = row, col
                    while self.holds(text, mark, r, c):
                        run += 1
                        r, c = r + row_step, c + col_step
                    closed = self.holds(text, other(mark), *before) and self.holds(
                        text, other(mark), r, c
                    )
                    if run == self.k and not (self.caro and closed):
                        return True
                    if run > self.k and not exact:
                        return True
        return False

    def holds(self, text: str, mark: str, row: int, col: int) -> bool:
        """Return whether (row, col) is on the board and holds `mark`."""
        return 0 <= row < self.rows and 0 <= col < self.cols and text[row * self.cols + col] == mark

    def finished(self, text: str) -> bool:
        """Return whether someone has a line or the board is full."""
        return self.has_line(text, "X") or self.has_line(text, "O") or EMPTY not in text

    def reachable(self) -> set[tuple[str, str]]:
        """Return every (board, side to move) play reaches, either player starting."""
        if "all" not in self._reachable:
            seen: set[tuple[str, str]] = set()
            stack = [(self.empty, "X"), (self.empty, "O")]
            while stack:
                position = stack.pop()
                if position in seen:
                    continue
                seen.add(position)
                text, mover = position
                if not self.finished(text):
                    for i, cell in enumerate(text):
                        if cell == EMPTY:
                            stack.append((text[:i] + mover + text[i + 1 :], other(mover)))
            self._reachable["all"] = seen
        return self._reachable["all"]

    def perfect_play(self, text: str, mover: str) -> tuple[int, list[int]]:
        """Return the depth-aware score (N+1-p, 0, p-(N+1)) and every best move, ascending."""
        return _perfect_play(self, text, mover)


def _outcome_of_move(game: Game, after: str, mover: str) -> tuple[int, int] | None:
    """Return (result for the mover, 1) if the move ends the game, else None."""
    if game.has_line(after, mover):
        return (-1, 1) if game.misere else (1, 1)
    if EMPTY not in after:
        return (0, 1)
    return None


@cache
def move_results(game: Game, text: str, mover: str) -> dict[int, tuple[int, int]]:
    """Return each legal move's result for the mover under perfect play, with its plies."""
    results = {}
    for i, cell in enumerate(text):
        if cell != EMPTY:
            continue
        after = text[:i] + mover + text[i + 1 :]
        ended = _outcome_of_move(game, after, mover)
        if ended is not None:
            results[i] = ended
        else:
            reply_result, reply_plies = max(
                move_results(game, after, other(mover)).values(), key=_preference
            )
            results[i] = (-reply_result, reply_plies + 1)
    return results


def _preference(result_and_plies: tuple[int, int]) -> tuple[int, int]:
    """Order results: a win beats a draw beats a loss; quick wins and slow losses first."""
    result, plies = result_and_plies
    return (result, -plies if result > 0 else plies if result < 0 else 0)


def _perfect_play(game: Game, text: str, mover: str) -> tuple[int, list[int]]:
    results = move_results(game, text, mover)
    best = max(results.values(), key=_preference)
    result, plies = best
    top = game.rows * game.cols + 1
    score = {1: top - plies, 0: 0, -1: plies - top}[result]
    return score, sorted(
        i for i, value in results.items() if _preference(value) == _preference(best)
    )


def solve_every_position(game: Game) -> dict[tuple[int, int], tuple[int, int]]:
    """Walk every game with X starting and return, for every position reached, the mover's
    (result, plies to the end) under best play: 1, 0 or -1 for a win, draw or loss.

    Positions are (X's cells, O's cells) as bit sets, X moving when the counts are equal; a
    finished position maps to the result for the side that would move next. Forward and
    memoised, with lines tested only through the cell just taken: fast enough for 4x4.
    """
    cells = game.rows * game.cols
    through: list[list[int]] = [[] for _ in range(cells)]
    for row in range(game.rows):
        for col in range(game.cols):
            for row_step, col_step in STEPS:
                end_row, end_col = row + row_step * (game.k - 1), col + col_step * (game.k - 1)
                if 0 <= end_row < game.rows and 0 <= end_col < game.cols:
                    mask = 0
                    for step in range(game.k):
                        mask |= 1 << ((row + row_step * step) * game.cols + col + col_step * step)
                    for cell in range(cells):
                        if mask >> cell & 1 and mask not in through[cell]:
                            through[cell].append(mask)
    full = (1 << cells) - 1
    results: dict[tuple[int, int], tuple[int, int]] = {}
    # The side that completes a line wins, or under misère loses: the result for the side
    # that would move next in the finished position.
    lost_by_mover_next = 1 if game.misere else -1

    def visit(x_cells: int, o_cells: int) -> tuple[int, int]:
        key = (x_cells, o_cells)
        known = results.get(key)
        if known is not None:
            return known
        x_moves = bin(x_cells).count("1") == bin(o_cells).count("1")
        mine, theirs = (x_cells, o_cells) if x_moves else (o_cells, x_cells)
        best: tuple[int, int] | None = None
        free = full & ~(x_cells | o_cells)
        while free:
            cell_bit = free & -free
            free ^= cell_bit
            taken = mine | cell_bit
            cell = cell_bit.bit_length() - 1
            if (
                _run_through(game, taken, theirs, cell)
                if game.exact or game.caro
                else any(taken & mask == mask for mask in through[cell])
            ):
                reply = (lost_by_mover_next, 0)
                results[(taken, theirs) if x_moves else (theirs, taken)] = reply
            elif taken | theirs == full:
                reply = (0, 0)
                results[(taken, theirs) if x_moves else (theirs, taken)] = reply
            else:
                reply = visit(taken, theirs) if x_moves else visit(theirs, taken)
            mine_result = (-reply[0], reply[1] + 1)
            if best is None or _preference(mine_result) > _preference(best):
                best = mine_result
        assert best is not None
        results[key] = best
        return best

    visit(0, 0)
    return results


def _run_through(game: Game, taken: int, theirs: int, cell: int) -> bool:
    """Return whether the cells `taken` make a run of exactly k through `cell` (the standard
    variant's win; in caro, one the cells `theirs` do not close at both ends), walking from
    it both ways in each direction."""
    row, col = divmod(cell, game.cols)
    for row_step, col_step in STEPS:
        run, closed = 1, 0
        for sign in (1, -1):
            r, c = row + sign * row_step, col + sign * col_step
            while 0 <= r < game.rows and 0 <= c < game.cols and taken >> (r * game.cols + c) & 1:
                run += 1
                r, c = r + sign * row_step, c + sign * col_step
            if 0 <= r < game.rows and 0 <= c < game.cols and theirs >> (r * game.cols + c) & 1:
                closed += 1
        if run == game.k and not (game.caro and closed == 2):
            return True
    return False

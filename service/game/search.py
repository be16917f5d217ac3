"""A search within a time budget, for boards too big to solve into a table.

It answers any game of the family (up to 15x15, normal or misère) and says what it knows.
A result is *proven* only when a sound method found it, each of which considers every
reply the opponent has:

- the rules at the root: a move that wins at once; against two or more cells where the
  opponent wins next, a loss in two (normal rules);
- the threat search (normal rules): a run of moves each of which leaves the opponent one
  cell to stop an immediate win (a "four"), ending in two such cells, or a win. The
  opponent's only replies are the forced ones, since any other loses at once. It tries
  shorter runs first, so the run it finds is the shortest made of fours. That is the
  fastest win there is only up to five plies (a win in one is the rules', and every win in
  three leaves two cells to stop: a run of one four); a run of seven or more is a bound,
  since a win not made of fours (a double three) may be faster. The run's first move is
  worth exactly its run up to seven plies (after the forced block, what is left is a run of
  five at most); beyond that, only "a win within p plies" is known (`wins_within`);
- an exact search, every move to the end of the game, when few cells are empty.

Otherwise the move comes from an alpha-beta search with iterative deepening over the cells
near the marks, ordered by a transposition table, that stops on its deadline and plays the
best move of the last depth it finished. Its value is a heuristic: the marks each side has
in every k-cell window the other side has not entered, weighted by how full the window is.

The alpha-beta runs compiled (`service.game.alphabeta`, numba) unless asked not to
(`compiled=False`): the same search, node for node, at 13 to 27 times the speed
(docs/SEARCH.md). The pure one below is its specification, and the one a test's own clock
can drive.

Proven scores use the tables' convention (`Rules.max_score`): a win in p plies scores
max_score - p, a loss after p plies p - max_score, a draw 0.
"""

from __future__ import annotations

import enum
import functools
import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from service.game import alphabeta
from service.game.alphabeta import CANDIDATES_TRIED, CLOCK_EVERY, HEURISTIC_LIMIT, MATE
from service.game.board import Board, Mark
from service.game.rules import Rules
from service.game.transposition import TranspositionTable, new_table, slots_for

__all__ = [
    "CANDIDATES_TRIED",
    "CLOCK_EVERY",
    "EXACT_EMPTY_CELLS",
    "HEURISTIC_LIMIT",
    "MATE",
    "MoveEstimate",
    "Search",
    "SearchAnalysis",
    "SearchResult",
    "analyse",
    "prepare",
    "search",
]

#: Below this many empty cells, every line of play is searched to the end: exact.
EXACT_EMPTY_CELLS = 8

#: How far, in king moves, a cell may be from a mark to be a candidate of the heuristic search.
CANDIDATE_DISTANCE = 2

#: How many moves of its own the threat search plays at most.
THREAT_SEARCH_MOVES = 8

#: The longest run of fours that is the position's fastest win (see the module's docstring).
EXACT_RUN_PLIES = 5

#: The longest run of fours whose first move is worth exactly that run.
EXACT_MOVE_PLIES = EXACT_RUN_PLIES + 2

Clock = Callable[[], float]
_Found = TypeVar("_Found")


class Method(enum.Enum):
    """How a search result was found."""

    RULES = "rules"
    THREATS = "threats"
    EXACT = "exact"
    HEURISTIC = "heuristic"


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The move a search chose and what it knows of it, from the mover's side."""

    move: int
    #: Whether the outcome is certain: then `score` holds the position's value under perfect
    #: play, in the tables' convention, or `wins_within` a bound on a proven win's length.
    proven: bool
    score: int | None
    #: The search's estimate, from -1 (lost) to 1 (won); exactly -1, 0 or 1 when proven.
    evaluation: float
    method: Method
    #: The plies of the last search depth finished (0 when the rules alone decided).
    depth: int
    nodes: int
    seconds: float
    #: A proven win whose length is not known exactly: it takes at most this many plies.
    wins_within: int | None = None

    @property
    def optimal(self) -> bool:
        """Return whether no other move is proven better: the move is among the best.

        True whenever the score is known, since it is the position's value: for what the
        rules decide (a win at once; or a loss in two, which every move is), for an exact
        result, and for a threat win of at most EXACT_RUN_PLIES plies.
        """
        return self.proven and self.score is not None


@dataclass(frozen=True, slots=True)
class MoveEstimate:
    """One move of an analysis: what the search knows of it, from its mover's side."""

    move: int
    #: Whether the move's outcome is certain: then `score` holds its exact value, or
    #: `wins_within` a bound on a proven win's length.
    proven: bool
    score: int | None
    evaluation: float
    #: The move and the replies the search expects after it, as far as it looked.
    line: tuple[int, ...]
    wins_within: int | None = None


@dataclass(frozen=True, slots=True)
class SearchAnalysis:
    """The candidate moves a search looked at, best first, and what the search did."""

    moves: tuple[MoveEstimate, ...]
    method: Method
    #: The plies of the last depth finished for every candidate (0: none finished).
    depth: int
    nodes: int
    seconds: float
    #: The position's value under perfect play, in the tables' convention, when proven.
    score: int | None = None
    #: A proven win whose length is not known exactly: it takes at most this many plies.
    wins_within: int | None = None

    @property
    def proven(self) -> bool:
        """Return whether the position's outcome is certain."""
        return self.score is not None or self.wins_within is not None


class OutOfTime(Exception):
    """Raised inside the search when its deadline or node limit has passed."""


class Geometry:
    """What one board size and line length precompute: windows, and the cells near a cell."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.cells = rules.cell_count
        #: Every k-cell window, the lines of the rules; the windows each cell lies in.
        self.windows = rules.lines
        self.windows_of: list[list[int]] = [[] for _ in range(self.cells)]
        for index, window in enumerate(self.windows):
            for cell in window:
                self.windows_of[cell].append(index)
        # The cells within CANDIDATE_DISTANCE in rows and columns, ascending: the square
        # around each cell, not every pair of cells (quadratic on big boards).
        reach = CANDIDATE_DISTANCE
        self.near: list[tuple[int, ...]] = [
            tuple(
                other_row * rules.cols + other_col
                for other_row in range(max(0, row - reach), min(rules.rows, row + reach + 1))
                for other_col in range(max(0, col - reach), min(rules.cols, col + reach + 1))
                if (other_row, other_col) != (row, col)
            )
            for row, col in (divmod(cell, rules.cols) for cell in range(self.cells))
        ]
        # A mark in a window worth 8 times one fewer: fuller windows dominate. (One weight
        # more than marks fit, for the promise of a window a move has just completed.)
        self.weights = [0] + [8 ** (count - 1) for count in range(1, rules.k + 2)]
        #: What each cell's windows promise on the empty board (`SearchBoard.promise`).
        self.empty_promise = [self.weights[1] * 2 * len(windows) for windows in self.windows_of]
        rng = random.Random(rules.cell_count * 1009 + rules.k)  # noqa: S311 -- hashing, seeded
        self.keys = [[rng.getrandbits(64) for _ in range(3)] for _ in range(self.cells)]
        self.centre = (rules.rows // 2) * rules.cols + rules.cols // 2

    @functools.cached_property
    def arrays(self) -> alphabeta.GeometryArrays:
        """Return the geometry as the compiled search takes it (`alphabeta.Kernel.geometry`)."""
        k = self.rules.k
        windows = np.array(self.windows, dtype=np.int64).reshape(len(self.windows), k)
        return (
            windows,
            _padded(self.windows_of),
            _padded(self.near),
            np.array(self.weights, dtype=np.int64),
            np.array(self.keys, dtype=np.uint64),
            self.centre,
            k,
        )


def _padded(rows: list[list[int]] | list[tuple[int, ...]]) -> alphabeta.Ints:
    """Return lists of cells as one array, each row filled up with -1."""
    widest = max(len(row) for row in rows)
    padded = np.full((len(rows), widest), -1, dtype=np.int64)
    for at, row in enumerate(rows):
        padded[at, : len(row)] = row
    return padded


#: How many games' geometries one process keeps (about 100 KB each): a frontend's few games
#: stay made, while a client cycling through every game cannot make the process keep them all.
GEOMETRIES_KEPT = 32


def geometry_of(rules: Rules) -> Geometry:
    """Return a game's geometry, kept for the GEOMETRIES_KEPT games searched last (it costs
    ms to make); a game and its misère form share one, as they share their lines."""
    return _geometry(rules.rows, rules.cols, rules.k)


@functools.lru_cache(maxsize=GEOMETRIES_KEPT)
def _geometry(rows: int, cols: int, k: int) -> Geometry:
    return Geometry(Rules(rows, cols, k))


class SearchBoard:
    """A board under search, changed in place by `play` and `undo`, with running counts.

    Players are 1 (X) and 2 (O). For every window it keeps each player's marks in it; from
    them follow the cells that complete a line (`completing`), and the heuristic value.
    """

    def __init__(self, geometry: Geometry, board: Board) -> None:
        self.geometry = geometry
        self.cells = [0] * geometry.cells
        self.counts = [[0, 0, 0] for _ in geometry.windows]
        self.near_marks = [0] * geometry.cells
        self.free = set(range(geometry.cells))
        self.empty = geometry.cells
        self.hash = 0
        #: The heuristic value from X's side: fuller open windows of X's, less O's.
        self.value = 0
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
        self.hash ^= self.geometry.keys[cell][player]
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
        self.hash ^= self.geometry.keys[cell][player]
        for neighbour in self.geometry.near[cell]:
            self.near_marks[neighbour] -= 1

    def _recount(self, cell: int, player: int, step: int) -> bool:
        """Add `step` marks of `player` to every window of `cell`, and all that follows from
        the counts: the value, the promises, the fours. Return whether a window is full."""
        geometry = self.geometry
        weights, windows, k = geometry.weights, geometry.windows, geometry.rules.k
        other = 3 - player
        sign = 1 if player == 1 else -1
        mine_fours, their_fours = self.fours[player], self.fours[other]
        completed = False
        for window in geometry.windows_of[cell]:
            counts = self.counts[window]
            before, theirs = counts[player], counts[other]
            after = before + step
            counts[player] = after
            completed = completed or after == k
            self.value += sign * (
                _value_of(weights, after, theirs) - _value_of(weights, before, theirs)
            )
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

    def completing(self, player: int) -> list[int]:
        """Return the empty cells where `player` would complete a line, ascending."""
        windows, cells = self.geometry.windows, self.cells
        return sorted(
            {cell for index in self.fours[player] for cell in windows[index] if cells[cell] == 0}
        )

    def empty_cells(self) -> list[int]:
        """Return every empty cell, ascending."""
        return sorted(self.free)


def _value_of(weights: list[int], mine: int, theirs: int) -> int:
    """Return what a window is worth to one side: its marks if the other side has none."""
    if theirs == 0:
        return weights[mine]
    return -weights[theirs] if mine == 0 else 0


def _promise_of(weights: list[int], mine: int, theirs: int) -> int:
    """Return what a window with these marks promises a move in it, for either side."""
    return (weights[mine + 1] if theirs == 0 else 0) + (weights[theirs + 1] if mine == 0 else 0)


class Search:
    """One search of one position: its deadline, its counters and its transposition table."""

    def __init__(
        self,
        board: Board,
        mover: Mark,
        seconds: float,
        *,
        clock: Clock = time.perf_counter,
        max_nodes: int | None = None,
        compiled: bool = True,
        table_slots: int | None = None,
    ) -> None:
        if compiled and clock is not time.perf_counter:
            raise ValueError("the compiled search reads the monotonic clock; give it no other")
        # The clock starts first: setting the position up is part of the time the budget holds.
        self.clock = clock
        self.started = clock()
        self.deadline = self.started + seconds
        self.rules = board.rules
        self.misere = board.rules.misere
        geometry = geometry_of(board.rules)
        self.position = SearchBoard(geometry, board)
        self.mover = 1 if mover is Mark.X else 2
        self.max_nodes = max_nodes
        self.nodes = 0
        # Its size follows from the budget, never beyond transposition.TABLE_BYTES.
        entries = new_table(slots_for(seconds) if table_slots is None else table_slots)
        self.table = TranspositionTable(entries)
        self.kernel: alphabeta.Kernel | None = None
        if compiled:
            marks = np.array(self.position.cells, dtype=np.int64)
            left_ns = max(0, round((self.deadline - clock()) * 1e9))
            deadline_ns = time.clock_gettime_ns(time.CLOCK_MONOTONIC) + left_ns
            self.kernel = alphabeta.kernel(geometry.arrays, marks, entries, deadline_ns, max_nodes)

    def run(self) -> SearchResult:
        """Search until a proof or the deadline; return the move and what is known of it."""
        position = self.position
        legal = position.empty_cells()
        if not legal:
            raise ValueError("the board is full: there is no move to search")
        threat = None
        if not self.misere:
            decided = self._by_the_rules()
            if decided is not None:
                return decided
            threat = self._threat_win()
            if threat is not None and threat.score is not None:
                return threat
        if position.empty <= EXACT_EMPTY_CELLS:
            try:
                value, move = self._negamax_root(position.empty, exact=True)
                return self._result(move, value, Method.EXACT, position.empty, proven=True)
            except OutOfTime:
                pass  # fall back on what the threat search proved, or the heuristic search
        if threat is not None:
            return threat  # a proven win, its length only bounded
        return self._iterative_deepening(legal)

    def rank(self) -> SearchAnalysis:
        """Value every candidate move until the deadline; return them best first.

        Each candidate is searched with the full window, so every value is the search's own
        for that move, not a bound. Proven are the moves the rules decide, the threat
        search's first move (ranked whether or not it is a candidate otherwise), and, with
        few empty cells, every move once the exact search has finished. The position's value
        is proven by the same means as `run` proves it, so that the two never disagree.
        """
        position = self.position
        if not position.free:
            raise ValueError("the board is full: there is no move to rank")
        exact = position.empty <= EXACT_EMPTY_CELLS
        candidates = position.empty_cells() if exact else self._root_candidates()
        values: dict[int, int] = {}
        methods: dict[int, Method] = {}
        for move in candidates:
            decided = self._decided(move)
            if decided is not None:
                values[move], methods[move] = decided, Method.RULES
        threat = None if self.misere else self._threat_line()
        bounds: dict[int, int] = {}
        if threat is not None and threat[0] not in values:
            first, plies = threat
            candidates = sorted({*candidates, first})
            values[first], methods[first] = MATE - plies, Method.THREATS
            if plies > EXACT_MOVE_PLIES:
                bounds[first] = plies
        open_moves = [move for move in candidates if move not in values]
        # One ply is only the value after each move: always within any budget.
        searched = {move: self._after(move, 1, exact=False) for move in open_moves}
        lines: dict[int, tuple[int, ...]] = {move: (move,) for move in candidates}
        finished = 1 if open_moves else 0
        depths = [position.empty] if exact else range(2, position.empty + 1)
        for depth in depths if open_moves else ():
            try:
                deeper = {move: self._after(move, depth, exact=exact) for move in open_moves}
            except OutOfTime:
                break  # what the last finished depth found stands
            searched, finished = deeper, depth
            lines.update({move: self._expected_line(move, depth) for move in open_moves})
            if exact:
                methods.update(dict.fromkeys(open_moves, Method.EXACT))
            if all(abs(value) > HEURISTIC_LIMIT for value in deeper.values()):
                break  # every move's end was seen; deeper looks change nothing
        values.update(searched)
        estimates = [
            self._estimate(
                move, values[move], lines[move], proven=move in methods, bound=bounds.get(move)
            )
            for move in candidates
        ]
        estimates.sort(key=lambda found: (-found.evaluation, -(found.score or 0), found.move))
        best = estimates[0].move
        every_move_exact = exact and len(methods) == len(values)
        value = self._proven_value(values, threat, every_move_exact=every_move_exact)
        score = None if value is None else self._judged(value, proven=True)[0]
        wins_within = threat[1] if value is None and threat is not None else None
        return SearchAnalysis(
            moves=tuple(estimates),
            method=methods.get(best, Method.HEURISTIC),
            depth=finished,
            nodes=self.nodes,
            seconds=self.clock() - self.started,
            score=score,
            wins_within=wins_within,
        )

    def _proven_value(
        self,
        values: dict[int, int],
        threat: tuple[int, int] | None,
        *,
        every_move_exact: bool,
    ) -> int | None:
        """Return the position's value if an analysis proves it, else None: by the means
        `run` has, the rules, a short enough run of fours, or every move searched exactly."""
        position, mover = self.position, self.mover
        if every_move_exact:
            return max(values.values())
        if self.misere:
            return None
        if position.completing(mover):
            return MATE - 1
        if len(position.completing(3 - mover)) >= 2:
            return -(MATE - 2)
        if threat is not None and threat[1] <= EXACT_RUN_PLIES:
            return MATE - threat[1]
        return None

    def _root_candidates(self) -> list[int]:
        """Return the moves an analysis ranks: the likeliest, and every cell ending a line."""
        likeliest = self._candidates(self.mover, None, exact=False, forced=False)
        ending = self.position.completing(self.mover) + self.position.completing(3 - self.mover)
        return sorted(set(likeliest) | set(ending))

    def _decided(self, move: int) -> int | None:
        """Return the value of a root move the rules decide at once, or None."""
        position, mover = self.position, self.mover
        if position.play(move, mover):
            value: int | None = -(MATE - 1) if self.misere else MATE - 1
        elif position.empty == 0:
            value = 0
        elif not self.misere and position.completing(3 - mover):
            value = -(MATE - 2)  # the opponent completes a line next
        else:
            value = None
        position.undo(move)
        return value

    def _after(self, move: int, depth: int, *, exact: bool) -> int:
        """Return a root move's value searched `depth` plies deep, the move included."""
        if self.kernel is not None:
            value: int = self._compiled(
                alphabeta.value_after, move, self.mover, depth, self.misere, exact
            )
            return value
        position, mover = self.position, self.mover
        self.nodes += 1  # not a look at the clock: one ply must always finish
        position.play(move, mover)
        try:
            if depth <= 1:
                return self._heuristic(mover)
            return -self._negamax(3 - mover, depth - 1, -MATE - 1, MATE + 1, 1, exact=exact)
        finally:
            position.undo(move)

    def _expected_line(self, move: int, depth: int) -> tuple[int, ...]:
        """Return a move and the replies the transposition table holds best after it."""
        if self.kernel is not None:
            geometry, state, table, _limits = self.kernel
            line = alphabeta.expected_line(geometry, state, table, move, self.mover, depth)
            return tuple(int(cell) for cell in line)
        position, player = self.position, self.mover
        played = [move]
        ended = position.play(move, player)
        while not ended and position.empty and len(played) < depth:
            player = 3 - player
            entry = self.table.get(position.hash)
            if entry is None or position.cells[entry[3]] != 0:
                break
            played.append(entry[3])
            ended = position.play(entry[3], player)
        for cell in reversed(played):
            position.undo(cell)
        return tuple(played)

    # --- the rules and the threat search: sound, normal rules only ---

    def _by_the_rules(self) -> SearchResult | None:
        position, mover = self.position, self.mover
        wins = position.completing(mover)
        if wins:
            return self._result(wins[0], MATE - 1, Method.RULES, 0, proven=True)
        threats = position.completing(3 - mover)
        if len(threats) >= 2:
            # Whatever is played, one of them is left: a loss in two. Block the first anyway.
            return self._result(threats[0], -(MATE - 2), Method.RULES, 0, proven=True)
        return None

    def _threat_win(self) -> SearchResult | None:
        """Return a proven win made of fours, the shortest such first, or None."""
        found = self._threat_line()
        if found is None:
            return None
        first, plies = found
        bound = plies if plies > EXACT_RUN_PLIES else None
        return self._result(
            first, MATE - plies, Method.THREATS, plies - 2, proven=True, bound=bound
        )

    def _threat_line(self) -> tuple[int, int] | None:
        """Return (first move, plies) of the shortest win by fours found in time, or None."""
        if self.position.completing(3 - self.mover):
            return None  # the threat search is for an attacker whom nothing threatens
        for moves in range(1, THREAT_SEARCH_MOVES + 1):
            try:
                found = self._fours(self.mover, moves)
            except OutOfTime:
                return None
            if found is not None:
                return found
        return None

    def _fours(self, attacker: int, moves_left: int) -> tuple[int, int] | None:
        """Return (first move, plies) of a win by fours for `attacker` to move, or None.

        On entry nothing of the defender's completes a line.
        """
        position = self.position
        defender = 3 - attacker
        k = self.rules.k
        candidates = sorted(
            {
                cell
                for index, counts in enumerate(position.counts)
                if counts[attacker] == k - 2 and counts[defender] == 0
                for cell in self.position.geometry.windows[index]
                if position.cells[cell] == 0
            }
        )
        for cell in candidates:
            self._count_node()
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
                        # The forced block must not let the defender win next, nor fill the
                        # board.
                        if not position.completing(defender) and position.empty > 0:
                            deeper = self._fours(attacker, moves_left - 1)
                            if deeper is not None:
                                return cell, deeper[1] + 2
                    finally:
                        position.undo(blocks[0])
            finally:
                position.undo(cell)
        return None

    # --- exact and heuristic alpha-beta ---

    def _iterative_deepening(self, legal: list[int]) -> SearchResult:
        best_move, best_value, finished = self._fallback_move(legal), 0, 0
        for depth in range(1, self.position.empty + 1):
            try:
                value, move = self._negamax_root(depth, exact=False)
            except OutOfTime:
                break
            best_move, best_value, finished = move, value, depth
            if abs(value) > HEURISTIC_LIMIT:
                break  # an end was seen; deeper looks do not change the choice
        return self._result(best_move, best_value, Method.HEURISTIC, finished, proven=False)

    def _fallback_move(self, legal: list[int]) -> int:
        """Return a move for when no depth finishes in time: a forced one, or the likeliest."""
        position, mover = self.position, self.mover
        threats = position.completing(3 - mover) if not self.misere else []
        if threats:
            return threats[0]
        ordered = self._candidates(mover, None, exact=False) or legal
        return ordered[0]

    def _negamax_root(self, depth: int, *, exact: bool) -> tuple[int, int]:
        if self.kernel is not None:
            found: tuple[int, int] = self._compiled(
                alphabeta.root_value, self.mover, depth, self.misere, exact
            )
            return found
        value = self._negamax(self.mover, depth, -MATE - 1, MATE + 1, 0, exact=exact)
        entry = self.table.get(self.position.hash)
        if entry is None:
            raise AssertionError("the root is always stored")
        return value, entry[3]

    def _negamax(
        self, player: int, depth: int, alpha: int, beta: int, ply: int, *, exact: bool
    ) -> int:
        self._count_node()
        position = self.position
        original_alpha = alpha
        entry = self.table.get(position.hash)
        hint = None
        if entry is not None:
            stored_depth, stored_value, flag, hint = entry
            if stored_depth >= depth and ply > 0:
                if flag == 0:
                    return stored_value
                if flag < 0 and stored_value <= alpha:
                    return stored_value
                if flag > 0 and stored_value >= beta:
                    return stored_value
        moves = self._candidates(player, hint, exact=exact)
        best_value, best_move = -MATE - 1, moves[0]
        for move in moves:
            value = self._played(move, player, depth, ply, alpha=alpha, beta=beta, exact=exact)
            if value > best_value:
                best_value, best_move = value, move
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        flag = -1 if best_value <= original_alpha else 1 if best_value >= beta else 0
        self.table.put(position.hash, depth, best_value, flag, best_move)
        return best_value

    def _played(
        self, move: int, player: int, depth: int, ply: int, *, alpha: int, beta: int, exact: bool
    ) -> int:
        """Return a move's value to its player at a node of `_negamax`, searched below it."""
        position = self.position
        ended = position.play(move, player)
        # Out of time or not, the move is taken back: the position is left as it was found.
        try:
            if ended:
                # Completing a line ends the game at once: won, or under misère lost.
                return -(MATE - ply - 1) if self.misere else MATE - ply - 1
            if position.empty == 0:
                return 0
            if depth <= 1:
                return self._heuristic(player)
            return -self._negamax(3 - player, depth - 1, -beta, -alpha, ply + 1, exact=exact)
        finally:
            position.undo(move)

    def _candidates(
        self, player: int, hint: int | None, *, exact: bool, forced: bool = True
    ) -> list[int]:
        """Return the moves worth trying at a node, the most promising first; with `forced`,
        only a win at once, or the cells that stop the opponent's, when there are any."""
        position = self.position
        empty = position.empty_cells()
        if forced and not self.misere:
            wins = position.completing(player)
            if wins:
                return wins[:1]
            threats = position.completing(3 - player)
            if threats and not exact:
                # Any other move lets the opponent complete a line next.
                return threats
        if exact:
            moves = empty
        else:
            moves = [cell for cell in empty if position.near_marks[cell]] or [
                position.geometry.centre
                if position.cells[position.geometry.centre] == 0
                else empty[0]
            ]
        if self.misere:
            # Completing one's own line loses at once: never a candidate while another move
            # is not, even far from the marks. Such cells hold the most promise, so the cut
            # below would otherwise keep only them.
            losing = set(position.completing(player))
            if losing:
                moves = (
                    [cell for cell in moves if cell not in losing]
                    or [cell for cell in empty if cell not in losing]
                    or moves
                )
        moves = sorted(moves, key=lambda cell: (-self._promise(cell), cell))
        if not exact:
            moves = moves[:CANDIDATES_TRIED]
        if hint is not None and hint in moves:
            moves.remove(hint)
            moves.insert(0, hint)
        return moves

    def _promise(self, cell: int) -> int:
        """Return how much a cell's windows hold, for either side: a move's likely worth."""
        return self.position.promise[cell]

    def _heuristic(self, player_who_moved: int) -> int:
        """Return the heuristic value for the player who just moved, capped below the ends."""
        value = self.position.value if player_who_moved == 1 else -self.position.value
        value = -value if self.misere else value
        return max(-HEURISTIC_LIMIT, min(HEURISTIC_LIMIT, value))

    def _compiled(self, function: Callable[..., _Found], *arguments: object) -> _Found:
        """Call a compiled search function on this search's kernel, sharing the node count;
        raise OutOfTime if it stopped on the deadline or the node limit."""
        if self.kernel is None:
            raise AssertionError("only a compiled search has a kernel to call")
        geometry, state, table, limits = self.kernel
        limits[0] = self.nodes
        found = function(geometry, state, table, *arguments, limits)
        self.nodes = int(limits[0])
        aborted = found[0] if isinstance(found, tuple) else found
        if aborted == alphabeta.ABORTED:
            raise OutOfTime
        return found

    def _count_node(self) -> None:
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise OutOfTime
        if self.nodes % CLOCK_EVERY == 0 and self.clock() >= self.deadline:
            raise OutOfTime

    def _result(
        self,
        move: int,
        value: int,
        method: Method,
        depth: int,
        *,
        proven: bool,
        bound: int | None = None,
    ) -> SearchResult:
        """Return a result; with a `bound`, a proven win of at most that many plies, whose
        exact length (and so its score) is not known."""
        score, evaluation = self._judged(value, proven=proven and bound is None)
        return SearchResult(
            move=move,
            proven=proven,
            score=score,
            evaluation=1.0 if bound is not None else evaluation,
            method=method,
            depth=depth,
            nodes=self.nodes,
            seconds=self.clock() - self.started,
            wins_within=bound,
        )

    def _estimate(
        self,
        move: int,
        value: int,
        line: tuple[int, ...],
        *,
        proven: bool,
        bound: int | None = None,
    ) -> MoveEstimate:
        """Return one ranked move; with a `bound`, as `_result` takes it."""
        score, evaluation = self._judged(value, proven=proven and bound is None)
        if bound is not None:
            evaluation = 1.0
        return MoveEstimate(move, proven, score, evaluation, line, wins_within=bound)

    def _judged(self, value: int, *, proven: bool) -> tuple[int | None, float]:
        """Return a search value as a score (None unless proven) and an evaluation."""
        max_score = self.rules.max_score
        score = None
        if proven:
            if abs(value) > HEURISTIC_LIMIT:
                plies = MATE - abs(value)
                score = (max_score - plies) if value > 0 else (plies - max_score)
            else:
                score = 0
        if abs(value) > HEURISTIC_LIMIT:
            evaluation = 1.0 if value > 0 else -1.0
            if not proven:
                evaluation *= 0.99  # the heuristic search saw an end it has not proven
        elif proven:
            evaluation = 0.0
        else:
            evaluation = math.tanh(value / (2 * self.position.geometry.weights[self.rules.k]))
        return score, round(evaluation, 4)


def search(
    board: Board,
    mover: Mark,
    seconds: float,
    *,
    clock: Clock = time.perf_counter,
    max_nodes: int | None = None,
    compiled: bool = True,
) -> SearchResult:
    """Return the move for `mover` found within `seconds` (or `max_nodes`), and what is known."""
    return Search(board, mover, seconds, clock=clock, max_nodes=max_nodes, compiled=compiled).run()


def analyse(
    board: Board,
    mover: Mark,
    seconds: float,
    *,
    clock: Clock = time.perf_counter,
    max_nodes: int | None = None,
    compiled: bool = True,
) -> SearchAnalysis:
    """Return the candidate moves for `mover` valued within `seconds`, best first."""
    return Search(board, mover, seconds, clock=clock, max_nodes=max_nodes, compiled=compiled).rank()


#: Positions that take every compiled function down each of its paths: heuristic (with a
#: threat to block), exact, and misère.
_PREPARED = (
    (Rules(5, 5, 4), "X.O.. .XO.. ..X.. ..... ....."),
    (Rules(3, 3, 3), "X.. ... ..."),
    (Rules(5, 5, 3, misere=True), "X.... ..O.. ..... ..... ....."),
)


def prepare() -> int:
    """Load the compiled search from its cache, or compile it; return how many functions
    this call compiled. Run where the process starts, so that no request waits for it."""
    before = alphabeta.compilations()
    for rules, text in _PREPARED:
        board = Board.from_text(text.replace(" ", ""), rules)
        mover = Mark.O if board.count(Mark.X) > board.count(Mark.O) else Mark.X
        search(board, mover, 60.0, max_nodes=2_000)
        analyse(board, mover, 60.0, max_nodes=2_000)
    return alphabeta.compilations() - before


def main() -> int:
    """`python -m service.game.search`: compile the search into its cache, saying so."""
    started = time.perf_counter()
    compiled = prepare()
    sys.stderr.write(
        f"bestmove: the compiled search is ready ({compiled} functions compiled) "
        f"in {time.perf_counter() - started:.1f} s\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

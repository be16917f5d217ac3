"""A search within a time budget, for boards too big to solve into a table.

It answers any game of the family (up to 15x15, normal or misère) and says what it knows.
A result is *proven* only when a sound method found it, each of which considers every
reply the opponent has:

- the rules at the root: a move that wins at once; against two or more cells where the
  opponent wins next, a loss in two (normal rules, not caro: there closing a line's second
  end stops it too);
- the threat search (`compiled.threat_search.shortest_run_of_fours`, what its runs prove in
  `service.game.threats`; normal rules, not caro): the shortest run of fours, each move
  leaving the opponent one cell to stop a win; failing one, in freestyle, standard and
  renju, a win by fours and threes against every defence
  (`compiled.threat_search.win_by_threes`). Its length is the fastest win only up to five
  plies (under renju a run of fours up to three, a win by threes never); a longer one is a bound
  (`wins_within`), unless the exact search, with few cells empty, finds the value;
- an exact search, every move to the end of the game, when few cells are empty.

Under renju the cells black may not play (`barred`: its fouls) are never a root move, and
a lone cell that stops white's five is no stop when it is one. Inside the tree the rules
count black's lines as exactly five and white's as five or more, but a foul is not judged
at every node: so what would pass through one proves nothing. The exact search (for either
side) is not run; black's threat search (its fours, its threes and its blocks of white's
fours) leaves out every cell that may be a foul (read so that none passes), and runs are
exact only up to RENJU_EXACT_PLIES.

Otherwise the move comes from an alpha-beta search with iterative deepening over the cells
near the marks (less the ones after which a short look finds the opponent a run of fours,
while another is left), ordered by a transposition table, that stops on its deadline and plays the
best move of the last depth it finished. Its value is a heuristic: the marks each side has
in every k-cell window the other side has not entered, weighted by how full the window is.

Against the clock alone, the tree may be searched by several threads at once
(`service.game.shared_tree`), each depth to the value one thread finds; the look for a win
by threes then runs on a helper thread's position while the tree starts, and a win it finds
stops the tree and is the answer, as it would have been before the tree.

The tree, the threat search and the exact search run compiled, in `service.game.compiled`
(numba, without the interpreter lock): that is the one search. This module is the Python
around it: the rules at the root, read on a `SearchBoard` (`service.game.search_board`)
over the game's `Geometry` (`service.game.geometry`), the fallback move (the tree's own
likeliest, `compiled.candidates.likeliest_moves`), and the result; `service.game.analysis` ranks
every candidate with the same compiled functions.

Proven scores use the tables' convention (`Rules.max_score`): a win in p plies scores
max_score - p, a loss after p plies p - max_score, a draw 0.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

import numpy as np

from service.game import compiled
from service.game.board import Board, Mark
from service.game.compiled.candidates import CANDIDATES_TRIED
from service.game.compiled.kernel import HEURISTIC_LIMIT, MATE, Kernel
from service.game.geometry import geometry_of
from service.game.search_board import SearchBoard
from service.game.shared_tree import SharedTree
from service.game.threats import (
    DEFENCE_NODES,
    DEFENCE_SHARE,
    DEFENCE_THREES,
    EXACT_MOVE_PLIES,
    EXACT_RUN_PLIES,
    FOURS_SEARCH_SHARE,
    RENJU_EXACT_PLIES,
    THREAT_SEARCH_MOVES,
    THREE_SEARCH_K,
    THREE_SEARCH_MIN_CELLS,
    THREE_SEARCH_SHARE,
    THREE_SEARCH_THREES,
)
from service.game.transposition import new_table, slots_for

__all__ = [
    "CANDIDATES_TRIED",
    "EXACT_EMPTY_CELLS",
    "HEURISTIC_LIMIT",
    "MATE",
    "Method",
    "OutOfTime",
    "Search",
    "SearchResult",
    "ThreatLine",
    "search",
]

#: Below this many empty cells, every line of play is searched to the end: exact.
EXACT_EMPTY_CELLS = 8

#: Boards of more cells than the tables hold read a search's value within this limit (a
#: shaped search's on the fitted scale, `compiled.evaluation.SHAPE_SCALE`); the smaller
#: ones, whose answers never change, as before.
CALIBRATED_ABOVE_CELLS = 16
CALIBRATED_LIMIT = 0.98

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
    #: The heuristic search's estimate from the mean of its last two depths' values (the
    #: `evaluation` where fewer finished, or where an end was seen or proven): the leaves
    #: of five in a row favour the side that moved last at them, each side at one of the
    #: two depths, so that the mean weighs the two sides alike (Swap2's choice of a side).
    two_depth_evaluation: float
    #: A proven win whose length is not known exactly: it takes at most this many plies.
    wins_within: int | None = None

    @property
    def optimal(self) -> bool:
        """Return whether no other move is proven better: the move is among the best.

        True whenever the score is known, since it is the position's value: for what the
        rules decide (a win at once; or a loss in two, which every move is), for an exact
        result, and for a threat win of at most EXACT_RUN_PLIES plies (RENJU_EXACT_PLIES
        under renju).
        """
        return self.proven and self.score is not None


class ThreatLine(NamedTuple):
    """A proven win the threat search found: its first move, and the plies it takes at
    most against every defence."""

    first: int
    plies: int
    #: Whether it needs threes (a VCT), not fours alone: then its length is the shortest
    #: only up to EXACT_RUN_PLIES (under renju never), and so is its first move's value.
    threes: bool


class OutOfTime(Exception):
    """Raised inside the search when its deadline or node limit has passed."""


class Search:
    """One search of one position: its deadline, its counters and its transposition table."""

    def __init__(
        self,
        board: Board,
        mover: Mark,
        seconds: float,
        *,
        max_nodes: int | None = None,
        table_slots: int | None = None,
        barred: frozenset[int] = frozenset(),
        threads: int = 1,
        wines_weights: bool = False,
    ) -> None:
        # The clock starts first: setting the position up is part of the time the budget holds.
        self.started = time.perf_counter()
        self.deadline = self.started + seconds
        self.rules = board.rules
        self.misere = board.rules.misere
        #: Whether a line the opponent can complete is stopped only by taking its cell, so
        #: that two such cells lose and a four forces its block: under normal rules, but
        #: not in caro, where closing a line's second end stops it too.
        self.threats_forced = not self.misere and not board.rules.variant.closed_ends_block
        geometry = geometry_of(board.rules)
        self.position = SearchBoard(geometry, board)
        self.mover = 1 if mover is Mark.X else 2
        #: The root moves the mover may not play: under renju, black's fouls.
        self.barred = barred
        fouls = board.rules.variant.has_fouls
        #: Whether the exact search does: not under renju, where black's moves in it may
        #: be fouls, which would win black a draw it cannot have, or a game.
        self.exact_proves = not fouls
        #: Whether the threat search also tries threes (a VCT): in freestyle, standard and
        #: renju five in a row, where every reply that stops an open four is known (under
        #: caro a closed end stops one too); under renju white has no fouls and black's
        #: only take defences away from it, and black's threats and blocks leave out every
        #: cell that may be a foul.
        self.threes_tried = (
            self.threats_forced
            and board.rules.k == THREE_SEARCH_K
            and board.rules.rows * board.rules.cols > THREE_SEARCH_MIN_CELLS
        )
        #: How long a run of fours, and a run's first move, is exact (module docstring).
        self.exact_run_plies = RENJU_EXACT_PLIES if fouls else EXACT_RUN_PLIES
        self.exact_move_plies = RENJU_EXACT_PLIES if fouls else EXACT_MOVE_PLIES
        self.nodes = 0
        #: The root's value at each depth the heuristic search finished, the first first.
        self.depth_values: list[int] = []
        # Its size follows from the budget, never beyond transposition.TABLE_BYTES.
        entries = new_table(slots_for(seconds) if table_slots is None else table_slots)
        marks = np.array(self.position.cells, dtype=np.int64)
        left_ns = max(0, round((self.deadline - time.perf_counter()) * 1e9))
        deadline_ns = time.clock_gettime_ns(time.CLOCK_MONOTONIC) + left_ns
        #: The compiled search's state: the position, the table, the node limit, the deadline.
        self.kernel = compiled.state.new_kernel(
            geometry.arrays, marks, entries, deadline_ns, max_nodes, barred=sorted(barred)
        )
        if wines_weights:
            # Asked for where the evaluation's sign matters more than the move: Swap2's
            # decisions (`service.game.swap2`).
            compiled.state.value_leaves_by_wines_weights(self.kernel)
        #: Threads that search the tree at once, sharing its table: more than one only
        #: against the clock, since a node limit promises the same answer every time.
        self.threads = threads if max_nodes is None else 1
        self._marks = marks

    def run(self) -> SearchResult:
        """Search until a proof or the deadline; return the move and what is known of it."""
        position = self.position
        legal = position.empty_cells()
        if not legal:
            raise ValueError("the board is full: there is no move to search")
        threat = None
        exact_first = position.empty <= EXACT_EMPTY_CELLS and self.exact_proves
        # On several threads the look for a win by threes runs beside the tree, on a
        # helper's position: before it, the helper would idle for as long.
        threes_beside = self.threes_tried and self.threads > 1 and not exact_first
        threes_until: int | None = None  # then its deadline: its share, as it would have it
        if not self.misere:
            decided = self._by_the_rules()
            if decided is not None:
                return decided
            threat = self._threat_win(threes=not threes_beside) if self.threats_forced else None
            if threat is not None and threat.score is not None:
                return threat
            if threes_beside and threat is None:
                threes_until = self._until(THREE_SEARCH_SHARE)
        if exact_first:
            try:
                value, move = self._negamax_root(position.empty, exact=True)
                return self._result(move, value, Method.EXACT, position.empty, proven=True)
            except OutOfTime:
                pass  # fall back on what the threat search proved, or the heuristic search
        if threat is not None:
            return threat  # a proven win, its length only bounded
        refuted: list[int] = []
        if self.threats_forced:
            refuted = self._bar_threat_wins_against()
        try:
            return self._iterative_deepening(legal, threes_until=threes_until)
        finally:
            # The compiled position is handed back as it came; `barred` keeps the record.
            self.kernel.state[6][refuted] = 0

    # --- the rules and the threat search: sound, normal rules only (and not caro) ---

    def _by_the_rules(self) -> SearchResult | None:
        position, mover = self.position, self.mover
        if self._every_move_a_foul():
            # Black loses at once, whatever it plays (a five is never a foul).
            return self._result(min(position.free), -(MATE - 1), Method.RULES, 0, proven=True)
        wins = position.completing(mover)
        if wins:
            return self._result(wins[0], MATE - 1, Method.RULES, 0, proven=True)
        threats = position.completing(3 - mover)
        stops = [cell for cell in threats if cell not in self.barred]
        if (len(threats) >= 2 and self.threats_forced) or (threats and not stops):
            # Whatever is played, one of them is left (under renju also when the one stop is
            # black's foul): a loss in two. Block the first anyway, where the mover may.
            move = stops[0] if stops else self._unbarred(threats)[0]
            return self._result(move, -(MATE - 2), Method.RULES, 0, proven=True)
        return None

    def _threat_win(self, *, threes: bool = True) -> SearchResult | None:
        """Return a proven win made of threats, the shortest run of fours first (with
        `threes`, then a win by threes), or None."""
        found = self._threat_line(threes=threes)
        return None if found is None else self._threat_result(found)

    def _threat_result(self, found: ThreatLine) -> SearchResult:
        """Return the result of a proven win made of threats."""
        bound = found.plies if found.plies > self.exact_run_plies else None
        return self._result(
            found.first, MATE - found.plies, Method.THREATS, found.plies - 2, proven=True,
            bound=bound,
        )  # fmt: skip

    def _threat_line(self, *, threes: bool = True) -> ThreatLine | None:
        """Return the shortest win by fours found in time, else a win by fours and threes
        (with `threes`, where threes are tried), or None."""
        try:
            with self._slice(FOURS_SEARCH_SHARE):
                plies, first = self._compiled(
                    compiled.threat_search.shortest_run_of_fours, self.mover, THREAT_SEARCH_MOVES
                )
        except OutOfTime:
            return None
        if plies > 0:
            return ThreatLine(int(first), int(plies), threes=False)
        if not (threes and self.threes_tried):
            return None
        try:
            with self._slice(THREE_SEARCH_SHARE):
                plies, first = self._compiled(
                    compiled.threat_search.win_by_threes, self.mover, THREE_SEARCH_THREES,
                    THREAT_SEARCH_MOVES,
                )  # fmt: skip
        except OutOfTime:
            return None
        return None if plies == 0 else ThreatLine(int(first), int(plies), threes=True)

    def _win_by_threes_beside(self, kernel: Kernel, *, until: int, found: list[ThreatLine]) -> bool:
        """Look for a win by threes on a helper's position until the clock reads `until`,
        as `_threat_line` does, while the tree searches: add it to `found` and return True
        (the tree is stopped) if one is found in time."""
        geometry, state, table, limits = kernel
        deadline = int(limits[2])
        limits[2] = min(until, deadline)
        try:
            plies, first = compiled.threat_search.win_by_threes(
                geometry, state, table, self.mover, THREE_SEARCH_THREES, THREAT_SEARCH_MOVES,
                limits,
            )  # fmt: skip
        finally:
            limits[2] = deadline
        if plies in {0, compiled.kernel.ABORTED}:
            return False
        found.append(ThreatLine(int(first), int(plies), threes=True))
        return True

    def _move_exact_plies(self, line: ThreatLine) -> int:
        """Return how long a win's first move is worth exactly the win's length: after a
        four the block is forced, after a three the defence is a choice."""
        return self.exact_run_plies if line.threes else self.exact_move_plies

    def _bar_threat_wins_against(self) -> list[int]:
        """Bar the root moves after which the opponent wins by a run of fours, as far as
        a short look at each finds, as long as some candidate is left; return them."""
        candidates = self._unbarred(self._candidates(self.mover))
        if len(candidates) <= 1:
            return []
        losing = []
        limits = self.kernel.limits
        with self._slice(DEFENCE_SHARE):
            for move in candidates:
                node_limit = int(limits[1])
                limits[1] = min(node_limit, self.nodes + DEFENCE_NODES)
                try:
                    if self._compiled(
                        compiled.threat_search.threat_win_after, move, self.mover, DEFENCE_THREES,
                        THREAT_SEARCH_MOVES,
                    ):  # fmt: skip
                        losing.append(move)
                except OutOfTime:
                    if self.nodes <= limits[1] or limits[1] == node_limit:
                        break  # the deadline or the slice's limit, not this move's
                finally:
                    # A move's own limit reached: the node that found it is not counted.
                    self.nodes = min(self.nodes, int(limits[1]))
                    limits[1] = node_limit
        if not losing or len(losing) == len(candidates):
            return []
        self.barred = self.barred | frozenset(losing)
        self.kernel.state[6][losing] = 1
        return losing

    def _until(self, share: float) -> int:
        """Return when, on the compiled search's clock, `share` of the time left will
        have passed."""
        deadline = int(self.kernel.limits[2])
        now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        return now + int((deadline - now) * share)

    @contextlib.contextmanager
    def _slice(self, share: float) -> Iterator[None]:
        """Hold the compiled search to `share` of the time left, and of the nodes left
        under a node limit, for what runs inside."""
        limits = self.kernel.limits
        node_limit, deadline = int(limits[1]), int(limits[2])
        limits[2] = self._until(share)
        if node_limit != compiled.kernel.UNLIMITED_NODES:
            limits[1] = self.nodes + int((node_limit - self.nodes) * share)
        try:
            yield
        finally:
            # The slice's node limit reached: the node that found it is not counted.
            self.nodes = min(self.nodes, int(limits[1]))
            limits[1], limits[2] = node_limit, deadline

    # --- exact and heuristic alpha-beta ---

    def _iterative_deepening(
        self, legal: list[int], *, threes_until: int | None = None
    ) -> SearchResult:
        if self.threads > 1:
            tree = self.shared_tree(self.threads)
            threes: list[ThreatLine] = []
            beside = (
                None
                if threes_until is None
                else functools.partial(self._win_by_threes_beside, until=threes_until, found=threes)
            )
            move, value, depth = tree.deepen(
                self._fallback_move(legal), self.position.empty, beside=beside
            )
            self.nodes = tree.nodes()
            if threes:
                # The win the look beside found stopped the tree (every kernel's deadline
                # now passed: a Search runs once).
                return self._threat_result(threes[0])
            self.depth_values = tree.depth_values
        else:
            move, value, depth = self._deepen(legal)
        return self._result(move, value, Method.HEURISTIC, depth, proven=False)

    def shared_tree(self, threads: int) -> SharedTree:
        """Return this search's heuristic tree on `threads` threads, its node count so far
        in the main kernel's."""
        self.kernel.limits[0] = self.nodes
        return SharedTree(self.kernel, self._marks, self.mover, threads, misere=self.misere)

    def _deepen(self, legal: list[int]) -> tuple[int, int, int]:
        """Search one depth more at a time until the deadline or a seen end; return the move,
        its value and the depth last finished."""
        best_move, best_value, finished = self._fallback_move(legal), 0, 0
        for depth in range(1, self.position.empty + 1):
            try:
                value, move = self._negamax_root(depth, exact=False)
            except OutOfTime:
                # The move the stopped depth has shown best so far; the value and depth
                # reported stay those of the last depth finished.
                stopped = self._stopped_best()
                if stopped is not None and depth > 1:
                    best_move = stopped
                break
            best_move, best_value, finished = move, value, depth
            self.depth_values.append(value)
            if abs(value) > HEURISTIC_LIMIT:
                break  # an end was seen; deeper looks do not change the choice
        return best_move, best_value, finished

    def _stopped_best(self) -> int | None:
        """Return the best root move of the depth the deadline stopped: the first (the last
        depth's best) once searched in full, or one shown better than the best before it,
        by its null window while its full search goes on, or in full; None if none was."""
        limits = self.kernel.limits
        return None if limits[3] < 0 else int(limits[3])  # limits[4]: its value

    def _fallback_move(self, legal: list[int]) -> int:
        """Return a move for when no depth finishes in time: a forced one, or the likeliest."""
        position, mover = self.position, self.mover
        threats = position.completing(3 - mover) if not self.misere else []
        threats = [cell for cell in threats if cell not in self.barred]
        if threats:
            return threats[0]
        ordered = self._unbarred(self._candidates(mover) or legal)
        return ordered[0]

    def _negamax_root(self, depth: int, *, exact: bool) -> tuple[int, int]:
        found: tuple[int, int] = self._compiled(
            compiled.tree.root_value, self.mover, depth, self.misere, exact
        )
        return found

    def _candidates(self, player: int, *, forced: bool = True) -> list[int]:
        """Return the moves the heuristic tree tries first at the root, the most promising
        first (the compiled `candidates.likeliest_moves`: one implementation for both); with
        `forced`, only a win at once, the cells that stop the opponent's, or the answers to
        its threat of an open four, when there are any."""
        geometry, state, _table, _limits = self.kernel
        moves = compiled.candidates.likeliest_moves(geometry, state, player, self.misere, forced)
        return [int(cell) for cell in moves]

    def _every_move_a_foul(self) -> bool:
        """Return whether every empty cell is barred: under renju, black's foul."""
        return bool(self.barred) and self.barred.issuperset(self.position.free)

    def _unbarred(self, moves: list[int]) -> list[int]:
        """Return a root's moves without the barred cells; if none is left, the
        CANDIDATES_TRIED most promising other empty cells; if there is none, the moves as
        they were (the compiled `compiled.candidates.unbarred`, as the tree's root takes them)."""
        _geometry, state, _table, _limits = self.kernel
        kept = compiled.candidates.unbarred(state, np.array(moves, dtype=np.int64))
        return [int(cell) for cell in kept]

    def _compiled(self, function: Callable[..., _Found], *arguments: object) -> _Found:
        """Call a compiled search function on this search's kernel, sharing the node count;
        raise OutOfTime if it stopped on the deadline or the node limit."""
        geometry, state, table, limits = self.kernel
        limits[0] = self.nodes
        found = function(geometry, state, table, *arguments, limits)
        self.nodes = int(limits[0])
        aborted = found[0] if isinstance(found, tuple) else found
        if aborted == compiled.kernel.ABORTED:
            raise OutOfTime
        return found

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
        if bound is not None:
            evaluation = 1.0
        two_depth_evaluation = evaluation
        last_two = self.depth_values[-2:] if method is Method.HEURISTIC else []
        if len(last_two) == 2 and all(abs(value) <= HEURISTIC_LIMIT for value in last_two):
            two_depth_evaluation = self._judged(sum(last_two) // 2, proven=False)[1]
        return SearchResult(
            move=move,
            proven=proven,
            score=score,
            evaluation=evaluation,
            method=method,
            depth=depth,
            nodes=self.nodes,
            seconds=time.perf_counter() - self.started,
            wins_within=bound,
            two_depth_evaluation=two_depth_evaluation,
        )

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
            evaluation = math.tanh(value / self.value_scale)
            if self.within_limit:
                # A leaf the shapes decide is worth far more than the scale, as can be the
                # windows' count: either reads below an end the tree saw (0.99).
                evaluation = max(-CALIBRATED_LIMIT, min(CALIBRATED_LIMIT, evaluation))
        return score, round(evaluation, 4)

    @property
    def value_scale(self) -> int:
        """Return the value this search reads as an evaluation of tanh(1): its leaves' scale."""
        if not self._reads_shapes():
            return 2 * self.position.geometry.weights[self.rules.k]
        if not self.within_limit:
            # Boards whose answers never change read shapes on the scale they always had.
            return compiled.evaluation.SMALL_BOARD_SHAPE_SCALE
        if compiled.state.reads_fitted_weights(self.kernel):
            return compiled.evaluation.FITTED_SHAPE_SCALE
        return compiled.evaluation.SHAPE_SCALE

    @property
    def within_limit(self) -> bool:
        """Return whether the board reads its values within CALIBRATED_LIMIT (more cells
        than the tables hold), by shapes on the fitted scale."""
        return self.rules.cell_count > CALIBRATED_ABOVE_CELLS

    def _reads_shapes(self) -> bool:
        """Return whether the leaves are valued by shapes: five in a row, not misère."""
        return compiled.state.keeps_shapes(self.kernel) and not self.misere


def search(
    board: Board,
    mover: Mark,
    seconds: float,
    *,
    max_nodes: int | None = None,
    barred: frozenset[int] = frozenset(),
    threads: int = 1,
    wines_weights: bool = False,
) -> SearchResult:
    """Return the move for `mover` found within `seconds` (or `max_nodes`), and what is
    known; never one of the `barred` cells (renju's fouls), if another move is legal; the
    tree searched by `threads` threads at once when only the clock limits it; with
    `wines_weights`, its leaves valued by Wine's weights whatever the game."""
    found = Search(
        board, mover, seconds, max_nodes=max_nodes, barred=barred, threads=threads,
        wines_weights=wines_weights,
    )  # fmt: skip
    return found.run()

"""An analysis beyond the tables: the candidate moves of a position valued within a budget,
best first, and what is proven of each and of the position (`analyse`).

It is a search (`service.game.search`) that values every candidate instead of choosing one:
each with the full window, one ply deeper each round until the deadline, so that each value
is the search's own for that move. It proves what the search proves, by the same means: the
bookkeeping is Python, each candidate's value and expected line come from the compiled
search (`service.game.compiled`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from service.game import compiled
from service.game.board import Board, Mark
from service.game.compiled.kernel import HEURISTIC_LIMIT, MATE
from service.game.search import EXACT_EMPTY_CELLS, Method, OutOfTime, Search, ThreatLine

__all__ = ["MoveEstimate", "Ranking", "SearchAnalysis", "analyse"]


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


class Ranking(Search):
    """One analysis of one position: a search that values every candidate move."""

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
        exact = position.empty <= EXACT_EMPTY_CELLS and self.exact_proves
        candidates = self._unbarred(position.empty_cells() if exact else self._root_candidates())
        values: dict[int, int] = {}
        methods: dict[int, Method] = {}
        for move in candidates:
            decided = self._decided(move)
            if decided is not None:
                values[move], methods[move] = decided, Method.RULES
        threat = self._threat_line() if self.threats_forced else None
        bounds: dict[int, int] = {}
        if threat is not None and threat.first not in values:
            first, plies = threat.first, threat.plies
            candidates = sorted({*candidates, first})
            values[first], methods[first] = MATE - plies, Method.THREATS
            if plies > self._move_exact_plies(threat):
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
        # Where evaluations stop at a limit, moves that read alike go by their values.
        within_limit = self.within_limit
        estimates.sort(
            key=lambda found: (
                -found.evaluation,
                -(found.score or 0),
                -values[found.move] if within_limit else 0,
                found.move,
            )
        )
        best = estimates[0].move
        every_move_exact = exact and len(methods) == len(values)
        value = self._proven_value(values, threat, every_move_exact=every_move_exact)
        score = None if value is None else self._judged(value, proven=True)[0]
        wins_within = threat.plies if value is None and threat is not None else None
        return SearchAnalysis(
            moves=tuple(estimates),
            method=methods.get(best, Method.HEURISTIC),
            depth=finished,
            nodes=self.nodes,
            seconds=time.perf_counter() - self.started,
            score=score,
            wins_within=wins_within,
        )

    def _proven_value(
        self,
        values: dict[int, int],
        threat: ThreatLine | None,
        *,
        every_move_exact: bool,
    ) -> int | None:
        """Return the position's value if an analysis proves it, else None: by the means
        `run` has, the rules, a short enough run of fours, or every move searched exactly."""
        position, mover = self.position, self.mover
        # Renju: when every move is black's foul, each loses at once, as `_decided` says.
        if every_move_exact or self._every_move_a_foul():
            return max(values.values())
        if self.misere:
            return None
        if position.completing(mover):
            return MATE - 1
        threats = position.completing(3 - mover)
        # Two cells to stop, or (renju) only stops that are black's fouls: a loss in two.
        if (self.threats_forced and len(threats) >= 2) or (
            threats and all(cell in self.barred for cell in threats)
        ):
            return -(MATE - 2)
        if threat is not None and threat.plies <= self.exact_run_plies:
            return MATE - threat.plies
        return None

    def _root_candidates(self) -> list[int]:
        """Return the moves an analysis ranks: the likeliest, and every cell ending a line."""
        likeliest = self._candidates(self.mover, forced=False)
        ending = self.position.completing(self.mover) + self.position.completing(3 - self.mover)
        return sorted(set(likeliest) | set(ending))

    def _decided(self, move: int) -> int | None:
        """Return the value of a root move the rules decide at once, or None."""
        position, mover = self.position, self.mover
        if move in self.barred:
            return -(MATE - 1)  # renju: black's foul, ranked only when every move is one
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
        value: int = self._compiled(
            compiled.tree.value_after, move, self.mover, depth, self.misere, exact
        )
        return value

    def _expected_line(self, move: int, depth: int) -> tuple[int, ...]:
        """Return a move and the replies the transposition table holds best after it."""
        geometry, state, table, _limits = self.kernel
        line = compiled.tree.expected_line(geometry, state, table, move, self.mover, depth)
        return tuple(int(cell) for cell in line)

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


def analyse(
    board: Board,
    mover: Mark,
    seconds: float,
    *,
    max_nodes: int | None = None,
    barred: frozenset[int] = frozenset(),
) -> SearchAnalysis:
    """Return the candidate moves for `mover` valued within `seconds`, best first; none of
    the `barred` cells (renju's fouls), if another move is legal."""
    return Ranking(board, mover, seconds, max_nodes=max_nodes, barred=barred).rank()

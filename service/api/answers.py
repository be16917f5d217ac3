"""Answers as JSON bytes; those that can never change, kept in a cache bounded in bytes.

Games up to 4x4 are answered from their tables. Any other is searched, within the
request's budget and a search slot (`Admission`), taken before any work; its answers depend
on the time the search had, so they are never cached.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache

from service.api.admission import Admission, Asked, BatchBudget
from service.api.problems import REQUEST_FAILURES, Problem, problem_for
from service.api.schemas import (
    AnalysisResponse,
    MoveRequest,
    MoveResponse,
    Swap2Request,
    Swap2Response,
)
from service.game.difficulty import Difficulty
from service.game.engine import Engine
from service.game.position import Position
from service.game.swap2 import decide, step_of

#: What an entry costs beyond its body: the key (a board and its cells), the cache's own
#: bookkeeping (three dictionaries and an order) and the bytes object's header: about 1,500
#: bytes measured with tracemalloc for a 4x4 board (python -m benchmarks.memory).
ENTRY_OVERHEAD_BYTES = 1600

#: Told the mover's outcome of every move answered: "win", "draw" or "loss" under perfect
#: play after the move; "unknown" when a search has not proven it; "game_over" when the board
#: was already finished.
AnswerListener = Callable[[str], None]
GAME_OVER = "game_over"
UNKNOWN = "unknown"

#: A cached answer: its JSON, and the mover's outcome for the listener (GAME_OVER for analyses).
Cached = tuple[bytes, str]


@dataclass(frozen=True, slots=True)
class Answer:
    """A move request's answer as JSON, and whether it never changes: perfect play or a
    seed, from a table (a search's answer depends on the time it had), so caches may keep it."""

    body: bytes
    lasting: bool


def entry_size(entry: Cached) -> int:
    """Return what a cached answer costs, counted in bytes."""
    return len(entry[0]) + ENTRY_OVERHEAD_BYTES


class Answers:
    """Serializes the engine's answers, keeping those of perfect play: they never change."""

    def __init__(
        self,
        engine: Engine,
        on_answer: AnswerListener | None,
        cache_bytes: int,
        admission: Admission | None = None,
    ) -> None:
        self._engine = engine
        self._on_answer = on_answer
        self._admission = admission if admission is not None else Admission.with_defaults()
        self._cache: LRUCache[Hashable, Cached] = LRUCache(
            maxsize=cache_bytes, getsizeof=entry_size
        )
        # cachetools' caches are not thread-safe; gthread workers answer from many threads.
        self._lock = threading.Lock()

    @property
    def cached_bytes(self) -> int:
        """Return how many bytes the cached answers count for now."""
        return int(self._cache.currsize)

    def analysis(self, request: MoveRequest) -> bytes:
        """Return the JSON analysis of a request's board: it depends on board and player only
        (and, beyond the tables, on the search's budget)."""
        budget_ms = self._admission.budget_ms(request.budget_ms)
        game = request.to_game()
        position = self._engine.position(game.board, request.player, foul=game.foul)
        if position.in_table:
            return self._remembered(
                ("analysis", position.board, position.side_to_move),
                lambda: (self._serialize_analysis(position, budget_ms), GAME_OVER),
            )[0]
        with self._admission.slot(Asked.ANALYSIS, budget_ms, searching=position.searches_for(None)):
            return self._serialize_analysis(position, budget_ms)

    def _serialize_analysis(self, position: Position, budget_ms: int) -> bytes:
        ranked = self._engine.analyse(position, budget_seconds=budget_ms / 1000)
        self._admission.heard(ranked.search)
        response = AnalysisResponse.from_analysis(ranked, budget_ms)
        return response.to_json(searched_game=ranked.searched_game)

    def move(self, request: MoveRequest) -> Answer:
        """Return the answer to a move request, and tell the listener its outcome."""
        if request.difficulty is Difficulty.PERFECT:
            # A request answered before is answered again without checking its position:
            # only legal positions' answers are kept. The budget is checked all the same.
            self._admission.budget_ms(request.budget_ms)
            with self._lock:
                found = self._cache.get(_move_key(request))
            if found is not None:
                body, outcome = found
                self._told(outcome)
                return Answer(body, lasting=True)
        planned = self._plan(request)
        with self._admission.slot(
            Asked.MOVE, planned.budget_ms, searching=planned.searches
        ) as threads:
            answer, outcome = self._answer(planned, planned.budget_ms, threads)
        self._told(outcome)
        return answer

    def moves(self, items: Sequence[Any]) -> bytes:
        """Return the JSON answers to a batch, in order, a bad item's problem in its slot.

        Every item is checked before any is answered. The budgets of the items that search
        add up to at most the maximum budget; an item beyond it gets the
        `batch_budget_exceeded` problem. The searches take one slot, before any work, for
        the batch's whole budget: without a free one the whole batch is refused at once
        (Busy). They share one deadline, so the batch searches no longer than its budgets
        add up to: an item that finds less time left than it asked for searches for what is
        left (its answer's `budget_ms` says so).
        """
        budgets = BatchBudget(self._admission.max_budget_ms)
        plans: list[Planned | Problem] = []
        for item in items:
            try:
                planned = self._plan(MoveRequest.model_validate(item))
                if planned.searches:
                    budgets.spend(planned.budget_ms)
            except (Problem, *REQUEST_FAILURES) as error:
                plans.append(problem_for(error))
            else:
                plans.append(planned)
        results: list[bytes] = []
        with self._admission.slot(
            Asked.BATCH, budgets.spent_ms, searching=budgets.spent_ms > 0
        ) as threads:
            budgets.start()
            for plan in plans:
                if isinstance(plan, Problem):
                    results.append(plan.to_json())
                    continue
                budget_ms = budgets.left_for(plan.budget_ms) if plan.searches else plan.budget_ms
                answer, outcome = self._answer(plan, budget_ms, threads)
                self._told(outcome)
                results.append(answer.body)
        return b'{"results":[' + b",".join(results) + b"]}"

    def swap2(self, request: Swap2Request) -> bytes:
        """Return the JSON Swap2 decision on a request's game, searched within its budget
        and a search slot (never cached: it depends on the time the search had)."""
        budget_ms = self._admission.budget_ms(request.budget_ms)
        step = step_of(request.to_board(), as_moves=request.moves is not None)
        with self._admission.slot(Asked.SWAP2, budget_ms) as threads:
            choice = decide(step, budget_ms / 1000, threads=threads)
        for found in choice.searches:
            self._admission.heard(found)
        return Swap2Response.from_choice(choice, budget_ms).model_dump_json().encode()

    def _plan(self, request: MoveRequest) -> Planned:
        """Check a request before any work: its budget, its position, whether it searches."""
        budget_ms = self._admission.budget_ms(request.budget_ms)
        game = request.to_game()
        position = self._engine.position(game.board, request.player, foul=game.foul)
        return Planned(request, position, budget_ms, position.searches_for(request.difficulty))

    def _answer(self, planned: Planned, budget_ms: int, threads: int) -> tuple[Answer, str]:
        """Answer a planned move request: from the cache, the table, the rules or a search."""
        request, position = planned.request, planned.position
        # Perfect play or a seed, from a table: the same request always gets the same answer.
        lasting = position.in_table and request.deterministic
        if position.in_table and request.difficulty is Difficulty.PERFECT:
            body, outcome = self._remembered(
                _move_key(request),
                lambda: self._serialize(position, budget_ms),
            )
        else:
            body, outcome = self._serialize(
                position, budget_ms, request.difficulty, request.seed, threads
            )
        return Answer(body, lasting), outcome

    def _told(self, outcome: str) -> None:
        if self._on_answer is not None:
            self._on_answer(outcome)

    def _remembered(self, key: Hashable, make: Callable[[], Cached]) -> Cached:
        with self._lock:
            found = self._cache.get(key)
        if found is not None:
            return found
        # Made outside the lock: two threads may both make the same answer, never a wrong one.
        made = make()
        if entry_size(made) <= self._cache.maxsize:
            with self._lock:
                self._cache[key] = made
        return made

    def _serialize(
        self,
        position: Position,
        budget_ms: int,
        difficulty: Difficulty = Difficulty.PERFECT,
        seed: int | None = None,
        threads: int = 1,
    ) -> Cached:
        rng = random.Random(seed) if seed is not None else None  # noqa: S311 -- a game move
        advice = self._engine.advise(
            position, difficulty, rng, budget_seconds=budget_ms / 1000, threads=threads
        )
        self._admission.heard(advice.search)
        body = MoveResponse.from_advice(advice, budget_ms).to_json(
            searched_game=advice.searched_game
        )
        if advice.chosen is None:
            return body, GAME_OVER
        outcome = advice.chosen.outcome
        return body, outcome.value if outcome is not None else UNKNOWN


def _move_key(request: MoveRequest) -> Hashable:
    """The cache key of a perfect-play move request: its board and the player it names."""
    return ("move", request.to_board(), request.player)


@dataclass(frozen=True, slots=True)
class Planned:
    """A move request checked before any work: its position, its budget, whether it searches."""

    request: MoveRequest
    position: Position
    budget_ms: int
    searches: bool

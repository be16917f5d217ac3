"""Answers as JSON bytes; those that can never change, kept in a cache bounded in bytes.

Games up to 4x4 are answered from their tables. Any other is searched, within the
request's budget and a search slot (`Searching`); its answers depend on the time the search
had, so they are never cached.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from cachetools import LRUCache

from service.api.admission import Asked, Busy, HeldSlot, Searching
from service.api.problems import REQUEST_FAILURES, Problem, problem_for
from service.api.schemas import AnalysisResponse, MoveRequest, MoveResponse
from service.game.board import Board, Mark
from service.game.difficulty import Difficulty
from service.game.engine import Engine

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
        searching: Searching | None = None,
    ) -> None:
        self._engine = engine
        self._on_answer = on_answer
        self._searching = searching if searching is not None else Searching.with_defaults()
        self._cache: LRUCache[Hashable, Cached] = LRUCache(
            maxsize=cache_bytes, getsizeof=entry_size
        )
        # cachetools' caches are not thread-safe; gthread workers answer from many threads.
        self._lock = threading.Lock()

    @property
    def cached_bytes(self) -> int:
        """Return how many bytes the cached answers count for now."""
        return int(self._cache.currsize)

    def fixed(self, request: MoveRequest) -> bool:
        """Return whether a request's answer never changes: perfect play or a seed, from a
        table (a search's answer depends on the time it had)."""
        return request.deterministic and self._engine.holds(request.to_board().rules)

    def analysis(self, request: MoveRequest) -> bytes:
        """Return the JSON analysis of a request's board: it depends on board and player only
        (and, beyond the tables, on the search's budget)."""
        board = request.to_board()
        budget_ms = self._searching.budget_ms(request.budget_ms)
        if self._engine.holds(board.rules):
            return self._remembered(
                ("analysis", board, request.player),
                lambda: (self._serialize_analysis(board, request.player, budget_ms), GAME_OVER),
            )[0]
        with HeldSlot(self._searching, Asked.ANALYSIS) as held:
            self._take_slot_if_searching(held, board, request.player, searching=True)
            return self._serialize_analysis(board, request.player, budget_ms)

    def _serialize_analysis(self, board: Board, player: Mark | None, budget_ms: int) -> bytes:
        ranked = self._engine.analyse(board, player, budget_seconds=budget_ms / 1000)
        if ranked.search is not None:
            found = ranked.search
            self._searching.heard(found.method.value, found.seconds, found.depth, found.nodes)
        response = AnalysisResponse.from_analysis(ranked, budget_ms)
        return response.to_json(searched_game=ranked.searched_game)

    def move(self, request: MoveRequest) -> bytes:
        """Return the JSON answer to a move request, and tell the listener its outcome."""
        with HeldSlot(self._searching, Asked.MOVE) as held:
            body, outcome = self._move(request, held)
        self._told(outcome)
        return body

    def moves(self, items: Sequence[Any]) -> bytes:
        """Return the JSON answers to a batch, in order, a bad item's problem in its slot.

        The budgets of the items that search add up to at most the maximum budget; an item
        beyond it gets the `batch_budget_exceeded` problem. The searches take one slot, held
        for the rest of the batch; without a free slot the whole batch is refused (Busy).
        """
        results: list[bytes] = []
        with HeldSlot(self._searching, Asked.BATCH) as held:
            budgets = BatchBudget(self._searching.max_budget_ms)
            for item in items:
                try:
                    request = MoveRequest.model_validate(item)
                    body, outcome = self._move(request, held, budgets)
                except Busy:
                    raise  # the whole batch is refused, not one item
                except (Problem, *REQUEST_FAILURES) as error:
                    body = problem_for(error).to_json()
                else:
                    self._told(outcome)
                results.append(body)
        return b'{"results":[' + b",".join(results) + b"]}"

    def _move(
        self,
        request: MoveRequest,
        held: HeldSlot,
        batch: BatchBudget | None = None,
    ) -> Cached:
        board = request.to_board()
        budget_ms = self._searching.budget_ms(request.budget_ms)
        if self._engine.holds(board.rules):
            if request.difficulty is Difficulty.PERFECT:
                return self._remembered(
                    ("move", board, request.player),
                    lambda: self._serialize(board, request.player, budget_ms),
                )
            return self._serialize(
                board, request.player, budget_ms, request.difficulty, request.seed
            )
        searching = (
            self._engine.may_search(board, request.difficulty) and not board.status().is_over
        )
        if searching and batch is not None:
            self._engine.legal_side_to_move(board, request.player)
            batch.spend(budget_ms)
        self._take_slot_if_searching(held, board, request.player, searching=searching)
        return self._serialize(board, request.player, budget_ms, request.difficulty, request.seed)

    def _take_slot_if_searching(
        self, held: HeldSlot, board: Board, player: Mark | None, *, searching: bool
    ) -> None:
        """Hold a search slot if answering searches; raise Busy if none is free.

        A board no game reaches is refused first, without a slot: that answer needs no search.
        """
        if not searching or board.status().is_over:
            return  # a finished game has no move to search for
        self._engine.legal_side_to_move(board, player)
        held.take()

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
        board: Board,
        player: Mark | None,
        budget_ms: int,
        difficulty: Difficulty = Difficulty.PERFECT,
        seed: int | None = None,
    ) -> Cached:
        rng = random.Random(seed) if seed is not None else None  # noqa: S311 -- a game move
        advice = self._engine.advise(
            board, player, difficulty, rng, budget_seconds=budget_ms / 1000
        )
        if advice.search is not None:
            found = advice.search
            self._searching.heard(found.method.value, found.seconds, found.depth, found.nodes)
        body = MoveResponse.from_advice(advice, budget_ms).to_json(
            searched_game=advice.searched_game
        )
        if advice.chosen is None:
            return body, GAME_OVER
        outcome = advice.chosen.outcome
        return body, outcome.value if outcome is not None else UNKNOWN


class BatchBudget:
    """What a batch's searches may take together: at most the maximum budget of one search."""

    def __init__(self, total_ms: int) -> None:
        self._total_ms = total_ms
        self._spent_ms = 0

    def spend(self, budget_ms: int) -> None:
        """Count an item's budget; raise the `batch_budget_exceeded` problem if it would not fit."""
        if self._spent_ms + budget_ms > self._total_ms:
            detail = (
                f"this item's search would take the batch's searches to "
                f"{self._spent_ms + budget_ms} ms, over the {self._total_ms} ms a batch may "
                "search for: send it in another batch"
            )
            raise Problem(
                422,
                "batch_budget_exceeded",
                detail,
                errors=[{"loc": ["budget_ms"], "msg": detail}],
            )
        self._spent_ms += budget_ms

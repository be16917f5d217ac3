"""Answers as JSON bytes; those that can never change, kept in a cache bounded in bytes."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Hashable

from cachetools import LRUCache

from service.api.schemas import AnalysisResponse, MoveRequest, MoveResponse
from service.game.board import Board, Mark
from service.game.difficulty import Difficulty
from service.game.engine import Engine, Outcome

#: What an entry costs beyond its body: the key (a board and its cells), the cache's own
#: bookkeeping (three dictionaries and an order) and the bytes object's header: about 1,500
#: bytes measured with tracemalloc for a 4x4 board (python -m benchmarks.memory).
ENTRY_OVERHEAD_BYTES = 1600

#: Told the mover's outcome of every move answered (None: the game was already over).
AnswerListener = Callable[[Outcome | None], None]

#: A cached answer: its JSON, and the mover's outcome for the listener (None for analyses).
Cached = tuple[bytes, Outcome | None]


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
    ) -> None:
        self._engine = engine
        self._on_answer = on_answer
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
        """Return the JSON analysis of a request's board: it depends on board and player only."""
        board = request.position()
        return self._remembered(
            ("analysis", board, request.player),
            lambda: (self._serialize_analysis(board, request.player), None),
        )[0]

    def _serialize_analysis(self, board: Board, player: Mark | None) -> bytes:
        ranked = self._engine.analyse(board, player)
        return AnalysisResponse.from_analysis(ranked).model_dump_json().encode()

    def move(self, request: MoveRequest) -> bytes:
        """Return the JSON answer to a move request, and tell the listener its outcome."""
        board = request.position()
        if request.difficulty is Difficulty.PERFECT:
            body, outcome = self._remembered(
                ("move", board, request.player), lambda: self._serialize(board, request.player)
            )
        else:
            body, outcome = self._serialize(board, request.player, request.difficulty, request.seed)
        if self._on_answer is not None:
            self._on_answer(outcome)
        return body

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
        difficulty: Difficulty = Difficulty.PERFECT,
        seed: int | None = None,
    ) -> Cached:
        rng = random.Random(seed) if seed is not None else None  # noqa: S311 -- a game move
        advice = self._engine.advise(board, player, difficulty, rng)
        body = MoveResponse.from_advice(advice).model_dump_json().encode()
        return body, advice.chosen.outcome if advice.chosen else None

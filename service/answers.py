"""Answers as JSON bytes; those that can never change, made once per process."""

from __future__ import annotations

import random
from functools import lru_cache

from service.board import Board, Cell, Mark
from service.engine import Difficulty, Engine, Outcome
from service.metrics import Metrics
from service.schemas import AnalysisResponse, MoveRequest, MoveResponse

#: Room for every legal board with every `player` (about 17,000): perfect play, cached.
PERFECT_ANSWERS_CACHED = 32_768


class Answers:
    """Serializes the engine's answers, keeping those of perfect play: they never change."""

    def __init__(self, engine: Engine, metrics: Metrics) -> None:
        self._engine = engine
        self._metrics = metrics
        self._perfect = lru_cache(maxsize=PERFECT_ANSWERS_CACHED)(self._serialize)
        self._analyses = lru_cache(maxsize=PERFECT_ANSWERS_CACHED)(self._serialize_analysis)

    def analysis(self, request: MoveRequest) -> bytes:
        """Return the JSON analysis of a request's board: it depends on board and player only."""
        return self._analyses(request.board, request.player)

    def _serialize_analysis(self, cells: tuple[Cell, ...], player: Mark | None) -> bytes:
        ranked = self._engine.analyse(Board(cells), player)
        return AnalysisResponse.from_analysis(ranked).model_dump_json().encode()

    def move(self, request: MoveRequest) -> bytes:
        """Return the JSON answer to a move request, and count it by outcome."""
        if request.difficulty is Difficulty.PERFECT:
            body, outcome = self._perfect(request.board, request.player)
        else:
            body, outcome = self._serialize(
                request.board, request.player, request.difficulty, request.seed
            )
        self._metrics.count_move(outcome)
        return body

    def _serialize(
        self,
        cells: tuple[Cell, ...],
        player: Mark | None,
        difficulty: Difficulty = Difficulty.PERFECT,
        seed: int | None = None,
    ) -> tuple[bytes, Outcome | None]:
        rng = random.Random(seed) if seed is not None else None  # noqa: S311 -- a game move
        advice = self._engine.advise(Board(cells), player, difficulty, rng)
        body = MoveResponse.from_advice(advice).model_dump_json().encode()
        return body, advice.chosen.outcome if advice.chosen else None

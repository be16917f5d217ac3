"""Answers as JSON bytes; those that can never change, made once per process."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache

from service.api.schemas import AnalysisResponse, MoveRequest, MoveResponse
from service.game.board import Board, Mark
from service.game.difficulty import Difficulty
from service.game.engine import Engine, Outcome

#: Room for every legal 3x3 board with every `player` (about 17,000) and the most asked
#: positions of the larger games: perfect play, cached.
PERFECT_ANSWERS_CACHED = 32_768

#: Told the mover's outcome of every move answered (None: the game was already over).
AnswerListener = Callable[[Outcome | None], None]


class Answers:
    """Serializes the engine's answers, keeping those of perfect play: they never change."""

    def __init__(self, engine: Engine, on_answer: AnswerListener | None = None) -> None:
        self._engine = engine
        self._on_answer = on_answer
        self._perfect = lru_cache(maxsize=PERFECT_ANSWERS_CACHED)(self._serialize)
        self._analyses = lru_cache(maxsize=PERFECT_ANSWERS_CACHED)(self._serialize_analysis)

    def analysis(self, request: MoveRequest) -> bytes:
        """Return the JSON analysis of a request's board: it depends on board and player only."""
        return self._analyses(request.position(), request.player)

    def _serialize_analysis(self, board: Board, player: Mark | None) -> bytes:
        ranked = self._engine.analyse(board, player)
        return AnalysisResponse.from_analysis(ranked).model_dump_json().encode()

    def move(self, request: MoveRequest) -> bytes:
        """Return the JSON answer to a move request, and tell the listener its outcome."""
        board = request.position()
        if request.difficulty is Difficulty.PERFECT:
            body, outcome = self._perfect(board, request.player)
        else:
            body, outcome = self._serialize(board, request.player, request.difficulty, request.seed)
        if self._on_answer is not None:
            self._on_answer(outcome)
        return body

    def _serialize(
        self,
        board: Board,
        player: Mark | None,
        difficulty: Difficulty = Difficulty.PERFECT,
        seed: int | None = None,
    ) -> tuple[bytes, Outcome | None]:
        rng = random.Random(seed) if seed is not None else None  # noqa: S311 -- a game move
        advice = self._engine.advise(board, player, difficulty, rng)
        body = MoveResponse.from_advice(advice).model_dump_json().encode()
        return body, advice.chosen.outcome if advice.chosen else None

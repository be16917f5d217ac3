"""The cache of answers that never change: bounded in bytes, least recently used first out."""

from __future__ import annotations

import random

from flask import Flask

from service.api.answers import ENTRY_OVERHEAD_BYTES, Answers
from service.api.app_settings import AppSettings
from service.api.schemas import MoveRequest
from service.game.board import Board, Mark
from service.game.engine import Engine
from service.game.rules import Rules
from service.ops.environment import Environment, Settings
from tests.helpers import ServiceFactory

FOUR = Rules(4, 4, 3)


def distinct_4x4_requests(count: int, seed: int = 5) -> list[MoveRequest]:
    """Distinct legal 4x4 positions in progress, as analysis requests."""
    rng, found = random.Random(seed), set()
    requests: list[MoveRequest] = []
    while len(requests) < count:
        board, mover = Board.empty(FOUR), Mark.X
        for _ in range(rng.randrange(1, 8)):
            if board.status().is_over:
                break
            board, mover = board.play(rng.choice(board.empty_cells()), mover), mover.opponent
        if not board.status().is_over and board.cells not in found:
            found.add(board.cells)
            requests.append(
                MoveRequest.model_validate(
                    {"board": board.to_text(), "rules": {"k": 3}, "player": mover.value}
                )
            )
    return requests


def test_the_cache_never_counts_more_than_its_bound(engine: Engine) -> None:
    bound = 64 * 1024
    answers = Answers(engine, None, bound)
    for request in distinct_4x4_requests(300):
        answers.analysis(request)
        assert answers.cached_bytes <= bound
    # Full: it holds what fits, not everything (300 analyses take several times the bound).
    assert answers.cached_bytes > bound - 4 * 1024 - ENTRY_OVERHEAD_BYTES


def test_an_answer_from_the_cache_is_the_answer_made_anew(engine: Engine) -> None:
    cached = Answers(engine, None, 1 << 20)
    uncached = Answers(engine, None, 0)
    for request in distinct_4x4_requests(20):
        first = cached.analysis(request)
        assert cached.analysis(request) == first == uncached.analysis(request)
        assert cached.move(request) == uncached.move(request)
    assert uncached.cached_bytes == 0


def test_the_least_recently_used_answer_goes_first(engine: Engine) -> None:
    requests = distinct_4x4_requests(3)
    sizes = []
    probe = Answers(engine, None, 1 << 20)
    for request in requests:
        before = probe.cached_bytes
        probe.analysis(request)
        sizes.append(probe.cached_bytes - before)
    # Room for the first and one more: asking for the first again keeps it over the second.
    answers = Answers(engine, None, sizes[0] + max(sizes[1], sizes[2]))
    answers.analysis(requests[0])
    answers.analysis(requests[1])
    answers.analysis(requests[0])
    answers.analysis(requests[2])
    assert answers.cached_bytes == sizes[0] + sizes[2]


def test_the_operator_sets_the_bound(make_service: ServiceFactory) -> None:
    assert Environment.read({"ANSWER_CACHE_MB": "5"}).settings().app.answer_cache_bytes == 5 * 2**20
    assert Environment.read({"ANSWER_CACHE_MB": "0"}).settings().app.answer_cache_bytes == 0
    assert (
        Environment.read({}).settings().app.answer_cache_bytes == AppSettings().answer_cache_bytes
    )
    service: Flask = make_service(Settings(app=AppSettings(answer_cache_bytes=0)))
    response = service.test_client().post("/v1/analysis", json={"board": "X...O...."})
    assert response.status_code == 200

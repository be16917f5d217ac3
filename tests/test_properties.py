"""Properties that hold for every legal position, checked with Hypothesis.

(That perfect play never loses is not sampled: tests/test_difficulty.py checks it against
every opponent strategy for both starting sides.)
"""

from __future__ import annotations

import random

import pytest
from flask.testing import FlaskClient
from hypothesis import given
from hypothesis import strategies as st

from service.game.board import Board, Mark
from service.game.difficulty import Difficulty
from service.game.engine import Engine
from tests.strategies import SYMMETRIES, encodings, positions, transformed


def test_the_symmetries_are_the_eight_of_the_square() -> None:
    assert len(set(SYMMETRIES)) == 8
    assert all(sorted(symmetry) == list(range(9)) for symmetry in SYMMETRIES)
    # The centre stays; corners go to corners.
    assert {symmetry[4] for symmetry in SYMMETRIES} == {4}
    assert {symmetry[0] for symmetry in SYMMETRIES} == {0, 2, 6, 8}


@given(
    position=positions(unfinished=True),
    difficulty=st.sampled_from(list(Difficulty)),
    seed=st.integers(min_value=0, max_value=2**63 - 1),
)
def test_the_answer_is_always_an_empty_cell(
    engine: Engine, position: tuple[Board, Mark], difficulty: Difficulty, seed: int
) -> None:
    board, mover = position
    advice = engine.advise(board, mover, difficulty, random.Random(seed))
    assert advice.move in board.empty_cells()
    assert advice.board == board.play(advice.move, mover)


@given(position=positions())
def test_a_finished_game_gets_no_move(engine: Engine, position: tuple[Board, Mark]) -> None:
    board, mover = position
    if board.status().is_over:
        assert engine.advise(board, mover).move is None


@given(position=positions(unfinished=True), symmetry=st.sampled_from(SYMMETRIES))
def test_scores_do_not_change_when_the_board_is_turned_or_mirrored(
    engine: Engine, position: tuple[Board, Mark], symmetry: tuple[int, ...]
) -> None:
    board, mover = position
    original = engine.evaluate(board, mover)
    image = engine.evaluate(transformed(board, symmetry), mover)
    assert image.score == original.score
    assert set(image.best_moves) == {symmetry[move] for move in original.best_moves}
    scores = {ranked.move: ranked.score for ranked in engine.analyse(board, mover).moves}
    image_scores = {
        ranked.move: ranked.score
        for ranked in engine.analyse(transformed(board, symmetry), mover).moves
    }
    assert image_scores == {symmetry[move]: score for move, score in scores.items()}


@pytest.mark.parametrize("path", ["/v1/move", "/v1/analysis"])
@given(data=st.data())
def test_every_encoding_of_a_board_gets_the_same_answer(
    client: FlaskClient, path: str, data: st.DataObject
) -> None:
    board, mover = data.draw(positions())
    canonical = client.post(path, json={"board": board.to_text(), "player": mover.value})
    encoded = data.draw(encodings(board))
    player = data.draw(st.sampled_from([mover.value, mover.value.lower()]))
    answer = client.post(path, json={"board": encoded, "player": player})
    assert answer.status_code == canonical.status_code == 200
    assert answer.get_json() == canonical.get_json()

"""Properties that hold for every legal position of every game, checked with Hypothesis.

(That perfect play never loses is not sampled: tests/test_difficulty.py checks it against
every opponent strategy for both starting sides, and what every level promises is checked
against the tables there too.)
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
from tests.strategies import SYMMETRIES, encodings, family_positions, symmetries, transformed


def test_the_symmetries_are_the_eight_of_the_square() -> None:
    assert len(set(SYMMETRIES)) == 8
    assert all(sorted(symmetry) == list(range(9)) for symmetry in SYMMETRIES)
    # The centre stays; corners go to corners.
    assert {symmetry[4] for symmetry in SYMMETRIES} == {4}
    assert {symmetry[0] for symmetry in SYMMETRIES} == {0, 2, 6, 8}


@pytest.mark.parametrize(("rows", "cols", "count"), [(2, 3, 4), (1, 4, 2), (4, 4, 8), (1, 1, 1)])
def test_a_rectangle_has_fewer_symmetries_than_a_square(rows: int, cols: int, count: int) -> None:
    found = symmetries(rows, cols)
    assert len(found) == count
    assert all(sorted(symmetry) == list(range(rows * cols)) for symmetry in found)


@given(
    position=family_positions(unfinished=True),
    difficulty=st.sampled_from(list(Difficulty)),
    seed=st.integers(min_value=0, max_value=2**63 - 1),
)
def test_the_answer_is_always_an_empty_cell(
    engine: Engine, position: tuple[Board, Mark], difficulty: Difficulty, seed: int
) -> None:
    board, mover = position
    advice = engine.advise(engine.position(board, mover), difficulty, random.Random(seed))
    assert advice.move in board.empty_cells()
    assert advice.board == board.play(advice.move, mover)
    assert advice.status == advice.board.status()


@given(position=family_positions())
def test_a_finished_game_gets_no_move(engine: Engine, position: tuple[Board, Mark]) -> None:
    board, mover = position
    if board.status().is_over:
        advice = engine.advise(engine.position(board, mover))
        assert advice.move is None
        assert advice.status == board.status()


@given(data=st.data())
def test_scores_do_not_change_when_the_board_is_turned_or_mirrored(
    engine: Engine, data: st.DataObject
) -> None:
    board, mover = data.draw(family_positions(unfinished=True))
    symmetry = data.draw(st.sampled_from(symmetries(board.rules.rows, board.rules.cols)))
    original = engine.evaluate(board, mover)
    image = engine.evaluate(transformed(board, symmetry), mover)
    assert image.score == original.score
    assert set(image.best_moves) == {symmetry[move] for move in original.best_moves}
    scores = engine.move_scores(board, mover)
    image_scores = engine.move_scores(transformed(board, symmetry), mover)
    assert image_scores == {symmetry[move]: score for move, score in scores.items()}


@pytest.mark.parametrize("path", ["/v1/move", "/v1/analysis"])
@given(data=st.data())
def test_every_encoding_of_a_board_gets_the_same_answer(
    client: FlaskClient, path: str, data: st.DataObject
) -> None:
    board, mover = data.draw(family_positions())
    rules = board.rules
    named = {"rows": rules.rows, "cols": rules.cols, "k": rules.k, "misere": rules.misere}
    canonical = client.post(
        path, json={"board": board.to_text(), "player": mover.value, "rules": named}
    )
    encoded = data.draw(encodings(board))
    player = data.draw(st.sampled_from([mover.value, mover.value.lower()]))
    answer = client.post(path, json={"board": encoded, "player": player, "rules": named})
    assert answer.status_code == canonical.status_code == 200
    assert answer.get_json() == canonical.get_json()

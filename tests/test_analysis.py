"""POST /v1/analysis: every legal move ranked, with its principal variation."""

from __future__ import annotations

from flask.testing import FlaskClient

from service.game.board import Board, Mark
from service.game.engine import Engine
from tests import reference
from tests.helpers import CLASSIC_RULES


def test_the_pinned_position_ranks_the_winning_move_first(client: FlaskClient) -> None:
    response = client.post("/v1/analysis", json={"board": ["O", 1, "X", "X", 4, "X", 6, "O", "O"]})
    assert response.status_code == 200
    assert response.get_json() == {
        "player": "X",
        "status": "in_progress",
        "score": 9,
        "outcome": "win",
        "plies_to_end": 1,
        "moves": [
            {
                "move": 4,
                "row": 1,
                "col": 1,
                "score": 9,
                "outcome": "win",
                "plies_to_end": 1,
                "line": [4],
            },
            {
                "move": 1,
                "row": 0,
                "col": 1,
                "score": -8,
                "outcome": "loss",
                "plies_to_end": 2,
                "line": [1, 4],
            },
            {
                "move": 6,
                "row": 2,
                "col": 0,
                "score": -8,
                "outcome": "loss",
                "plies_to_end": 2,
                "line": [6, 4],
            },
        ],
        "rules": CLASSIC_RULES,
    }


def test_every_move_of_every_position_is_ranked_exactly(engine: Engine) -> None:
    """Against the independent brute force: each move's score, order, and line of play."""
    problems = []
    for text, mover in reference.reachable_positions():
        if reference.finished(text):
            continue
        analysis = engine.analyse(engine.position(Board.from_text(text), Mark(mover)))
        expected = {
            move: {1: 10 - plies, 0: 0, -1: plies - 10}[result]
            for move, (result, plies) in reference.move_results(text, mover).items()
        }
        scores = {ranked.move: ranked.score for ranked in analysis.moves}
        order = [(-expected[ranked.move], ranked.move) for ranked in analysis.moves]
        if scores != expected or order != sorted(order):
            problems.append((text, mover))
        assert analysis.evaluation is not None
        assert analysis.moves[0].score == analysis.evaluation.score
    assert problems == []


def test_each_line_is_perfect_play_to_the_end(engine: Engine) -> None:
    for text, mover in reference.reachable_positions():
        if reference.finished(text):
            continue
        for ranked in engine.analyse(engine.position(Board.from_text(text), Mark(mover))).moves:
            assert ranked.line[0] == ranked.move
            assert len(ranked.line) == ranked.plies_to_end
            board, side = Board.from_text(text).play(ranked.move, Mark(mover)), Mark(mover).opponent
            for move in ranked.line[1:]:
                # Each reply is the move /v1/move would answer: the lowest best move.
                assert engine.advise(engine.position(board, side)).move == move
                board, side = board.play(move, side), side.opponent
            assert board.status().is_over


def test_a_finished_game_has_no_moves_to_rank(client: FlaskClient) -> None:
    response = client.post("/v1/analysis", json={"board": "XXXOO...."})
    assert response.get_json() == {
        "player": "O",
        "status": "x_won",
        "score": None,
        "outcome": None,
        "plies_to_end": 0,
        "moves": [],
        "rules": CLASSIC_RULES,
    }


def test_an_impossible_board_is_refused_as_for_a_move(client: FlaskClient) -> None:
    alone = client.post("/v1/move", json={"board": "XXXXX...."}).get_json()
    response = client.post("/v1/analysis", json={"board": "XXXXX...."})
    assert response.status_code == 422
    assert response.get_json() == alone

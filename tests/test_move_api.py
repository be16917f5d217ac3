"""POST /v1/move: every encoding, the answer a frontend renders, and why a request is refused."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.helpers import CLASSIC_RULES, post_move

PINNED_WIN = ["O", 1, "X", "X", 4, "X", 6, "O", "O"]


def test_the_pinned_winning_example(client: FlaskClient) -> None:
    body = post_move(client, {"board": PINNED_WIN})
    assert body == {
        "move": 4,
        "row": 1,
        "col": 1,
        "player": "X",
        "score": 9,
        "outcome": "win",
        "plies_to_end": 1,
        "best_moves": [4],
        "board": ["O", "", "X", "X", "X", "X", "", "O", "O"],
        "status": "x_won",
        "winner": "X",
        "winning_lines": [[3, 4, 5]],
        "next_player": None,
        "difficulty": "perfect",
        "optimal": True,
        "rules": CLASSIC_RULES,
    }


def test_the_empty_board_draws_and_every_first_move_is_best(client: FlaskClient) -> None:
    body = post_move(client, {"board": [None] * 9})
    assert body["move"] == 0
    assert body["score"] == 0
    assert body["outcome"] == "draw"
    assert body["plies_to_end"] == 9
    assert body["best_moves"] == list(range(9))
    assert body["board"] == ["X"] + [""] * 8
    assert body["status"] == "in_progress"
    assert body["winner"] is None
    assert body["winning_lines"] == []
    assert body["next_player"] == "O"


def test_a_finished_game_is_answered_with_its_final_state(client: FlaskClient) -> None:
    body = post_move(client, {"board": "XXXOO...."})
    assert body == {
        "move": None,
        "row": None,
        "col": None,
        "player": "O",
        "score": None,
        "outcome": None,
        "plies_to_end": 0,
        "best_moves": [],
        "board": ["X", "X", "X", "O", "O", "", "", "", ""],
        "status": "x_won",
        "winner": "X",
        "winning_lines": [[0, 1, 2]],
        "next_player": None,
        "difficulty": "perfect",
        "optimal": None,
        "rules": CLASSIC_RULES,
    }


def test_a_drawn_game_is_finished_too(client: FlaskClient) -> None:
    body = post_move(client, {"board": "XOXXOOOXX"})
    assert (body["move"], body["status"], body["winner"], body["next_player"]) == (
        None,
        "draw",
        None,
        None,
    )


# X in the top-left corner, O in the centre, X to move: one position in every encoding.
SAME_BOARD = [
    ["X", None, None, None, "O", None, None, None, None],
    ["x", "", " ", "_", "o", "-", ".", None, 8],
    ["X", 1, 2, 3, "O", 5, 6, 7, 8],
    "X...O....",
    "x_- o -._",
    [["X", 1, 2], [3, "O", 5], [6, 7, 8]],
    [["x", None, ""], ["_", "o", "-"], [".", " ", 8]],
]


@pytest.mark.parametrize("encoded", SAME_BOARD)
def test_every_encoding_of_a_board_gets_the_same_answer(client: FlaskClient, encoded: Any) -> None:
    body = post_move(client, {"board": encoded})
    reference = post_move(client, {"board": SAME_BOARD[0]})
    assert body == reference
    assert body["board"][0] == "X"
    assert body["board"][4] == "O"


@pytest.mark.parametrize(
    ("player", "expected"), [("O", "O"), ("o", "O"), ("X", "X"), ("x", "X"), (None, "X")]
)
def test_player_chooses_who_moves_when_the_counts_are_equal(
    client: FlaskClient, player: str | None, expected: str
) -> None:
    body = post_move(client, {"board": "XO.......", "player": player})
    assert body["player"] == expected
    assert body["next_player"] == ("X" if expected == "O" else "O")


def test_without_player_the_side_with_fewer_marks_moves(client: FlaskClient) -> None:
    body = post_move(client, {"board": "X........"})
    assert body["player"] == "O"
    assert body["move"] == 4


def test_the_same_board_always_gets_the_same_answer(client: FlaskClient) -> None:
    answers = {client.post("/v1/move", json={"board": "X...O...."}).data for _ in range(5)}
    assert len(answers) == 1


@pytest.mark.parametrize(
    ("board", "player", "code", "loc", "words"),
    [
        ("XXX...XXX", None, "play_after_win", ["board"], "two separate lines"),
        ("XXXOOO...", None, "both_players_won", ["board"], "both X and O have three in a row"),
        ("XXXXX.O..", None, "mark_count_gap", ["board"], "X has 5 marks and O has 1"),
        ("OO.......", None, "mark_count_gap", ["board"], "O has 2 marks and X has 0"),
        ("XXXOO.OO.", None, "winner_not_last_to_move", ["board"], "cannot have made the last"),
        ("X........", "X", "wrong_player", ["player"], "it is O's turn"),
        ("XOO......", "o", "wrong_player", ["player"], "it is X's turn"),
    ],
)
def test_an_impossible_position_is_refused_with_a_code_and_a_reason(
    client: FlaskClient, board: str, player: str | None, code: str, loc: list[str], words: str
) -> None:
    response = client.post("/v1/move", json={"board": board, "player": player})
    body = response.get_json()
    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    assert body["code"] == code
    assert words in body["detail"]
    assert body["errors"] == [{"loc": loc, "msg": body["detail"]}]


@pytest.mark.parametrize(
    ("body", "loc", "words"),
    [
        ({}, ["board"], "is required"),
        ({"board": None}, ["board"], "a board is a list of cells, a list of rows of cells"),
        ({"board": 123}, ["board"], "a board is a list of cells, a list of rows of cells"),
        (
            {"board": []},
            ["board"],
            "a list of 1 to 400 cells or of 1 to 20 rows of cells, not a list of 0",
        ),
        ({"board": [None] * 401}, ["board"], "not a list of 401"),
        ({"board": ""}, ["board"], "a board string has 1 to 400 characters, one a cell, not 0"),
        ({"board": "." * 401}, ["board"], "not 401"),
        ({"board": [[None] * 3, [None] * 3, [None] * 2]}, ["board"], "each a list of the same"),
        ({"board": [[None] * 3, [None] * 3, None]}, ["board"], "each a list of the same"),
        ({"board": [[None] * 21] * 2}, ["board"], "each a list of the same 1 to 20 cells"),
        ({"board": [[None]] * 21}, ["board"], "a board of rows has 1 to 20 rows"),
        ({"board": [[1], *[None] * 8]}, ["board"], "a board of rows has 1 to 20 rows"),
        ({"board": ["X", 7, *[None] * 7]}, ["board", 1], "cell 1 is 7"),
        ({"board": [-1, *[None] * 8]}, ["board", 0], "cell 0 is -1"),
        ({"board": [True, *[None] * 8]}, ["board", 0], "cell 0 is True"),
        ({"board": [0.0, *[None] * 8]}, ["board", 0], "cell 0 is 0.0"),
        ({"board": ["XX", *[None] * 8]}, ["board", 0], "cell 0 is 'XX'"),
        ({"board": [[None], [[]]]}, ["board", 1], "cell 1 is list"),
        ({"board": "X...\u0425...."}, ["board", 4], "cell 4 is '\u0425'"),
        ({"board": "0........"}, ["board", 0], "cell 0 is '0'"),
        ({"board": [["X", 2, 2], [3, 4, 5], [6, 7, 8]]}, ["board", 1], "cell 1 is 2"),
        ({"board": "X........", "player": "Z"}, ["player"], "player is 'X' or 'O'"),
        ({"board": "X........", "player": 1}, ["player"], "not 1"),
        ({"board": "X........", "extra": 1}, ["extra"], "is not a field of this request"),
        ([], [], "the body must be a JSON object"),
        ("X........", [], "the body must be a JSON object"),
    ],
)
def test_a_request_that_does_not_fit_the_schema_is_refused_with_located_reasons(
    client: FlaskClient, body: Any, loc: list[str | int], words: str
) -> None:
    response = client.post("/v1/move", json=body)
    problem = response.get_json()
    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    assert problem["code"] == "invalid_request"
    assert loc in [reason["loc"] for reason in problem["errors"]]
    assert any(words in reason["msg"] for reason in problem["errors"])
    assert words in problem["detail"]


def test_every_bad_cell_is_reported_not_just_the_first(client: FlaskClient) -> None:
    response = client.post("/v1/move", json={"board": ["Q", 1, 2, 3, "?", 5, 6, 7, 9]})
    assert [reason["loc"] for reason in response.get_json()["errors"]] == [
        ["board", 0],
        ["board", 4],
        ["board", 8],
    ]

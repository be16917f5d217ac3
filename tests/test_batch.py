"""POST /v1/moves: many requests in order; a bad one gets its own problem in its slot."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

ITEMS: list[Any] = [
    {"board": "X........"},
    {"board": "XXXXX...."},
    {"board": [["O", 1, "X"], ["X", 4, "X"], [6, "O", "O"]]},
    {"board": "x..........."},
    {"board": "XO.......", "player": "X"},
    {"board": "X........", "player": "X"},
    "not an object",
    {"board": "XXXOO...."},
    {"board": ".........", "difficulty": "easy", "seed": 3},
    {"board": ".........", "extra": 1},
]


def test_each_result_is_what_the_request_would_get_alone(client: FlaskClient) -> None:
    response = client.post("/v1/moves", json={"requests": ITEMS})
    assert response.status_code == 200
    results = response.get_json()["results"]
    assert len(results) == len(ITEMS)
    for item, result in zip(ITEMS, results, strict=True):
        assert result == client.post("/v1/move", json=item).get_json()


def test_a_bad_request_keeps_its_status_code_and_detail(client: FlaskClient) -> None:
    results = client.post("/v1/moves", json={"requests": ITEMS}).get_json()["results"]
    # A problem has a code; a move answer has none (its "status" is the game's).
    assert [result["status"] if "code" in result else None for result in results] == [
        None, 422, None, 422, None, 422, 422, None, None, 422,
    ]  # fmt: skip
    assert [result.get("code") for result in results if "code" in result] == [
        "mark_count_gap",
        "board_does_not_fit",
        "wrong_player",
        "invalid_request",
        "invalid_request",
    ]


def test_an_empty_batch_has_no_results(client: FlaskClient) -> None:
    assert client.post("/v1/moves", json={"requests": []}).get_json() == {"results": []}


def test_a_full_batch_of_a_thousand_is_answered(client: FlaskClient) -> None:
    response = client.post("/v1/moves", json={"requests": [{"board": "X...O...."}] * 1000})
    results = response.get_json()["results"]
    assert len(results) == 1000
    assert {result["move"] for result in results} == {1}


def test_more_than_a_thousand_is_refused(client: FlaskClient) -> None:
    response = client.post("/v1/moves", json={"requests": [{"board": "........."}] * 1001})
    assert response.status_code == 422
    problem = response.get_json()
    assert problem["code"] == "invalid_request"
    assert problem["errors"] == [
        {"loc": ["requests"], "msg": "a batch holds at most 1000 requests, not 1001"}
    ]


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({}, ["requests"]),
        ({"requests": {"board": "........."}}, ["requests"]),
        ({"requests": [], "extra": True}, ["extra"]),
        ([{"board": "........."}], []),
    ],
)
def test_a_batch_that_is_not_a_list_of_requests_is_refused(
    client: FlaskClient, body: Any, loc: list[str]
) -> None:
    response = client.post("/v1/moves", json=body)
    assert response.status_code == 422
    assert response.get_json()["errors"][0]["loc"] == loc

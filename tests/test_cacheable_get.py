"""GET /v1/move: the POST's answer from a query string, cacheable when it cannot change."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

FOREVER = "public, max-age=31536000, immutable"


@pytest.mark.parametrize(
    ("query", "body"),
    [
        ("board=X........", {"board": "X........"}),
        ("board=xo_......&player=x", {"board": "xo_......", "player": "x"}),
        ("board=XXXOO....", {"board": "XXXOO...."}),
        (
            "board=.........&difficulty=easy&seed=5",
            {"board": ".........", "difficulty": "easy", "seed": 5},
        ),
    ],
)
def test_the_get_answers_the_same_body_as_the_post(
    client: FlaskClient, query: str, body: dict[str, object]
) -> None:
    got = client.get(f"/v1/move?{query}")
    assert got.status_code == 200
    assert got.get_json() == client.post("/v1/move", json=body).get_json()


def test_a_perfect_answer_is_cached_forever_with_a_strong_etag(client: FlaskClient) -> None:
    response = client.get("/v1/move?board=X...O....")
    assert response.headers["Cache-Control"] == FOREVER
    etag = response.headers["ETag"]
    assert etag.startswith('"')
    assert not etag.startswith("W/")


def test_a_matching_if_none_match_gets_304_without_a_body(client: FlaskClient) -> None:
    etag = client.get("/v1/move?board=X...O....").headers["ETag"]
    again = client.get("/v1/move?board=X...O....", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.data == b""
    assert again.headers["ETag"] == etag
    other = client.get("/v1/move?board=X........", headers={"If-None-Match": etag})
    assert other.status_code == 200


def test_the_same_board_gets_the_same_etag(client: FlaskClient) -> None:
    first = client.get("/v1/move?board=X...O....").headers["ETag"]
    assert client.get("/v1/move?board=X...O....").headers["ETag"] == first
    assert client.get("/v1/move?board=X........").headers["ETag"] != first


def test_a_seeded_random_answer_is_cacheable(client: FlaskClient) -> None:
    response = client.get("/v1/move?board=.........&difficulty=medium&seed=9")
    assert response.headers["Cache-Control"] == FOREVER
    assert "ETag" in response.headers


def test_an_unseeded_random_answer_says_it_must_not_be_stored(client: FlaskClient) -> None:
    response = client.get("/v1/move?board=.........&difficulty=easy")
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    assert "ETag" not in response.headers


def test_head_answers_the_headers_alone(client: FlaskClient) -> None:
    response = client.head("/v1/move?board=X........")
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == FOREVER
    assert response.data == b""


@pytest.mark.parametrize(
    ("query", "loc", "words"),
    [
        ("", ["board"], "is required"),
        ("board=X..", ["board"], "a flat board of 3 cells is no square"),
        ("board=X........&rows=2", ["board"], "the board has 9 cells, which do not fit"),
        ("board=XXXXX....", ["board"], "X has 5 marks"),
        ("board=X........&player=X", ["player"], "it is O's turn"),
        ("board=X........&board=O........", ["board"], "given only once"),
        ("board=X........&seed=1.5", ["seed"], "seed is a whole number"),
        ("board=X........&seed=-3", ["seed"], "seed is a whole number"),
        ("board=X........&difficulty=godlike", ["difficulty"], "difficulty is one of"),
        ("board=X........&colour=red", ["colour"], "is not a field of this request"),
    ],
)
def test_a_bad_query_is_refused_and_never_cached(
    client: FlaskClient, query: str, loc: list[str], words: str
) -> None:
    response = client.get(f"/v1/move?{query}")
    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    assert response.headers["Cache-Control"] == "no-store"
    problem = response.get_json()
    assert problem["errors"][0]["loc"] == loc
    assert words in problem["detail"]


def test_no_error_is_ever_cached(client: FlaskClient) -> None:
    for response in (
        client.get("/nowhere"),
        client.post("/v1/move", data=b"{", content_type="application/json"),
        client.delete("/v1/move"),
    ):
        assert response.headers["Cache-Control"] == "no-store"

"""One error envelope for every failure: problem+json, a stable code, never a traceback."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.api.app_settings import AppSettings
from service.api.problems import SENTENCES
from service.game.engine import Engine, MoveAdvice
from service.game.position import Position
from service.ops.environment import Settings
from tests.helpers import ServiceFactory

PROBLEM_FIELDS = {"type", "title", "status", "detail", "code"}


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status
    assert response.mimetype == "application/problem+json"
    body: dict[str, Any] = response.get_json()
    assert body.keys() >= PROBLEM_FIELDS
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == "about:blank"
    assert body["detail"]
    return body


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"{", "the body is not valid JSON: Expecting property name"),
        (b'{"board": "X........",}', "the body is not valid JSON"),
        (b"", "the body is empty"),
        (b"   ", "the body is empty"),
        (b'{"board": NaN}', "NaN is not a JSON value"),
        (b'{"board": Infinity}', "Infinity is not a JSON value"),
        (b'{"board": -Infinity}', "-Infinity is not a JSON value"),
        (b'{"board": "X........", "board": "........."}', "the key 'board' appears twice"),
        (b"[" * 100_000 + b"]" * 100_000, "nests arrays or objects too deeply"),
        (b'{"board": ' + b"9" * 5000 + b"}", "a number with too many digits"),
        (b'{"board": "\xff........"}', "not UTF-8"),
        ('{"board": "X........"}'.encode("utf-16"), "not UTF-8"),
    ],
)
def test_a_body_that_is_not_json_is_a_400(client: FlaskClient, data: bytes, words: str) -> None:
    response = client.post("/v1/move", data=data, content_type="application/json")
    body = assert_problem(response, 400, "malformed_json")
    assert words in body["detail"]


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Content-Type": "text/plain"},
        {"Content-Type": "application/x-www-form-urlencoded"},
        {"Content-Type": "application/jsonx"},
        {"Content-Type": "text/json+xml"},
    ],
)
def test_a_body_not_sent_as_json_is_a_415(client: FlaskClient, headers: dict[str, str]) -> None:
    response = client.post("/v1/move", data=b'{"board": "X........"}', headers=headers)
    body = assert_problem(response, 415, "unsupported_media_type")
    assert "Content-Type: application/json" in body["detail"]


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", "application/vnd.bestmove+json"],
)
def test_json_media_types_are_accepted(client: FlaskClient, content_type: str) -> None:
    response = client.post(
        "/v1/move", data=b'{"board": "X........"}', headers={"Content-Type": content_type}
    )
    assert response.status_code == 200


CELL_HELP = (
    "a cell is 'X' or 'O' (either case), empty (null, '', ' ', '_', '-' or '.') or its own index"
)

#: One request for each sentence of the table: the error type it meets, the request (a body
#: posted to the path, or a query string), and the whole detail it gets.
SCHEMA_FAILURES = [
    ("missing", "/v1/move", {}, "board: is required"),
    (
        "extra_forbidden",
        "/v1/move",
        {"board": "X........", "colour": "red"},
        "colour: is not a field of this request",
    ),
    ("model_type", "/v1/move", ["X........"], "the body must be a JSON object"),
    (
        "model_type",
        "/v1/move",
        {"board": "X........", "rules": 3},
        "rules: rules must be a JSON object",
    ),
    (
        "int_type",
        "/v1/move",
        {"board": "X........", "seed": "7"},
        "seed: seed is a whole number, not '7'",
    ),
    (
        "int_type",
        "/v1/move",
        {"board": "X........", "seed": 7.0},
        "seed: seed is a whole number, not 7.0",
    ),
    (
        "int_type",
        "/v1/move",
        {"board": "X........", "rules": {"rows": True}},
        "rules/rows: rows is a whole number, not True",
    ),
    (
        "int_parsing",
        "/v1/move?board=X........&seed=1.5",
        None,
        "seed: seed is a whole number, not '1.5'",
    ),
    (
        "int_parsing_size",
        "/v1/move?board=X........&budget_ms=" + "9" * 5000,
        None,
        "budget_ms: budget_ms is a whole number, not '" + "9" * 36 + "...",
    ),
    (
        "greater_than_equal",
        "/v1/move",
        {"board": "X........", "seed": -1},
        "seed: seed is a whole number of at least 0, not -1",
    ),
    (
        "less_than_equal",
        "/v1/move",
        {"board": "X........", "seed": 2**63},
        "seed: seed is a whole number of at most 9223372036854775807, not 9223372036854775808",
    ),
    (
        "bool_type",
        "/v1/move",
        {"board": "X........", "rules": {"misere": "true"}},
        "rules/misere: misere is true or false, not 'true'",
    ),
    (
        "bool_parsing",
        "/v1/move?board=X........&misere=maybe",
        None,
        "rules/misere: misere is true or false, not 'maybe'",
    ),
    (
        "enum",
        "/v1/move",
        {"board": "X........", "difficulty": None},
        "difficulty: difficulty is one of 'perfect', 'hard', 'medium' or 'easy', not null",
    ),
    (
        "list_type",
        "/v1/moves",
        {"requests": "X........"},
        "requests: requests is a list, not 'X........'",
    ),
    (
        "too_long",
        "/v1/moves",
        {"requests": [{"board": "X........"}] * 1001},
        "requests: a batch holds at most 1000 requests, not 1001",
    ),
    (
        "repeated_parameter",
        "/v1/move?board=X........&seed=1&seed=2",
        None,
        "seed: a query parameter may be given only once",
    ),
    (
        "board_type",
        "/v1/move",
        {"board": 9},
        "board: a board is a list of cells, a list of rows of cells, or a string of one "
        "character a cell",
    ),
    (
        "board_text_length",
        "/v1/move",
        {"board": ""},
        "board: a board string has 1 to 400 characters, one a cell, not 0",
    ),
    (
        "board_list_length",
        "/v1/move",
        {"board": [None] * 401},
        "board: a board is a list of 1 to 400 cells or of 1 to 20 rows of cells, not a list of 401",
    ),
    (
        "board_rows",
        "/v1/move",
        {"board": [["X", None], [None]]},
        "board: a board of rows has 1 to 20 rows, each a list of the same 1 to 20 cells",
    ),
    (
        "board_cell",
        "/v1/move",
        {"board": ["X", 7, *[None] * 7]},
        f"board/1: cell 1 is 7: {CELL_HELP}, 1",
    ),
    (
        "player",
        "/v1/move",
        {"board": "X........", "player": "Z"},
        "player: player is 'X' or 'O' (either case) or null, not 'Z'",
    ),
    (
        "moves_type",
        "/v1/move",
        {"moves": "4,0"},
        "moves: moves is a list of the cells played, in order, X first",
    ),
    (
        "moves_cell",
        "/v1/move",
        {"moves": [4, "0"]},
        "moves: move 1 is '0': a move is a cell's index, a whole number",
    ),
    (
        "moves_cell",
        "/v1/move?moves=4,a",
        None,
        "moves: move 1 is 'a': a move is a cell's index, a whole number",
    ),
]


@pytest.mark.parametrize(("kind", "path", "body", "detail"), SCHEMA_FAILURES)
def test_a_request_the_schema_refuses_gets_a_plain_sentence_with_its_limits(
    client: FlaskClient, kind: str, path: str, body: Any, detail: str
) -> None:
    response = client.get(path) if body is None else client.post(path, json=body)
    problem = assert_problem(response, 422, "invalid_request")
    assert problem["detail"] == detail
    (reason,) = problem["errors"]
    where = "/".join(str(part) for part in reason["loc"])
    assert detail == (f"{where}: " if where else "") + reason["msg"]


def test_every_sentence_of_the_table_is_one_a_request_can_meet() -> None:
    assert {kind for kind, *_ in SCHEMA_FAILURES} == set(SENTENCES)


@pytest.mark.parametrize(
    ("query", "body"),
    [
        ("seed=5&difficulty=easy", {"seed": 5, "difficulty": "easy"}),
        (
            "rows=3&cols=3&k=2&misere=true",
            {"rules": {"rows": 3, "cols": 3, "k": 2, "misere": True}},
        ),
        ("k=2&misere=1", {"rules": {"k": 2, "misere": True}}),
        ("misere=false&player=x", {"rules": {"misere": False}, "player": "x"}),
        ("misere=0&budget_ms=100", {"rules": {"misere": False}, "budget_ms": 100}),
    ],
)
def test_a_query_string_is_read_as_the_same_request_as_a_body(
    client: FlaskClient, query: str, body: dict[str, Any]
) -> None:
    asked = client.get(f"/v1/move?board=X...O....&{query}")
    posted = client.post("/v1/move", json={"board": "X...O....", **body})
    assert asked.status_code == posted.status_code == 200
    assert asked.get_json() == posted.get_json()


def test_a_body_over_the_limit_is_a_413_that_closes_the_connection(client: FlaskClient) -> None:
    oversized = b'{"board": "' + b" " * (1024 * 1024) + b'"}'
    response = client.post("/v1/move", data=oversized, content_type="application/json")
    body = assert_problem(response, 413, "body_too_large")
    assert "1048576 bytes" in body["detail"]
    assert response.headers["Connection"] == "close"


def test_a_body_at_the_limit_is_read(client: FlaskClient) -> None:
    padded = b'{"board": "X........"}'.ljust(1024 * 1024)
    response = client.post("/v1/move", data=padded, content_type="application/json")
    assert response.status_code == 200


def test_a_body_shorter_than_its_declared_length_is_a_400(client: FlaskClient) -> None:
    """A client that declares more than it sends and stops: a valid JSON prefix is not read
    as the whole request."""
    sent = b'{"board": "X........"}'
    response = client.post(
        "/v1/move",
        data=sent,
        content_type="application/json",
        environ_overrides={"CONTENT_LENGTH": "100"},
    )
    body = assert_problem(response, 400, "malformed_json")
    assert f"after {len(sent)} of the 100 bytes" in body["detail"]


def test_the_limit_can_be_lowered(make_service: ServiceFactory) -> None:
    client = make_service(Settings(app=AppSettings(max_body_bytes=64))).test_client()
    response = client.post("/v1/move", json={"board": "X........", "player": None, "x": "y" * 40})
    assert_problem(response, 413, "body_too_large")


def test_an_unknown_path_is_a_404(client: FlaskClient) -> None:
    body = assert_problem(client.get("/v1/moves/nowhere"), 404, "not_found")
    assert "/v1/moves/nowhere" in body["detail"]


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/v1/move", "GET, HEAD, OPTIONS, POST"),
        ("DELETE", "/v1/move", "GET, HEAD, OPTIONS, POST"),
        ("GET", "/v1/analysis", "OPTIONS, POST"),
        ("GET", "/v1/moves", "OPTIONS, POST"),
        ("POST", "/healthz", "GET, HEAD, OPTIONS"),
        ("PATCH", "/openapi.yaml", "GET, HEAD, OPTIONS"),
    ],
)
def test_a_wrong_method_is_a_405_that_lists_the_right_ones(
    client: FlaskClient, method: str, path: str, allowed: str
) -> None:
    response = client.open(path, method=method)
    assert_problem(response, 405, "method_not_allowed")
    assert response.headers["Allow"] == allowed


class ExplodingEngine(Engine):
    """An engine that fails on every question, standing in for a bug."""

    def advise(self, position: Position, *args: Any, **kwargs: Any) -> MoveAdvice:
        raise RuntimeError("secret internals /srv/service/engine.py line 42")


@pytest.fixture
def broken_app(make_service: ServiceFactory) -> Flask:
    return make_service(engine=ExplodingEngine({}))


def test_an_unforeseen_failure_is_a_500_without_internals(
    broken_app: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    response = broken_app.test_client().post("/v1/move", json={"board": "........."})
    body = assert_problem(response, 500, "internal_error")
    text = response.get_data(as_text=True)
    assert "secret" not in text
    assert "Traceback" not in text
    assert body["detail"] == "the server failed to answer; the failure has been logged"
    assert "secret internals" in caplog.text


def test_no_error_is_ever_html(client: FlaskClient) -> None:
    for response in (
        client.get("/nowhere"),
        client.delete("/v1/move"),
        client.post("/v1/move", data=b"{"),
        client.post("/v1/move", data=b"{", content_type="application/json"),
    ):
        assert response.mimetype == "application/problem+json"
        assert b"<" not in response.data

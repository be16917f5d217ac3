"""One error envelope for every failure: problem+json, a stable code, never a traceback."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.api.app_settings import AppSettings
from service.game.board import Board
from service.game.engine import Engine, MoveAdvice
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

    def advise(self, board: Board, *args: Any, **kwargs: Any) -> MoveAdvice:
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

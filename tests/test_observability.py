"""Request ids, the JSON access log and the metrics, in-process."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from datetime import datetime

import pytest
from flask.testing import FlaskClient

from service import create_app
from service.engine import Engine
from service.observability import ACCESS_LOGGER, request_id_for


class Recorder(logging.Handler):
    """Keep the access log's fields."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[dict[str, object]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.fields)  # type: ignore[attr-defined]


@pytest.fixture
def access_log() -> Iterator[Recorder]:
    recorder = Recorder()
    logger = logging.getLogger(ACCESS_LOGGER)
    logger.addHandler(recorder)
    yield recorder
    logger.removeHandler(recorder)


def test_an_acceptable_request_id_is_echoed(client: FlaskClient) -> None:
    response = client.get("/healthz", headers={"X-Request-ID": "checkout-42:abc/DEF=+."})
    assert response.headers["X-Request-ID"] == "checkout-42:abc/DEF=+."


@pytest.mark.parametrize(
    "incoming", [None, "", "has space", "x" * 129, "line\nbreak", 'quote"d', "caf\u00e9"]
)
def test_otherwise_a_fresh_request_id_is_made(incoming: str | None) -> None:
    made = request_id_for(incoming)
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    assert made != request_id_for(incoming)


def test_every_answer_carries_a_request_id_errors_included(client: FlaskClient) -> None:
    for response in (client.get("/nowhere"), client.post("/v1/move", data=b"{")):
        assert re.fullmatch(r"[0-9a-f]{32}", response.headers["X-Request-ID"])


def test_each_request_is_logged_once_with_what_an_operator_needs(
    client: FlaskClient, access_log: Recorder
) -> None:
    client.post("/v1/move", json={"board": "X........"}, headers={"X-Request-ID": "abc-1"})
    client.get("/nowhere")
    first, second = access_log.lines
    assert first.keys() == {"time", "request_id", "method", "path", "status", "duration_ms"}
    assert (first["request_id"], first["method"], first["path"], first["status"]) == (
        "abc-1",
        "POST",
        "/v1/move",
        200,
    )
    assert isinstance(first["duration_ms"], float)
    assert first["duration_ms"] >= 0
    assert datetime.fromisoformat(str(first["time"])).tzinfo is not None
    assert (second["path"], second["status"]) == ("/nowhere", 404)


def test_the_access_log_can_be_turned_off(
    monkeypatch: pytest.MonkeyPatch, engine: Engine, access_log: Recorder
) -> None:
    monkeypatch.setenv("ACCESS_LOG", "false")
    create_app(engine=engine).test_client().get("/healthz")
    assert access_log.lines == []


def metric(text: str, name: str, **labels: str) -> float:
    """Return one sample's value from Prometheus text, or 0 when it is absent."""
    wanted = ",".join(f'{key}="{value}"' for key, value in sorted(labels.items()))
    for line in text.splitlines():
        if line.startswith(f"{name}{{") and _labels_of(line) == wanted:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def _labels_of(line: str) -> str:
    inside = line[line.index("{") + 1 : line.index("}")]
    return ",".join(sorted(inside.split(","))) if inside else ""


def test_metrics_count_requests_by_endpoint_method_and_status(client: FlaskClient) -> None:
    for _ in range(3):
        client.post("/v1/move", json={"board": "X........"})
    client.post("/v1/move", json={"board": "XXXXX...."})
    client.get("/no/such/path")
    text = client.get("/metrics").get_data(as_text=True)
    move = {"endpoint": "/v1/move", "method": "POST"}
    assert metric(text, "bestmove_http_requests_total", **move, status="200") == 3
    assert metric(text, "bestmove_http_requests_total", **move, status="422") == 1
    assert metric(text, "bestmove_http_request_duration_seconds_count", **move, status="200") == 3
    assert (
        metric(
            text, "bestmove_http_request_duration_seconds_bucket", **move, status="200", le="+Inf"
        )
        == 3
    )
    # An unknown path is one label, whatever the path, so that the set of series stays bounded.
    assert (
        metric(
            text, "bestmove_http_requests_total", endpoint="unmatched", method="GET", status="404"
        )
        == 1
    )


def test_metrics_count_moves_by_outcome(client: FlaskClient) -> None:
    client.post("/v1/move", json={"board": "........."})  # draw
    client.post("/v1/move", json={"board": "XX.OO...."})  # X wins at once
    client.post("/v1/move", json={"board": "...", "player": "O"})  # refused: not a move
    client.post("/v1/move", json={"board": "XXXOO...."})  # already over
    text = client.get("/metrics").get_data(as_text=True)
    assert metric(text, "bestmove_moves_total", outcome="draw") == 1
    assert metric(text, "bestmove_moves_total", outcome="win") == 1
    assert metric(text, "bestmove_moves_total", outcome="game_over") == 1
    assert metric(text, "bestmove_moves_total", outcome="loss") == 0


def test_metrics_are_prometheus_text(client: FlaskClient) -> None:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.mimetype == "text/plain"
    assert "# TYPE bestmove_http_request_duration_seconds histogram" in response.get_data(
        as_text=True
    )


def test_two_apps_in_one_process_keep_their_own_counts(engine: Engine) -> None:
    first, second = create_app(engine=engine).test_client(), create_app(engine=engine).test_client()
    first.post("/v1/move", json={"board": "X........"})
    text = second.get("/metrics").get_data(as_text=True)
    assert metric(text, "bestmove_moves_total", outcome="draw") == 0

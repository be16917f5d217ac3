"""Request ids, the JSON access log and the metrics, in-process."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.ops.environment import Settings
from service.ops.observability import RequestIds
from tests.helpers import ServiceFactory, metric

MADE_ID = re.compile(r"[0-9a-f]{16}-[0-9a-f]+")


def access_lines(capfd: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    out = capfd.readouterr().out
    return [json.loads(line) for line in out.splitlines() if line.startswith('{"time"')]


def test_an_acceptable_request_id_is_echoed(client: FlaskClient) -> None:
    response = client.get("/healthz", headers={"X-Request-ID": "checkout-42:abc/DEF=+."})
    assert response.headers["X-Request-ID"] == "checkout-42:abc/DEF=+."


@pytest.mark.parametrize(
    "incoming", [None, "", "has space", "x" * 129, "line\nbreak", 'quote"d', "caf\u00e9"]
)
def test_otherwise_a_fresh_request_id_is_made(incoming: str | None) -> None:
    ids = RequestIds()
    made = ids.for_request(incoming)
    assert MADE_ID.fullmatch(made)
    assert made != ids.for_request(incoming)


def test_a_forked_worker_makes_ids_of_its_own() -> None:
    ids = RequestIds()
    parent = ids.new()
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover -- runs in the child
        os.write(writer, ids.new().encode())
        os._exit(0)
    os.waitpid(child, 0)
    from_child = os.read(reader, 100).decode()
    assert from_child.split("-")[0] != parent.split("-")[0]


def test_every_answer_carries_a_request_id_errors_included(client: FlaskClient) -> None:
    for response in (client.get("/nowhere"), client.post("/v1/move", data=b"{")):
        assert MADE_ID.fullmatch(response.headers["X-Request-ID"])


def test_each_request_is_logged_once_with_what_an_operator_needs(
    client: FlaskClient, capfd: pytest.CaptureFixture[str]
) -> None:
    capfd.readouterr()
    client.post("/v1/move", json={"board": "X........"}, headers={"X-Request-ID": "abc-1"})
    client.get('/no"where')
    first, second = access_lines(capfd)
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
    # A path that needs escaping stays valid JSON.
    assert (second["path"], second["status"]) == ('/no"where', 404)


def test_the_access_log_can_be_turned_off(
    make_service: ServiceFactory, capfd: pytest.CaptureFixture[str]
) -> None:
    capfd.readouterr()
    make_service(Settings(access_log=False)).test_client().get("/healthz")
    assert access_lines(capfd) == []


REQUESTS = "bestmove_http_request_duration_seconds_count"


def test_metrics_count_requests_by_endpoint_method_and_status(client: FlaskClient) -> None:
    for _ in range(3):
        client.post("/v1/move", json={"board": "X........"})
    client.post("/v1/move", json={"board": "XXXXX...."})
    client.get("/no/such/path")
    client.get("/static/app.js").close()
    text = client.get("/metrics").get_data(as_text=True)
    move = {"endpoint": "/v1/move", "method": "POST"}
    assert metric(text, REQUESTS, **move, status="200") == 3
    assert metric(text, REQUESTS, **move, status="422") == 1
    bucket = "bestmove_http_request_duration_seconds_bucket"
    assert metric(text, bucket, **move, status="200", le="+Inf") == 3
    # An unknown path is one label, whatever the path, so that the set of series stays bounded.
    assert metric(text, REQUESTS, endpoint="unmatched", method="GET", status="404") == 1
    assert (
        metric(text, REQUESTS, endpoint="/static/<path:filename>", method="GET", status="200") == 1
    )


def test_metrics_count_moves_by_outcome(client: FlaskClient) -> None:
    client.post("/v1/move", json={"board": "........."})  # draw
    client.post("/v1/move", json={"board": "XX.OO...."})  # X wins at once
    client.post("/v1/move", json={"board": "...", "player": "O"})  # refused: not a move
    client.post("/v1/move", json={"board": "XXXOO...."})  # already over
    client.post("/v1/moves", json={"requests": [{"board": "........."}]})  # a draw in a batch
    text = client.get("/metrics").get_data(as_text=True)
    assert metric(text, "bestmove_moves_total", outcome="draw") == 2
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


def test_two_apps_in_one_process_keep_their_own_counts(make_service: ServiceFactory) -> None:
    first, second = make_service().test_client(), make_service().test_client()
    first.post("/v1/move", json={"board": "X........"})
    text = second.get("/metrics").get_data(as_text=True)
    assert metric(text, "bestmove_moves_total", outcome="draw") == 0

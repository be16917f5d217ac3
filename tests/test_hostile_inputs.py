"""The hostile-input corpus (tests/data/hostile_requests.json) against every endpoint.

Every request must get a 4xx problem+json answer with the expected code and a detail that
helps the caller, never a 5xx; and the service must answer a normal request correctly after.
"""

from __future__ import annotations

import base64
import http.client
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from scripts.servers import RunningServer

ROOT = Path(__file__).resolve().parent.parent
CORPUS: list[dict[str, Any]] = json.loads(
    (ROOT / "tests" / "data" / "hostile_requests.json").read_text()
)
NORMAL = {"board": "X...O...."}


def body_of(entry: dict[str, Any]) -> bytes | None:
    if "json" in entry:
        return json.dumps(entry["json"]).encode()
    if "body" in entry:
        return str(entry["body"]).encode()
    if "body_base64" in entry:
        return base64.b64decode(entry["body_base64"])
    if "parts" in entry:
        return "".join(text * times for text, times in entry["parts"]).encode()
    return None


def assert_helpful_problem(entry: dict[str, Any], status: int, media_type: str, raw: bytes) -> None:
    assert status == entry["expect"], raw[:300]
    assert 400 <= status < 500
    assert media_type == "application/problem+json"
    problem = json.loads(raw)
    assert (problem["status"], problem["code"]) == (status, entry["code"])
    detail = problem["detail"]
    # A sentence that says what is wrong, not the status again, and no internals.
    assert len(detail) >= 15
    assert detail != problem["title"]
    assert "Traceback" not in detail
    assert 'File "' not in detail


def test_the_corpus_is_large_and_covers_every_endpoint() -> None:
    assert len(CORPUS) >= 150
    assert len({entry["name"] for entry in CORPUS}) == len(CORPUS)
    paths = {entry["path"].split("?")[0] for entry in CORPUS}
    endpoints = {
        "/v1/move",
        "/v1/analysis",
        "/v1/moves",
        "/healthz",
        "/readyz",
        "/metrics",
        "/openapi.yaml",
        "/",
    }
    assert endpoints <= paths


IN_PROCESS = [pytest.param(entry, id=entry["name"]) for entry in CORPUS if entry["method"] != "RAW"]


@pytest.mark.parametrize("entry", IN_PROCESS)
def test_in_process(client: FlaskClient, entry: dict[str, Any]) -> None:
    response = client.open(
        entry["path"], method=entry["method"], data=body_of(entry), headers=entry.get("headers", {})
    )
    assert_helpful_problem(entry, response.status_code, response.mimetype or "", response.data)
    assert client.post("/v1/move", json=NORMAL).get_json()["move"] == 1


def send(server: RunningServer, entry: dict[str, Any]) -> tuple[int, str, bytes]:
    """Send one corpus request over a real socket; return status, media type and body."""
    if entry["method"] == "RAW":
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw_socket:
            raw_socket.sendall("".join(text * times for text, times in entry["raw"]).encode())
            answer = http.client.HTTPResponse(raw_socket)
            answer.begin()
            return answer.status, answer.getheader("Content-Type", ""), answer.read()
    connection = server.connection()
    try:
        connection.request(
            entry["method"], entry["path"], body=body_of(entry), headers=entry.get("headers", {})
        )
        response = connection.getresponse()
        media_type = response.getheader("Content-Type", "").split(";")[0]
        return response.status, media_type, response.read()
    finally:
        connection.close()


def test_against_the_production_server(server: RunningServer) -> None:
    """Every entry, raw HTTP included, through gunicorn; one server for all of them."""
    failures = []
    for entry in CORPUS:
        status, media_type, raw = send(server, entry)
        try:
            assert_helpful_problem(entry, status, media_type, raw)
        except AssertionError as failure:
            failures.append((entry["name"], status, raw[:200], str(failure)[:200]))
        normal_status, _, normal = server.request("POST", "/v1/move", json.dumps(NORMAL).encode())
        assert (normal_status, json.loads(normal)["move"]) == (200, 1), entry["name"]
    assert failures == []
    assert server.process.poll() is None

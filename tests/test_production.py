"""The production server under real gunicorn: metrics across workers, logs, graceful shutdown."""

from __future__ import annotations

import http.client
import json
import re
import signal
import socket
import sys
import time
from pathlib import Path

import pytest

from service.game.rules import FAMILY
from tests.helpers import ServerStarter, accepted, metric, needs_proc, never_served, wait_for

HALF_SENT_MOVE = (
    b"POST /v1/move HTTP/1.1\r\nHost: bestmove\r\nContent-Type: application/json\r\n"
    b"Content-Length: %d\r\n\r\n"
)


@needs_proc
def test_metrics_add_up_across_workers(tmp_path: Path, serve: ServerStarter) -> None:
    """Whichever worker answers the scrape, it reports every worker's requests."""
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    (metrics_dir / "counter_999999.db").write_bytes(b"left over from an earlier run")
    # The shipped worker reads a request in the thread that accepts, so a worker reading
    # one serves nothing else meanwhile.
    server = serve({"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir), "WEB_CONCURRENCY": "2"})
    body = b'{"board": "X........"}'
    try:
        # One worker is held by a half-sent request, so the other must serve the rest.
        held = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        held.sendall(HALF_SENT_MOVE % len(body) + body[:5])
        wait_for(lambda: accepted(held), "a worker takes the half-sent request")
        statuses = [server.request("POST", "/v1/move", body)[0] for _ in range(59)]
        held.sendall(body[5:])
        statuses.append(read_response(held)[0])
        held.close()
        worker_files = {path.name for path in metrics_dir.glob("counter_*.db")}
        _, _, text = server.request("GET", "/metrics")
    finally:
        assert server.stop() == 0
    assert statuses == [200] * 60
    assert "counter_999999.db" not in worker_files
    assert len(worker_files) == 2
    scraped = text.decode()
    labels = {"endpoint": "/v1/move", "method": "POST", "status": "200"}
    assert metric(scraped, "bestmove_http_request_duration_seconds_count", **labels) == 60
    assert metric(scraped, "bestmove_moves_total", outcome="draw") == 60


def test_the_access_log_is_json_lines_on_stdout(tmp_path: Path, serve: ServerStarter) -> None:
    log_path = tmp_path / "stdout.log"
    with log_path.open("wb") as stdout:
        server = serve(stdout=stdout)
        try:
            server.request(
                "POST", "/v1/move", b'{"board": "X........"}', {"X-Request-ID": "trace-7"}
            )
            status, headers, _ = server.request("GET", "/nowhere")
        finally:
            assert server.stop() == 0
    lines = [json.loads(line) for line in log_path.read_text().splitlines()]
    move = next(line for line in lines if line["request_id"] == "trace-7")
    assert (move["method"], move["path"], move["status"]) == ("POST", "/v1/move", 200)
    missing = next(line for line in lines if line["path"] == "/nowhere")
    assert missing["status"] == status == 404
    assert missing["request_id"] == headers["X-Request-ID"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", move["time"])


def read_response(connection: socket.socket) -> tuple[int, dict[str, object]]:
    response = http.client.HTTPResponse(connection)
    response.begin()
    return response.status, json.loads(response.read())


@needs_proc
@pytest.mark.parametrize("worker_class", ["handoff", "gthread"])
def test_sigterm_finishes_requests_in_flight_fails_readiness_and_exits_0(
    worker_class: str, serve: ServerStarter
) -> None:
    server = serve(
        {
            "GUNICORN_WORKER_CLASS": worker_class,
            "GUNICORN_THREADS": "4",
            "GUNICORN_GRACEFUL_TIMEOUT": "10",
        }
    )
    body = b'{"board": "XX.OO...."}'
    # Two requests in flight when the signal comes: each has been accepted and is half read.
    move = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    move.sendall(HALF_SENT_MOVE % len(body) + body[:5])
    readiness = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    readiness.sendall(b"GET /readyz HTTP/1.1\r\nHost: bestmove\r\n")
    wait_for(lambda: accepted(move) and accepted(readiness), "the workers take both requests")

    signalled = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    # The workers stop taking connections once each has handled the signal.
    wait_for(lambda: never_served(server.port), "a new request goes unserved after SIGTERM")
    move.sendall(body[5:])
    readiness.sendall(b"\r\n")

    move_status, move_answer = read_response(move)
    ready_status, ready_answer = read_response(readiness)
    assert (move_status, move_answer["move"]) == (200, 2)
    assert (ready_status, ready_answer["code"]) == (503, "not_ready")
    assert ready_answer["detail"] == "the server is shutting down"
    assert server.process.wait(timeout=15) == 0
    assert time.monotonic() - signalled < 10
    move.close()
    readiness.close()


#: `python -m service` whose second worker is still booting, before the shipped `post_fork`
#: hook runs, when SIGTERM reaches it: the slowness is the test's, the hook the product's.
SLOW_SECOND_WORKER = """
import runpy, time
import service.ops.server

shipped = service.ops.server.gunicorn_settings

def with_a_slow_second_worker(environment):
    settings = shipped(environment)
    post_fork = settings.get("post_fork", lambda master, worker: None)

    def slowly(master, worker):
        # The second worker boots until the master's SIGTERM has reached it (its copy of
        # the master's handler queues it) or ten seconds have passed.
        deadline = time.monotonic() + 10
        while worker.age == 2 and master.SIG_QUEUE.empty() and time.monotonic() < deadline:
            time.sleep(0.01)  # a poll of its own queue, within the deadline
        post_fork(master, worker)

    return {**settings, "post_fork": slowly}

service.ops.server.gunicorn_settings = with_a_slow_second_worker
runpy.run_module("service", run_name="__main__")
"""


def test_a_worker_still_booting_at_sigterm_stops_with_the_rest(serve: ServerStarter) -> None:
    """The first worker answers while the second boots: SIGTERM reaches the second before it
    has handlers of its own (gunicorn alone loses it: that worker served on until the master
    killed it as the grace ran out)."""
    server = serve(
        {"GUNICORN_WORKER_CLASS": "gthread", "GUNICORN_GRACEFUL_TIMEOUT": "10"},
        command=(sys.executable, "-c", SLOW_SECOND_WORKER),
    )
    signalled = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=15) == 0
    assert time.monotonic() - signalled < 6


def test_invented_methods_add_no_metric_series(serve: ServerStarter) -> None:
    """gunicorn accepts any upper-case method; each must not become a label of its own."""
    server = serve({"ACCESS_LOG": "false", "WEB_CONCURRENCY": "1"})
    try:
        for number in range(40):
            server.request(f"BREW{number:02d}", "/v1/move")
            server.request(f"BREW{number:02d}", "/no/such/path")
        _, _, text = server.request("GET", "/metrics")
    finally:
        assert server.stop() == 0
    scraped = text.decode()
    methods = set(
        re.findall(r'bestmove_http_request_duration_seconds_count\{[^}]*method="([^"]*)"', scraped)
    )
    assert methods == {"other", "GET"}
    assert (
        metric(
            scraped,
            "bestmove_http_request_duration_seconds_count",
            endpoint="/v1/move",
            method="other",
            status="405",
        )
        == 40
    )
    assert (
        metric(
            scraped,
            "bestmove_http_request_duration_seconds_count",
            endpoint="unmatched",
            method="other",
            status="404",
        )
        == 40
    )


def test_the_metrics_directory_it_made_is_removed_at_a_clean_stop(
    tmp_path: Path, serve: ServerStarter
) -> None:
    server = serve({"TMPDIR": str(tmp_path), "ACCESS_LOG": "false"})
    try:
        server.request("POST", "/v1/move", b'{"board": "X........"}')
        made = list(tmp_path.glob("bestmove-metrics-*"))
        written = [list(directory.glob("*.db")) for directory in made]
    finally:
        assert server.stop() == 0
    assert len(made) == 1
    assert written[0]
    assert not made[0].exists()


def test_an_operators_metrics_directory_is_kept_at_a_stop(
    tmp_path: Path, serve: ServerStarter
) -> None:
    metrics_dir = tmp_path / "metrics"
    server = serve({"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir), "ACCESS_LOG": "false"})
    server.request("POST", "/v1/move", b'{"board": "X........"}')
    assert server.stop() == 0
    assert metrics_dir.is_dir()


@pytest.mark.parametrize("preload", ["true", "false"])
def test_a_fresh_install_solves_each_game_once_before_any_worker_starts(
    tmp_path: Path, serve: ServerStarter, preload: str
) -> None:
    """Without preload every worker builds its own app; the master has prepared the tables."""
    log_path = tmp_path / "stderr.log"
    with log_path.open("wb") as stderr:
        server = serve(
            {"GUNICORN_PRELOAD": preload, "WEB_CONCURRENCY": "2", "ACCESS_LOG": "false"},
            tables_dir=tmp_path / "tables",
            stderr=stderr,
            within=180,
        )
        status, _, _ = server.request("POST", "/v1/move", b'{"board": "X..............."}')
        assert server.stop() == 0
    solved = re.findall(r"bestmove: solved (.+?) in [\d.]+ s", log_path.read_text())
    assert status == 200
    assert len(solved) == len(FAMILY)
    assert len(set(solved)) == len(FAMILY)

"""The production worker: tables answered in the accepting thread, as a sync worker does; a
request that searches hands the accepting to another thread, so the worker goes on answering
tables and probes; requests in flight, in any thread, finish when the server is told to stop."""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from scripts.servers import RunningServer
from service.api.long_work import STEP_ASIDE
from service.ops.environment import Environment
from service.ops.server import WORKER_CLASSES, gunicorn_settings
from tests.helpers import (
    GOMOKU_OPENING,
    ServerStarter,
    held_until_later,
    never_served,
    wait_for,
)

#: A search of 3 s in one request, and the same 3 s spread over a batch's two items.
LONG_REQUESTS = {
    "move": ("/v1/move", {"board": GOMOKU_OPENING, "budget_ms": 3000}),
    "batch": (
        "/v1/moves",
        {"requests": [{"board": GOMOKU_OPENING, "budget_ms": 1500}] * 2},
    ),
}


def one_worker_two_threads(serve: ServerStarter, tmp_path: Path) -> RunningServer:
    """A server of one worker with two threads: one to search, one to take its turn."""
    return serve(
        {
            "WEB_CONCURRENCY": "1",
            "GUNICORN_THREADS": "2",
            "SEARCH_SLOTS": "1",
            # The server makes its slots' directory under TMPDIR: here, where the test sees it.
            "TMPDIR": str(tmp_path),
        }
    )


def a_search_runs(tmp_path: Path) -> bool:
    """Return whether a search holds a slot of the server started under `tmp_path`."""
    slot_files = tmp_path.glob("bestmove-search-slots-*/search-slot-*.lock")
    return any(map(held_until_later, slot_files))


def in_background(
    server: RunningServer, path: str, body: object
) -> tuple[threading.Thread, list[int]]:
    """Send a request from another thread; return the thread and where its status lands."""
    statuses: list[int] = []
    sender = threading.Thread(
        target=lambda: statuses.append(
            server.request("POST", path, json.dumps(body).encode(), timeout=30)[0]
        )
    )
    sender.start()
    return sender, statuses


@pytest.mark.parametrize(
    ("path", "body", "steps_aside"),
    [
        ("/v1/move", {"board": "X...O...."}, False),
        ("/v1/analysis", {"board": "X...O...."}, False),
        ("/v1/move", {"board": GOMOKU_OPENING, "difficulty": "medium"}, False),
        ("/v1/move", {"board": GOMOKU_OPENING, "budget_ms": 10}, True),
        ("/v1/analysis", {"board": GOMOKU_OPENING, "budget_ms": 10}, True),
        # A batch steps aside before any work, searching or not: a thousand items take long.
        ("/v1/moves", {"requests": [{"board": "X...O...."}]}, True),
        ("/v1/moves", {"requests": [{"board": GOMOKU_OPENING, "budget_ms": 10}]}, True),
    ],
)
def test_the_app_steps_aside_for_searches_and_batches_only(
    client: FlaskClient, path: str, body: object, steps_aside: bool
) -> None:
    asked: list[str] = []
    response = client.post(
        path, json=body, environ_overrides={STEP_ASIDE: lambda: asked.append(path)}
    )
    assert response.status_code == 200
    # A batch that searches asks twice (before its work, and with its slot); a worker that
    # has already handed the turn on does nothing the second time.
    assert bool(asked) == steps_aside


def test_the_shipped_worker_is_the_handoff_worker() -> None:
    settings = gunicorn_settings(Environment.read({}))
    assert settings["worker_class"] == WORKER_CLASSES["handoff"]
    assert WORKER_CLASSES["handoff"] == "service.ops.worker.HandoffWorker"


@pytest.mark.parametrize("kind", LONG_REQUESTS)
def test_a_worker_searching_answers_tables_and_probes_meanwhile(
    kind: str, tmp_path: Path, serve: ServerStarter
) -> None:
    """With its only other thread free, the worker answers while the search runs: both
    answers come back before the search's does. A worker that searched in the thread that
    accepts (a sync worker) would answer them only after it."""
    server = one_worker_two_threads(serve, tmp_path)
    try:
        path, body = LONG_REQUESTS[kind]
        searching, statuses = in_background(server, path, body)
        wait_for(lambda: a_search_runs(tmp_path), "the long request's search starts")
        health = server.request("GET", "/healthz")[0]
        table = server.request("POST", "/v1/move", b'{"board": "X...O...."}')[0]
        answered_during_the_search = searching.is_alive()
        searching.join()
    finally:
        assert server.stop() == 0
    assert (health, table) == (200, 200)
    assert answered_during_the_search
    assert statuses == [200]


def test_requests_in_flight_in_any_thread_finish_after_sigterm(
    tmp_path: Path, serve: ServerStarter
) -> None:
    """The search runs in the thread that stepped aside, not the one leading; the worker
    waits for it before it exits, and exits 0."""
    server = one_worker_two_threads(serve, tmp_path)
    path, body = LONG_REQUESTS["move"]
    searching, statuses = in_background(server, path, body)
    wait_for(lambda: a_search_runs(tmp_path), "the long request's search starts")
    server.process.send_signal(signal.SIGTERM)
    # The signal is handled at once, not when the search's compiled code returns: the
    # worker stops taking requests while the search still runs.
    wait_for(lambda: never_served(server.port), "a new request goes unserved after SIGTERM")
    stopped_during_the_search = searching.is_alive()
    searching.join()
    assert stopped_during_the_search
    assert statuses == [200]
    assert server.process.wait(timeout=30) == 0

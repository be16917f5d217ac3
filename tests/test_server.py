"""`python -m service`: gunicorn configured from the environment, served for real."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import subprocess
import sys

import pytest

from scripts.servers import RunningServer, free_port
from service.ops.environment import Environment
from service.ops.server import freeze_before_fork, gunicorn_settings, hold_stop_signals
from tests.helpers import ServerStarter


@pytest.mark.parametrize(
    ("environ", "bind", "workers"),
    [
        ({}, "0.0.0.0:8000", 2),
        ({"PORT": "9001"}, "0.0.0.0:9001", 2),
        ({"PORT": " 9001 ", "WEB_CONCURRENCY": "4"}, "0.0.0.0:9001", 4),
        ({"HOST": "127.0.0.1", "PORT": "80"}, "127.0.0.1:80", 2),
        ({"HOST": "::1"}, "[::1]:8000", 2),
        ({"PORT": ""}, "0.0.0.0:8000", 2),
    ],
)
def test_bind_and_workers_come_from_the_environment(
    environ: dict[str, str], bind: str, workers: int
) -> None:
    settings = gunicorn_settings(Environment.read(environ))
    assert settings["bind"] == bind
    assert settings["workers"] == workers


def test_the_app_is_loaded_once_before_the_workers_fork() -> None:
    assert gunicorn_settings(Environment())["preload_app"] is True


def test_the_production_server_answers_a_move(server: RunningServer) -> None:
    status, headers, body = server.request("POST", "/v1/move", b'{"board": "XX.OO...."}')
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    assert json.loads(body)["move"] == 2


def test_the_production_server_is_healthy(server: RunningServer) -> None:
    assert server.request("GET", "/healthz")[:1] == (200,)


def test_an_oversized_body_gets_its_413_over_a_real_socket(server: RunningServer) -> None:
    """The client must read the 413, not a connection reset, after sending 4 MiB."""
    status, headers, body = server.request("POST", "/v1/move", b" " * (4 * 1024 * 1024))
    assert status == 413
    assert headers["Content-Type"] == "application/problem+json"
    assert json.loads(body)["code"] == "body_too_large"


def test_an_oversized_chunked_body_gets_its_413(server: RunningServer) -> None:
    chunks = (b" " * 65536 for _ in range(32))
    with contextlib.closing(server.connection()) as connection:
        connection.request(
            "POST",
            "/v1/move",
            body=chunks,
            headers={"Content-Type": "application/json"},
            encode_chunked=True,
        )
        response = connection.getresponse()
        assert response.status == 413
        assert json.loads(response.read())["code"] == "body_too_large"


def test_a_chunked_body_at_the_limit_is_read(server: RunningServer) -> None:
    body = b'{"board": "X........"}'.ljust(1024 * 1024)
    with contextlib.closing(server.connection()) as connection:
        connection.request(
            "POST",
            "/v1/move",
            body=(body[start : start + 65536] for start in range(0, len(body), 65536)),
            headers={"Content-Type": "application/json"},
            encode_chunked=True,
        )
        response = connection.getresponse()
        assert response.status == 200
        assert json.loads(response.read())["move"] == 4


def test_sigterm_stops_the_server_cleanly(serve: ServerStarter) -> None:
    running = serve({})
    assert running.stop() == 0


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"PORT": "eighty"}, "bestmove: PORT must be a whole number, not 'eighty'"),
        (
            {"MAX_BODY_BYTES": "2000000"},
            "bestmove: MAX_BODY_BYTES must be between 1 and 1048576, not 2000000",
        ),
    ],
)
def test_a_bad_setting_stops_the_server_with_one_line(
    environ: dict[str, str], message: str
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "service"],
        env={**os.environ, **environ},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.strip() == message


def run_healthcheck(port: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.ops.healthcheck"],
        env={**os.environ, "PORT": str(port)},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_the_container_health_probe_passes_against_a_live_server(server: RunningServer) -> None:
    assert run_healthcheck(server.port).returncode == 0


def test_the_container_health_probe_fails_when_nothing_listens() -> None:
    result = run_healthcheck(free_port())
    assert result.returncode == 1
    assert "unhealthy" in result.stderr


def test_the_documented_defaults() -> None:
    settings = gunicorn_settings(Environment())
    assert {
        name: settings[name]
        for name in (
            "worker_class",
            "threads",
            "timeout",
            "graceful_timeout",
            "keepalive",
            "max_requests",
            "max_requests_jitter",
            "preload_app",
            "loglevel",
        )
    } == {
        "worker_class": "service.ops.worker.HandoffWorker",
        "threads": 4,
        "timeout": 30,
        "graceful_timeout": 20,
        "keepalive": 0,
        "max_requests": 100_000,
        "max_requests_jitter": 10_000,
        "preload_app": True,
        "loglevel": "info",
    }


def test_what_the_master_made_is_kept_from_the_workers_collector() -> None:
    """Before each fork the master freezes its objects: the workers' collections skip them."""
    assert gunicorn_settings(Environment())["pre_fork"] is freeze_before_fork
    gc.unfreeze()
    try:
        made_by_the_master = [object() for _ in range(1000)]
        freeze_before_fork(None, None)
        assert gc.get_freeze_count() >= len(made_by_the_master)
    finally:
        gc.unfreeze()


#: A worker's boot, in a process forked as gunicorn forks one (a fork has one thread: the
#: imports' threads stay behind): the stop signals that reach it before it has set handlers of
#: its own (gunicorn's `init_signals`) must reach them once it has.
A_WORKER_TOLD_TO_STOP_AS_IT_BOOTS = """
import json, os, queue, signal, sys
from types import SimpleNamespace
from service.ops.server import hold_stop_signals

master = SimpleNamespace(SIG_QUEUE=queue.SimpleQueue())
for queued in (signal.SIGHUP, signal.SIGTERM):  # the master's handler queued them
    master.SIG_QUEUE.put(queued)
worker = os.fork()
if worker:
    sys.exit(os.waitstatus_to_exitcode(os.waitpid(worker, 0)[1]))
seen = []

def init_signals():  # gunicorn's Worker.init_signals, recording
    for number in (signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(number, lambda signum, frame: seen.append(signal.Signals(signum).name))
    seen.append("handlers set")

booting = SimpleNamespace(init_signals=init_signals)
hold_stop_signals(master, booting)
os.kill(os.getpid(), signal.SIGQUIT)  # after the fork, before the worker's own handlers
seen.append("still booting")
booting.init_signals()
print(json.dumps({"seen": seen, "queue left": not master.SIG_QUEUE.empty()}), flush=True)
os._exit(0)
"""


def test_a_worker_told_to_stop_as_it_boots_stops_once_it_can() -> None:
    """Until its handlers are set, a stop signal would run the master's and be lost."""
    assert gunicorn_settings(Environment())["post_fork"] is hold_stop_signals
    boot = subprocess.run(
        [sys.executable, "-c", A_WORKER_TOLD_TO_STOP_AS_IT_BOOTS],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    # Held until the handlers are set, then each handled (Python runs them in the order of
    # their numbers); the master's SIGHUP, its own business, is not sent again.
    assert json.loads(boot.stdout) == {
        "seen": ["still booting", "handlers set", "SIGQUIT", "SIGTERM"],
        "queue left": False,
    }

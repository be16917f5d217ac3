"""`python -m service`: gunicorn configured from the environment, served for real."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from service.server import gunicorn_settings
from service.settings import SettingsError


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
    settings = gunicorn_settings(environ)
    assert settings["bind"] == bind
    assert settings["workers"] == workers


def test_the_app_is_loaded_once_before_the_workers_fork() -> None:
    assert gunicorn_settings({})["preload_app"] is True


@pytest.mark.parametrize(
    ("environ", "words"),
    [
        ({"PORT": "http"}, "PORT must be a whole number, not 'http'"),
        ({"PORT": "0"}, "PORT must be between 1 and 65535, not 0"),
        ({"PORT": "70000"}, "PORT must be between 1 and 65535, not 70000"),
        ({"WEB_CONCURRENCY": "-2"}, "WEB_CONCURRENCY must be at least 1, not -2"),
    ],
)
def test_a_bad_server_setting_is_refused_with_its_name(environ: dict[str, str], words: str) -> None:
    with pytest.raises(SettingsError, match=words):
        gunicorn_settings(environ)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class RunningServer:
    process: subprocess.Popen[bytes]
    port: int

    def stop(self) -> int:
        """Send SIGTERM and return the exit code."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=30)

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)

    def request(
        self, method: str, path: str, body: bytes | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        connection = self.connection()
        headers = {"Content-Type": "application/json"} if body is not None else {}
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        answer = (response.status, dict(response.getheaders()), response.read())
        connection.close()
        return answer


def start_server(extra_env: dict[str, str]) -> RunningServer:
    """Start `python -m service` on a free loopback port and wait until it is ready."""
    port = free_port()
    env = {
        **os.environ,
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "WEB_CONCURRENCY": "2",
        **extra_env,
    }
    # The server's log goes to the test's own output, where pytest shows it on failure.
    process = subprocess.Popen([sys.executable, "-m", "service"], env=env)
    server = RunningServer(process, port)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server exited with {process.returncode}"
        try:
            if server.request("GET", "/readyz")[0] == 200:
                return server
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise AssertionError("the server did not become ready within 30 s")


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    running = start_server({})
    yield running
    running.stop()


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
    connection = server.connection()
    chunks = (b" " * 65536 for _ in range(32))
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
    connection = server.connection()
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


def test_sigterm_stops_the_server_cleanly() -> None:
    running = start_server({})
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
        [sys.executable, "-m", "service.healthcheck"],
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

"""Running `python -m service` (or another server) for real, on a free loopback port.

One way to find a port, start a server, wait until it answers and talk to it, shared by the
load scripts here, the benchmarks and the tests that need a real gunicorn. It lives with the
scripts because it is a tool that drives the product from outside, as an operator would:
not in `service`, since the product never starts itself this way, and not in `tests`, so
that the scripts and benchmarks run without the test suite.
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

SERVICE_COMMAND = (sys.executable, "-m", "service")


def free_port() -> int:
    """Return a loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def connection_to(port: int, timeout: float = 10) -> http.client.HTTPConnection:
    """Open a connection to a server on a loopback port."""
    return http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)


def request(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    *,
    timeout: float = 10,
) -> tuple[int, dict[str, str], bytes]:
    """Send one request to a loopback port on a new connection; return status, headers and
    body (a body is sent as JSON unless the headers say otherwise)."""
    connection = connection_to(port, timeout)
    sent = {"Content-Type": "application/json"} if body is not None else {}
    connection.request(method, path, body=body, headers={**sent, **(headers or {})})
    response = connection.getresponse()
    answer = (response.status, dict(response.getheaders()), response.read())
    connection.close()
    return answer


@dataclass
class RunningServer:
    """A server process, the port it serves on, and how long it took to answer."""

    process: subprocess.Popen[bytes]
    port: int
    ready_after: float = 0.0

    @property
    def base_url(self) -> str:
        """Return the server's address, without a path."""
        return f"http://127.0.0.1:{self.port}"

    def connection(self) -> http.client.HTTPConnection:
        """Open a connection to the server."""
        return connection_to(self.port)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        *,
        timeout: float = 10,
    ) -> tuple[int, dict[str, str], bytes]:
        """Send one request on a new connection; return status, headers and body."""
        return request(self.port, method, path, body, headers, timeout=timeout)

    def worker_pids(self) -> list[int]:
        """Return the process ids of the server's children: gunicorn's workers."""
        found = subprocess.run(
            ["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True, check=False
        )
        return sorted(int(pid) for pid in found.stdout.split())

    def stop(self) -> int:
        """Send SIGTERM and return the exit code."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=60)


def start_server(
    extra_env: dict[str, str] | None = None,
    *,
    command: Sequence[str] = SERVICE_COMMAND,
    stdout: IO[bytes] | None = None,
    stderr: IO[bytes] | None = None,
    cwd: Path | None = None,
    ready_path: str = "/readyz",
    any_status: bool = False,
    within: float = 30,
    tables_dir: Path | None = None,
) -> RunningServer:
    """Start a server (by default `python -m service`) on a free loopback port.

    Wait until `ready_path` answers 200 (with `any_status`, any HTTP answer at all). The
    command may name the port as `{port}`; PORT and HOST are set in its environment, and
    TABLES_DIR to `tables_dir` when given (else the server uses its default).
    """
    port = free_port()
    env = {
        **os.environ,
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "WEB_CONCURRENCY": "2",
        **({"TABLES_DIR": str(tables_dir)} if tables_dir is not None else {}),
        **(extra_env or {}),
    }
    started = time.monotonic()
    # Without a given stdout, the server's log joins the caller's output, shown on failure.
    process = subprocess.Popen(
        [part.replace("{port}", str(port)) for part in command],
        env=env,
        stdout=stdout,
        stderr=stderr,
        cwd=cwd,
    )
    server = RunningServer(process, port)
    url = server.base_url + ready_path
    while time.monotonic() - started < within:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        if _answers(url, any_status=any_status):
            server.ready_after = time.monotonic() - started
            return server
        time.sleep(0.02)  # a poll of the readiness URL, bounded by `within`
    process.kill()
    raise RuntimeError(f"the server did not answer {url} within {within} s")


def _answers(url: str, *, any_status: bool) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as answer:
            return bool(answer.status == 200)
    except urllib.error.HTTPError:
        return any_status
    except OSError:
        return False

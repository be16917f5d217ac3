"""Running `python -m service` for real, on a free loopback port."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO


def free_port() -> int:
    """Return a loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class RunningServer:
    """A production server process and the port it serves on."""

    process: subprocess.Popen[bytes]
    port: int

    def connection(self) -> http.client.HTTPConnection:
        """Open a connection to the server."""
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        """Send one request on a new connection; return status, headers and body."""
        connection = self.connection()
        sent = {"Content-Type": "application/json"} if body is not None else {}
        connection.request(method, path, body=body, headers={**sent, **(headers or {})})
        response = connection.getresponse()
        answer = (response.status, dict(response.getheaders()), response.read())
        connection.close()
        return answer

    def stop(self) -> int:
        """Send SIGTERM and return the exit code."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=60)


def start_server(
    extra_env: dict[str, str] | None = None,
    *,
    stdout: IO[bytes] | None = None,
    cwd: Path | None = None,
) -> RunningServer:
    """Start `python -m service` on a free loopback port and wait until it is ready."""
    port = free_port()
    env = {
        **os.environ,
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "WEB_CONCURRENCY": "2",
        **(extra_env or {}),
    }
    # Without a given stdout, the server's log joins the test's output, shown on failure.
    process = subprocess.Popen([sys.executable, "-m", "service"], env=env, stdout=stdout, cwd=cwd)
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

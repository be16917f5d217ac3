#!/usr/bin/env python3
"""Load and fault tests against `python -m service` on 127.0.0.1, with hey as the client.

    python -m scripts.reliability load        # 64 connections for 60 s: zero errors, all 2xx
    python -m scripts.reliability kill-worker # kill -9 a worker under load
    python -m scripts.reliability sigterm     # SIGTERM the server under load
    python -m scripts.reliability all --short # a few seconds each, as CI runs them

hey reports what the client saw (every status, every error); the server's own JSON access
log dates every answer to the millisecond, which gives the throughput timeline. Each check
prints its figures and the verdict, and the script exits 1 if any check fails. Traffic goes
to 127.0.0.1 only, and every run is bounded in time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from scripts import servers
from scripts.servers import RunningServer

BODY = b'{"board": "X...O...."}'
CONNECTIONS = 64
ERROR_KINDS = {"refused": "connection refused", "reset": "connection reset", "eof": "EOF",
               "timeout": "Timeout"}  # fmt: skip


@dataclass
class Server:
    """A production server started for one check, logging to a file."""

    running: RunningServer
    log: Path

    @property
    def process(self) -> subprocess.Popen[bytes]:
        return self.running.process

    @property
    def url(self) -> str:
        return f"{self.running.base_url}/v1/move"

    def worker_pids(self) -> list[int]:
        return self.running.worker_pids()

    def answered(self) -> list[tuple[float, int]]:
        """Return (time, status) of every move request in the access log (not the probes)."""
        answers = []
        for line in self.log.read_text().splitlines():
            if line.startswith("{") and '"request_id"' in line:
                entry = json.loads(line)
                if entry["path"] == "/v1/move":
                    when = datetime.fromisoformat(entry["time"]).timestamp()
                    answers.append((when, entry["status"]))
        return answers


def start_server(workdir: Path, **env: str) -> Server:
    log = workdir / f"server-{time.monotonic_ns()}.log"
    with log.open("wb") as output:
        try:
            running = servers.start_server(env, stdout=output, stderr=output)
        except RuntimeError as error:
            raise SystemExit(f"{error}: {log.read_text()[-2000:]}") from None
    return Server(running, log)


@dataclass
class HeyReport:
    """What hey saw: requests answered by status, and errors by message."""

    seconds: float
    statuses: dict[int, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    p99: float = 0.0

    @property
    def answered(self) -> int:
        return sum(self.statuses.values())

    @property
    def succeeded(self) -> int:
        return sum(count for status, count in self.statuses.items() if 200 <= status < 300)

    def error_kinds(self) -> dict[str, int]:
        """Group the errors: refused (nothing listening), reset, end of stream, timeout."""
        kinds: dict[str, int] = {}
        for message, count in self.errors.items():
            kind = next((name for name, words in ERROR_KINDS.items() if words in message), "other")
            kinds[kind] = kinds.get(kind, 0) + count
        return kinds

    @property
    def failed(self) -> int:
        return self.answered - self.succeeded + sum(self.errors.values())


def start_hey(url: str, seconds: float, connections: int, body_file: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["hey", "-z", f"{seconds}s", "-c", str(connections), "-m", "POST",
         "-T", "application/json", "-D", str(body_file), url],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip


def read_hey(process: subprocess.Popen[str]) -> HeyReport:
    output, _ = process.communicate(timeout=600)
    total = re.search(r"Total:\s+([\d.]+) secs", output)
    if total is None:
        raise SystemExit(f"hey printed no total: {output[-2000:]}")
    report = HeyReport(seconds=float(total.group(1)))
    for status, count in re.findall(r"\[(\d{3})\]\s+(\d+) responses", output):
        report.statuses[int(status)] = int(count)
    errors = output.split("Error distribution:", 1)[1] if "Error distribution:" in output else ""
    for count, message in re.findall(r"\[(\d+)\]\s+(.+)", errors):
        report.errors[message.strip()] = int(count)
    p99 = re.search(r"99%% in ([\d.]+) secs".replace("%%", "%"), output)
    report.p99 = float(p99.group(1)) if p99 else 0.0
    return report


def throughput(answers: list[tuple[float, int]], start: float, end: float) -> float:
    """Answers per second completed in [start, end)."""
    return sum(1 for when, _ in answers if start <= when < end) / (end - start)


def verdict(name: str, ok: bool, figures: dict[str, object]) -> bool:
    print(
        f"{'PASS' if ok else 'FAIL'} {name}: "
        + ", ".join(f"{key}={value}" for key, value in figures.items())
    )
    return ok


def check_load(workdir: Path, body: Path, seconds: float) -> bool:
    """Sustained load at 64 connections: zero errors and zero non-2xx."""
    server = start_server(workdir)
    try:
        report = read_hey(start_hey(server.url, seconds, CONNECTIONS, body))
    finally:
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(timeout=60)
    return verdict(
        f"sustained load, {CONNECTIONS} connections for {seconds:g} s",
        report.answered > 0 and report.failed == 0,
        {"requests": report.answered, "per_second": round(report.answered / report.seconds),
         "non_2xx": report.answered - report.succeeded, "errors": sum(report.errors.values()),
         "p99_ms": round(report.p99 * 1000, 1)},
    )  # fmt: skip


def check_kill_worker(workdir: Path, body: Path, seconds: float) -> bool:
    """kill -9 one worker under load: failures bounded by its requests in flight (a gthread
    worker accepts connections ahead of its threads, one request on each, so at most the
    load's connections), the master replaces it, and throughput recovers within 2 s."""
    server = start_server(workdir)
    load = start_hey(server.url, seconds, CONNECTIONS, body)
    time.sleep(seconds / 3)  # a third of the load before the kill: the baseline throughput
    victim = server.worker_pids()[0]
    killed_at = time.time()
    os.kill(victim, signal.SIGKILL)
    replaced_after = None
    while time.time() - killed_at < 5:
        pids = server.worker_pids()
        if victim not in pids and len(pids) == 2:
            replaced_after = time.time() - killed_at
            break
        time.sleep(0.01)  # a poll of the master's workers, bounded above; the delay is the figure
    report = read_hey(load)
    server.process.send_signal(signal.SIGTERM)
    exit_code = server.process.wait(timeout=60)
    answers = server.answered()
    first = min(when for when, _ in answers)
    baseline = throughput(answers, first + 0.5, killed_at)
    # Recovered: the first half-second window after the kill back at 90% of the baseline.
    windows = [killed_at + tenths / 10 for tenths in range(50)]
    recovery = next(
        (round(start - killed_at, 1) for start in windows
         if throughput(answers, start, start + 0.5) >= 0.9 * baseline),
        None,
    )  # fmt: skip
    # Without keep-alive each connection carries one request: at most every one of the
    # load's connections was waiting on the victim when it died.
    in_flight_bound = CONNECTIONS
    return verdict(
        "kill -9 of one worker under load",
        report.failed <= in_flight_bound and replaced_after is not None
        and recovery is not None and recovery <= 2 and exit_code == 0,
        {"requests": report.answered, "failed": report.failed,
         "errors": report.error_kinds() or "none",
         "replaced_after_s": None if replaced_after is None else round(replaced_after, 3),
         "baseline_per_s": round(baseline), "recovered_after_s": recovery},
    )  # fmt: skip


def check_sigterm(workdir: Path, body: Path, seconds: float) -> bool:
    """SIGTERM under load: every request the server accepted (and so answered) reaches the
    client; what it refused after the signal never got in. Exit 0 within the grace period."""
    server = start_server(workdir, GUNICORN_GRACEFUL_TIMEOUT="10")
    load = start_hey(server.url, seconds, CONNECTIONS, body)
    time.sleep(seconds / 2)  # the signal comes halfway through the load, by design
    server.process.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    exit_code = server.process.wait(timeout=60)
    stopped_after = time.monotonic() - signalled
    report = read_hey(load)
    answers = server.answered()
    log = server.log.read_text()
    answered_by_server = sum(1 for _, status in answers if 200 <= status < 300)
    return verdict(
        "SIGTERM under load",
        exit_code == 0 and report.answered - report.succeeded == 0
        and report.succeeded == answered_by_server and "SIGKILL" not in log,
        {"answered_by_server": answered_by_server, "received_by_client": report.succeeded,
         "non_2xx": report.answered - report.succeeded, "exit_code": exit_code,
         "stopped_after_s": round(stopped_after, 3),
         "not_let_in_after_signal": report.error_kinds() or "none"},
    )  # fmt: skip


CHECKS = {"load": check_load, "kill-worker": check_kill_worker, "sigterm": check_sigterm}
LONG = {"load": 60.0, "kill-worker": 10.0, "sigterm": 6.0}
SHORT = {"load": 3.0, "kill-worker": 4.0, "sigterm": 3.0}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("check", choices=[*CHECKS, "all"])
    parser.add_argument("--short", action="store_true", help="a few seconds each, as in CI")
    parser.add_argument(
        "--tables-dir", type=Path, help="the servers' TABLES_DIR (default: the service's own)"
    )
    arguments = parser.parse_args()
    if arguments.tables_dir is not None:
        # Read by every server this process starts, as any other of their settings.
        os.environ["TABLES_DIR"] = str(arguments.tables_dir)
    durations = SHORT if arguments.short else LONG
    with tempfile.TemporaryDirectory(prefix="bestmove-reliability-") as scratch:
        workdir = Path(scratch)
        body = workdir / "body.json"
        body.write_bytes(BODY)
        names = list(CHECKS) if arguments.check == "all" else [arguments.check]
        results = [CHECKS[name](workdir, body, durations[name]) for name in names]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

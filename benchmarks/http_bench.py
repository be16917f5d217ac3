"""The service over HTTP against its floor, with wrk, on 127.0.0.1.

The floor is plain `gunicorn -w 2` (sync workers) serving benchmarks/floor_app.py, which
parses the same JSON body and answers a constant. The service runs as shipped:
`python -m service` with 2 workers, access log, metrics, CORS and request ids on. Servers
are pinned to core 0 and wrk to core 1 where the machine has two cores; the floor and the
service run alternately in the same run, and ratios compare medians.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchmarks.engine_bench import legal_positions
from scripts.servers import SERVICE_COMMAND, start_server
from service.game.engine import Engine

ROOT = Path(__file__).resolve().parent.parent
CONNECTIONS = 64


def search(pattern: str, text: str) -> re.Match[str]:
    """Return the first match of `pattern` in what a tool printed; raise ValueError, quoting
    the output, if none (the tool failed or changed its format)."""
    found = re.search(pattern, text)
    if found is None:
        raise ValueError(f"no {pattern!r} in {text[:500]!r}")
    return found


@dataclass
class Run:
    """One wrk run: throughput and latency percentiles in milliseconds."""

    per_second: float
    p50_ms: float
    p99_ms: float
    errors: int


def cores(pinned: bool = True) -> tuple[list[str], list[str]]:
    """taskset prefixes for the server and the load generator."""
    if pinned and (os.cpu_count() or 1) >= 2 and shutil.which("taskset"):
        return ["taskset", "-c", "0"], ["taskset", "-c", "1"]
    return [], []


@contextmanager
def server(
    command: list[str], env: dict[str, str], ready_path: str, log: Path, *, any_answer: bool = False
) -> Iterator[tuple[str, float, subprocess.Popen[bytes]]]:
    """Start a server; yield its base URL, seconds to ready, and process; stop it after."""
    with log.open("ab") as output:
        running = start_server(
            env,
            command=command,
            stdout=output,
            stderr=output,
            cwd=ROOT,
            ready_path=ready_path,
            any_status=any_answer,
        )
    try:
        yield running.base_url, running.ready_after, running.process
    finally:
        running.process.terminate()
        running.process.wait(timeout=60)


ServerContext = AbstractContextManager[tuple[str, float, "subprocess.Popen[bytes]"]]


def floor_server(workers: int, log: Path) -> ServerContext:
    """Plain gunicorn serving the floor app."""
    pin, _ = cores()
    command = [*pin, sys.executable, "-m", "gunicorn", "-w", str(workers), "-b", "127.0.0.1:{port}",
               "benchmarks.floor_app:app"]  # fmt: skip
    # The floor has no readiness endpoint: any answer (a 405 to GET) means it is up.
    return server(command, {}, "/v1/move", log, any_answer=True)


def service_server(
    workers: int, log: Path, *, pinned: bool = True, env: dict[str, str] | None = None
) -> ServerContext:
    """The service as shipped, with `workers` workers and any extra environment."""
    pin, _ = cores(pinned)
    command = [*pin, *SERVICE_COMMAND]
    return server(command, {"WEB_CONCURRENCY": str(workers), **(env or {})}, "/readyz", log)


def lua_script(
    directory: Path, name: str, method: str, requests: list[tuple[str, str | None]]
) -> Path:
    """A wrk script cycling through (path, body) requests."""
    entries = ",\n".join(
        f"{{{json.dumps(path)}, {'nil' if body is None else json.dumps(body)}}}"
        for path, body in requests
    )
    script = directory / f"{name}.lua"
    script.write_text(
        f'wrk.method = "{method}"\n'
        'wrk.headers["Content-Type"] = "application/json"\n'
        f"local requests = {{\n{entries}\n}}\n"
        "local i = 0\n"
        "request = function()\n"
        "  i = i % #requests + 1\n"
        "  return wrk.format(nil, requests[i][1], nil, requests[i][2])\n"
        "end\n"
    )
    return script


def wrk(
    base: str, script: Path, seconds: float, connections: int = CONNECTIONS, pinned: bool = True
) -> Run:
    _, pin = cores(pinned)
    output = subprocess.run(
        [*pin, "wrk", "-t1", f"-c{connections}", f"-d{seconds:g}s", "--latency",
         "-s", str(script), base],
        capture_output=True, text=True, check=True, timeout=seconds + 60,
    ).stdout  # fmt: skip

    def milliseconds(label: str) -> float:
        value, unit = search(rf"{label}\s+([\d.]+)(us|ms|s)", output).groups()
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    errors = sum(
        int(count) for count in re.findall(r"(?:connect|read|write|timeout) (\d+)", output)
    )
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return Run(
        per_second=float(search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
        p50_ms=milliseconds("50%"),
        p99_ms=milliseconds("99%"),
        errors=errors + (int(non_2xx.group(1)) if non_2xx else 0),
    )


def workload(seed: int = 2026) -> dict[str, list[tuple[str, str | None]]]:
    """Realistic requests: legal positions in every encoding, sampled with a fixed seed."""
    rng = random.Random(seed)
    positions = rng.sample(legal_positions(Engine.build()), 500)
    move: list[tuple[str, str | None]] = []
    query: list[tuple[str, str | None]] = []
    batch_positions = []
    for board, mover in positions:
        text = board.to_text()
        encoded: object = rng.choice([
            text,
            [cell or None for cell in (c if c != "." else "" for c in text)],
            [[c if c != "." else 3 * row + col for col, c in enumerate(text[3 * row : 3 * row + 3])]
             for row in range(3)],
        ])  # fmt: skip
        body = {"board": encoded, "player": mover.value}
        move.append(("/v1/move", json.dumps(body)))
        query.append((f"/v1/move?board={text}&player={mover.value}", None))
        batch_positions.append({"board": text, "player": mover.value})
    loads: dict[str, list[tuple[str, str | None]]] = {"move": move, "get": query}
    loads["analysis"] = [("/v1/analysis", body) for _, body in move]
    for size in (1, 10, 100, 1000):
        bodies: list[tuple[str, str | None]] = []
        for start in range(5):
            chosen = [
                batch_positions[(start * size + k) % len(batch_positions)] for k in range(size)
            ]
            bodies.append(("/v1/moves", json.dumps({"requests": chosen})))
        loads[f"batch{size}"] = bodies
    return loads


def rss_of_workers(master: subprocess.Popen[bytes]) -> list[float]:
    """Resident memory of each worker of a gunicorn master, in MB."""
    children = subprocess.run(
        ["pgrep", "-P", str(master.pid)], capture_output=True, text=True, check=False
    ).stdout.split()
    sizes = []
    for pid in children:
        status = Path(f"/proc/{pid}/status").read_text()
        sizes.append(int(search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024)
    return sizes


def median_run(runs: list[Run]) -> Run:
    """The run with the median throughput (the lower one of an even count)."""
    ordered = sorted(runs, key=lambda run: run.per_second)
    return ordered[(len(ordered) - 1) // 2]


@dataclass
class HttpFigures:
    """Everything the HTTP benchmarks measured."""

    floor: list[Run]
    service: list[Run]
    endpoints: dict[str, Run]
    batches: dict[int, Run]
    workers: dict[int, Run]
    worker_classes: dict[str, Run]
    startup_seconds: list[float]
    worker_rss_mb: list[float]
    seconds: float


def measure(seconds: float = 8, rounds: int = 3) -> HttpFigures:
    """Run every HTTP benchmark."""
    loads = workload()
    with tempfile.TemporaryDirectory(prefix="bestmove-bench-") as scratch:
        directory = Path(scratch)
        log = directory / "servers.log"
        scripts = {
            name: lua_script(directory, name, "GET" if name == "get" else "POST", requests)
            for name, requests in loads.items()
        }
        floor_runs, service_runs, startups, rss = [], [], [], []
        for _ in range(rounds):
            with floor_server(2, log) as (base, _, _process):
                wrk(base, scripts["move"], 2)  # warm-up
                floor_runs.append(wrk(base, scripts["move"], seconds))
            with service_server(2, log) as (base, ready_after, process):
                startups.append(ready_after)
                wrk(base, scripts["move"], 2)
                service_runs.append(wrk(base, scripts["move"], seconds))
                rss = rss_of_workers(process)
        endpoints, batches = {}, {}
        with service_server(2, log) as (base, _, _process):
            for name in ("get", "analysis"):
                wrk(base, scripts[name], 2)
                endpoints[name] = wrk(base, scripts[name], seconds)
            for size in (1, 10, 100, 1000):
                batches[size] = wrk(base, scripts[f"batch{size}"], seconds)
        # Workers scale with cores, so here the server may use both (and shares them with wrk).
        workers = {}
        for count in (1, 2):
            with service_server(count, log, pinned=False) as (base, _, _process):
                wrk(base, scripts["move"], 2, pinned=False)
                workers[count] = wrk(base, scripts["move"], seconds, pinned=False)
        # The shipped worker hands accepting to another thread only while a request
        # searches; gthread, the other accepted class, hands every request to a thread.
        classes = {"handoff, 4 threads": median_run(service_runs)}
        with service_server(2, log, env={"GUNICORN_WORKER_CLASS": "gthread"}) as (base, _, _p):
            wrk(base, scripts["move"], 2)
            classes["gthread, 4 threads"] = wrk(base, scripts["move"], seconds)
    return HttpFigures(
        floor_runs, service_runs, endpoints, batches, workers, classes, startups, rss, seconds
    )


if __name__ == "__main__":
    figures = measure(seconds=float(sys.argv[1]) if len(sys.argv) > 1 else 8)
    print(figures)
    print(
        "throughput ratio",
        statistics.median(r.per_second for r in figures.service)
        / statistics.median(r.per_second for r in figures.floor),
    )

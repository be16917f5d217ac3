"""The image, built and run by a real Docker engine: healthy, serving, and stopped cleanly."""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripts.servers import free_port, request
from tests.helpers import GOMOKU_OPENING, locked_versions, missing_tool

ROOT = Path(__file__).resolve().parent.parent
IMAGE = "bestmove:test"


def docker(*arguments: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["docker", *arguments], capture_output=True, text=True, timeout=timeout, check=False
    )


def engine_reachable() -> bool:
    try:
        return docker("info", timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture(scope="module")
def image() -> str:
    if not engine_reachable():
        missing_tool("a Docker engine", ".ci/run starts one", "set DOCKER_HOST, or start one")
    # No bridge network on these machines: build and run on the host's network.
    built = docker("build", "--network", "host", "--tag", IMAGE, str(ROOT), timeout=900)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return IMAGE


@pytest.fixture
def container(image: str) -> Iterator[tuple[str, int]]:
    name, port = f"bestmove-test-{uuid.uuid4().hex[:8]}", free_port()
    started = docker(
        "run", "--detach", "--name", name, "--network", "host",
        "--read-only", "--tmpfs", "/tmp",
        "--env", f"PORT={port}",
        image,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    try:
        yield name, port
    finally:
        docker("rm", "--force", name)


def state(name: str) -> dict[str, object]:
    inspected = docker("inspect", "--format", "{{json .State}}", name)
    assert inspected.returncode == 0, inspected.stderr
    found: dict[str, object] = json.loads(inspected.stdout)
    return found


def wait_until_healthy(name: str, within: float = 90) -> float:
    """Wait for Docker's own HEALTHCHECK verdict; return how long it took."""
    started = time.monotonic()
    while time.monotonic() - started < within:
        current = state(name)
        health = current.get("Health")
        assert current["Running"], docker("logs", name).stderr
        if isinstance(health, dict) and health.get("Status") == "healthy":
            return time.monotonic() - started
        time.sleep(0.5)  # a poll of Docker's verdict, which it revises at its own interval
    raise AssertionError(f"not healthy within {within} s: {docker('logs', name).stderr}")


def test_the_image_becomes_healthy_serves_and_stops_cleanly(container: tuple[str, int]) -> None:
    """Read-only root filesystem, PORT honoured, HEALTHCHECK healthy, docker stop exits 0.

    The compiled search came from the cache prepared at build time: the server says when it
    has to compile (about 10 s, not ready meanwhile), and it does not say so here."""
    name, port = container
    wait_until_healthy(name)
    status, _, won = request(port, "POST", "/v1/move", b'{"board": "XX.OO...."}')
    assert (status, json.loads(won)["move"]) == (200, 2)
    gomoku = json.dumps({"board": GOMOKU_OPENING}).encode()
    status, _, searched = request(port, "POST", "/v1/move", gomoku)
    assert (status, json.loads(searched)["search"]["method"]) == (200, "heuristic")
    assert "compiled the search" not in docker("logs", name).stderr
    stopping = time.monotonic()
    stopped = docker("stop", "--time", "20", name)
    assert stopped.returncode == 0, stopped.stderr
    assert time.monotonic() - stopping < 5
    final = state(name)
    assert (final["Running"], final["ExitCode"]) == (False, 0)


def test_the_image_runs_as_a_numeric_non_root_user(image: str) -> None:
    inspected = docker("image", "inspect", "--format", "{{json .Config}}", image)
    config = json.loads(inspected.stdout)
    assert config["User"] == "10001:10001"
    assert config["Cmd"] == ["python", "-m", "service"]
    assert config["Healthcheck"]["Test"] == ["CMD", "python", "-m", "service.ops.healthcheck"]
    whoami = docker("run", "--rm", "--network", "host", "--entrypoint", "id", image, "-u")
    assert whoami.stdout.strip() == "10001"


def test_the_app_environment_has_no_installer_and_the_image_no_compiler(image: str) -> None:
    compilers = docker("run", "--rm", "--network", "host", "--entrypoint", "sh", image,
                       "-c", "command -v gcc cc c++ || true")  # fmt: skip
    assert compilers.stdout == ""
    app_tools = docker("run", "--rm", "--network", "host", "--entrypoint", "ls", image,
                       "/opt/venv/bin")  # fmt: skip
    assert not {"pip", "pip3"} & set(app_tools.stdout.split())


def test_the_image_holds_exactly_the_locked_runtime_packages(image: str) -> None:
    """Installed from requirements/runtime.txt: the same versions, and nothing else but us."""
    listing = docker("run", "--rm", "--network", "host", "--entrypoint", "python", image, "-c",
                     "import importlib.metadata as m, json; print(json.dumps("
                     "{d.metadata['Name']: d.version for d in m.distributions()}))")  # fmt: skip
    assert listing.returncode == 0, listing.stderr
    installed = {
        name.lower().replace("_", "-"): version
        for name, version in json.loads(listing.stdout).items()
    }
    assert installed == {**locked_versions("runtime.txt"), "bestmove": "0.1.0"}

"""Fixtures: the tables solved once per session in a directory of its own, the engine on them,
a fresh service and client per test, real servers on the same tables (one a module, or one
a test), and a headless browser."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings
from playwright.sync_api import Browser, sync_playwright

from scripts.servers import RunningServer, start_server
from service.game.engine import Engine
from service.game.store import prepare_tables
from service.ops.composition import create_service
from service.ops.environment import Settings
from tests.helpers import CHROMIUM, CHROMIUM_ARGS, ServerStarter, ServiceFactory, missing_tool

# CI runs the same examples every time; elsewhere Hypothesis explores new ones. Function
# fixtures here are read-only (an app, a client), so reusing them across examples is safe.
settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "dev", deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def tables_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Solve every game once for the whole run, into a directory of the run's own."""
    directory = tmp_path_factory.mktemp("tables")
    prepare_tables(directory, log=io.StringIO())
    return directory


@pytest.fixture(scope="session")
def engine(tables_dir: Path) -> Engine:
    """Return the engine on the session's tables: every game of the family."""
    return Engine(prepare_tables(tables_dir))


@pytest.fixture
def serve(tables_dir: Path) -> Iterator[ServerStarter]:
    """Return `start_server` on the session's tables (no test writes a developer's cache);
    a server the test leaves running, as a failing one may, is stopped after it."""
    started: list[RunningServer] = []

    def starter(*args: Any, **kwargs: Any) -> RunningServer:
        running = start_server(*args, **{"tables_dir": tables_dir, **kwargs})
        started.append(running)
        return running

    yield starter
    for running in started:
        if running.process.poll() is None:
            running.process.terminate()
            try:
                running.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                running.process.kill()
                running.process.wait(timeout=30)


@pytest.fixture(scope="module")
def server(tables_dir: Path) -> Iterator[RunningServer]:
    """Run `python -m service` (two workers, no access log) for a module's tests; it must
    stop cleanly after them."""
    running = start_server({"ACCESS_LOG": "false"}, tables_dir=tables_dir)
    yield running
    assert running.stop() == 0


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Launch headless Chromium for a module's tests."""
    if not (shutil.which(CHROMIUM) or Path(CHROMIUM).exists()):
        missing_tool(f"Chromium at {CHROMIUM}", ".ci/run installs it", "apt-get install chromium")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def make_service(engine: Engine) -> ServiceFactory:
    """Return a factory of services around the shared engine: settings come in as arguments."""

    def make(settings: Settings | None = None, *, engine: Engine = engine) -> Flask:
        return create_service(settings if settings is not None else Settings(), engine=engine)

    return make


@pytest.fixture
def app(make_service: ServiceFactory) -> Flask:
    """Create the whole service, as shipped, around the shared engine."""
    return make_service()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """Return a test client of the app."""
    return app.test_client()

"""Fixtures: the tables solved once per session in a directory of its own, the engine on them,
a fresh service and client per test, and real servers on the same tables."""

from __future__ import annotations

import functools
import io
import os
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings

from service.game.engine import Engine
from service.game.store import prepare_tables
from service.ops.composition import create_service
from service.ops.environment import Settings
from tests.helpers import ServerStarter, ServiceFactory
from tests.servers import start_server

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


@pytest.fixture(scope="session")
def serve(tables_dir: Path) -> ServerStarter:
    """Return `start_server` on the session's tables: no test writes a developer's cache."""
    return functools.partial(start_server, tables_dir=tables_dir)


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

"""Fixtures: one solved engine per session, a fresh service and client per test."""

from __future__ import annotations

import os

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings

from service.game.engine import Engine
from service.ops.settings import Settings
from service.ops.wsgi import create_service
from tests.helpers import ServiceFactory

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
def engine() -> Engine:
    """Solve every position once for the whole run."""
    return Engine.on_demand()


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

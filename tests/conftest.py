"""Fixtures: one solved engine per session, a fresh app and client per test."""

from __future__ import annotations

import os

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings

from service import create_app
from service.engine import Engine

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
    return Engine.build()


@pytest.fixture
def app(engine: Engine) -> Flask:
    """Create an app in testing mode around the shared engine."""
    return create_app({"TESTING": True}, engine=engine)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """Return a test client of the app."""
    return app.test_client()

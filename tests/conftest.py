"""Fixtures: one solved engine per session, a fresh app and client per test."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import create_app
from service.engine import Engine


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

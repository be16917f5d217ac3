"""The service as the production server runs it: the API inside the process's observing layer."""

from __future__ import annotations

import os

from flask import Flask

from service.api.app import create_app
from service.game.engine import Engine
from service.ops.metrics import Metrics
from service.ops.observability import AccessLog, observe
from service.ops.settings import Settings


def create_service(settings: Settings | None = None, *, engine: Engine | None = None) -> Flask:
    """Create the whole service: the API, request ids, the access log and metrics.

    Without `settings`, they are read from the environment; `engine` skips the solve.
    """
    settings = settings if settings is not None else Settings.from_environ(os.environ)
    metrics = Metrics(settings.metrics_dir)
    app = create_app(settings.app, engine=engine, on_answer=metrics.count_move)
    observe(app, metrics, AccessLog() if settings.access_log else None)
    return app

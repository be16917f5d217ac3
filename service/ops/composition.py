"""The service as the production server runs it: the API inside the process's observing layer."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from flask import Flask

from service.api.app import create_app
from service.game.engine import Engine
from service.game.rules import FAMILY
from service.game.store import prepare_tables
from service.game.warmup import prepare
from service.ops.environment import Settings
from service.ops.file_slots import FileSlots
from service.ops.metrics import Metrics
from service.ops.observability import AccessLog, observe


def create_service(settings: Settings | None = None, *, engine: Engine | None = None) -> Flask:
    """Create the whole service: the API, request ids, the access log and metrics.

    Without `settings`, the defaults (`python -m service` reads them from the environment,
    once). Without `engine`, every game's table is opened from the settings' directory,
    those missing solved first, once whatever the processes (or, with no directory, every
    game is solved in memory here). Either way every game is solved before the app exists,
    never inside a request; and the compiled search is loaded from its cache, or compiled,
    likewise. With the settings' `search_slots_dir`, searches take slots shared with every
    process using that directory.
    """
    settings = settings if settings is not None else Settings()
    if engine is None:
        engine = (
            Engine(prepare_tables(settings.tables_dir))
            if settings.tables_dir is not None
            else Engine.build(FAMILY)
        )
    _prepare_search()
    metrics = Metrics(settings.metrics_dir)
    slots = (
        FileSlots(settings.search_slots_dir, settings.app.search_slots)
        if settings.search_slots_dir is not None
        else None
    )
    app = create_app(
        settings.app,
        engine=engine,
        on_answer=metrics.count_move,
        on_search=metrics,
        search_slots=slots,
    )
    observe(app, metrics, AccessLog() if settings.access_log else None)
    return app


def _prepare_search(log: TextIO = sys.stderr) -> None:
    """Load the compiled search before any request needs it; say so if it had to compile."""
    started = time.perf_counter()
    compiled = prepare()
    if compiled:
        log.write(
            f"bestmove: compiled the search in {time.perf_counter() - started:.1f} s "
            f"({compiled} functions; no prepared cache had them)\n"
        )
        log.flush()

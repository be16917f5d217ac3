"""`python -m service`: run the production server."""

from __future__ import annotations

import dataclasses
import functools
import os
import sys

from service.game.store import prepare_tables
from service.ops.directories import WorkingDirectory
from service.ops.jit_cache import prepare_jit_cache
from service.ops.settings import Settings, SettingsError


def main() -> None:
    """Serve the app with gunicorn, configured from the environment."""
    # First: numba picks its cache when the search is imported, which the server's module
    # does (its workers' hooks know the app's extensions).
    jit_cache = prepare_jit_cache(os.environ)
    from service.ops.server import (  # noqa: PLC0415
        ProductionServer,
        gunicorn_settings,
        prepare_metrics_dir,
    )

    try:
        # Fail before gunicorn starts, with one line rather than a traceback per worker.
        settings = Settings.from_environ(os.environ)
        server_settings = gunicorn_settings(os.environ)
    except SettingsError as error:
        sys.exit(f"bestmove: {error}")
    metrics_dir = prepare_metrics_dir(os.environ)
    if settings.tables_dir is not None:
        # Here, in the master, before any worker starts: each game is solved once, whether
        # or not the workers are forked from a preloaded app.
        prepare_tables(settings.tables_dir)
    # Imported only now: the metrics library chooses its storage on import, from the
    # variable prepare_metrics_dir has just set.
    from service.ops.composition import create_service  # noqa: PLC0415

    slots_dir = WorkingDirectory.make_temporary("search-slots")
    settings = dataclasses.replace(
        settings, metrics_dir=metrics_dir.path, search_slots_dir=slots_dir.path
    )

    def on_exit(_server: object) -> None:
        metrics_dir.remove_if_temporary()
        slots_dir.remove_if_temporary()
        if jit_cache is not None:
            jit_cache.remove_if_temporary()

    # gunicorn calls it in the master as the server stops, after the workers have exited.
    server_settings["on_exit"] = on_exit
    ProductionServer(functools.partial(create_service, settings), server_settings).run()


if __name__ == "__main__":
    main()

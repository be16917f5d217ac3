"""`python -m service`: run the production server."""

from __future__ import annotations

import functools
import sys

from service.ops.allocator import limit_arenas
from service.ops.directories import WorkingDirectory
from service.ops.environment import (
    JIT_CACHE_VARIABLE,
    METRICS_DIR_VARIABLE,
    Environment,
    SettingsError,
    hand_over,
)
from service.ops.jit_cache import prepare_jit_cache


def main() -> None:
    """Serve the app with gunicorn, configured from the environment."""
    try:
        # Before anything starts: one line rather than a traceback per worker.
        environment = Environment.of_process()
    except SettingsError as error:
        sys.exit(f"bestmove: {error}")
    # Before any thread or worker exists, NumPy's included (its BLAS starts threads on
    # import, each with an arena of its own): only then do all of them share the few.
    limit_arenas(environment.malloc_arena_max)
    from service.game.store import prepare_tables  # noqa: PLC0415

    # numba picks its cache when the search is imported, which the server's module does
    # (its workers' hooks know the app's extensions).
    jit_cache = prepare_jit_cache(environment.numba_cache_dir)
    if jit_cache is not None:
        hand_over(JIT_CACHE_VARIABLE, jit_cache.path)
    from service.ops.server import (  # noqa: PLC0415
        ProductionServer,
        gunicorn_settings,
        prepare_metrics_dir,
    )

    # The metrics library chooses its storage when it is imported, with the service.
    metrics_dir = prepare_metrics_dir(environment.prometheus_multiproc_dir)
    hand_over(METRICS_DIR_VARIABLE, metrics_dir.path)
    slots_dir = WorkingDirectory.make_temporary("search-slots")
    settings = environment.settings(metrics_dir=metrics_dir.path, search_slots_dir=slots_dir.path)
    if settings.tables_dir is not None:
        # Here, in the master, before any worker starts: each game is solved once, whether
        # or not the workers are forked from a preloaded app.
        prepare_tables(settings.tables_dir)
    from service.ops.composition import create_service  # noqa: PLC0415

    def on_exit(_server: object) -> None:
        metrics_dir.remove_if_temporary()
        slots_dir.remove_if_temporary()
        if jit_cache is not None:
            jit_cache.remove_if_temporary()

    server_settings = gunicorn_settings(environment)
    # gunicorn calls it in the master as the server stops, after the workers have exited.
    server_settings["on_exit"] = on_exit
    ProductionServer(functools.partial(create_service, settings), server_settings).run()


if __name__ == "__main__":
    main()

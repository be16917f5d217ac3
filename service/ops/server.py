"""The production server: gunicorn, configured from the environment."""

from __future__ import annotations

import signal
from collections.abc import Callable, Mapping, MutableMapping
from pathlib import Path
from types import FrameType
from typing import Any

from gunicorn.app.base import BaseApplication

from service.api.services import EXTENSION_KEY
from service.ops import gunicorn_errors
from service.ops.directories import WorkingDirectory
from service.ops.settings import (
    DEFAULT_PORT,
    METRICS_DIR_VARIABLE,
    boolean,
    choice,
    whole_number,
)

#: gevent needs the optional extra: pip install 'bestmove[gevent]'.
WORKER_CLASSES = frozenset({"sync", "gthread", "gevent"})


def gunicorn_settings(environ: Mapping[str, str]) -> dict[str, Any]:
    """Return gunicorn's settings for the production server, read from the environment."""
    host = environ.get("HOST", "").strip() or "0.0.0.0"
    port = whole_number(environ, "PORT", DEFAULT_PORT, maximum=65535)
    return {
        "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        # gunicorn's own convention for the worker count.
        "workers": whole_number(environ, "WEB_CONCURRENCY", 2),
        # Threads, so that a worker busy with a search still answers probes and tables.
        "worker_class": choice(environ, "GUNICORN_WORKER_CLASS", "gthread", WORKER_CLASSES),
        "threads": whole_number(environ, "GUNICORN_THREADS", 4),
        "timeout": whole_number(environ, "GUNICORN_TIMEOUT", 30),
        "graceful_timeout": whole_number(environ, "GUNICORN_GRACEFUL_TIMEOUT", 20),
        # No keep-alive by default: a gthread worker keeps a kept-alive connection for good,
        # so a burst of clients can pile onto one worker (one core, one interpreter lock)
        # and stay there, and a killed worker takes all of them with it. A connection per
        # request spreads the load over the workers on every request, as sync workers did.
        "keepalive": whole_number(environ, "GUNICORN_KEEPALIVE", 0, minimum=0),
        # Recycle workers now and then, spread out so that they never all restart at once.
        "max_requests": whole_number(environ, "GUNICORN_MAX_REQUESTS", 100_000, minimum=0),
        "max_requests_jitter": whole_number(
            environ, "GUNICORN_MAX_REQUESTS_JITTER", 10_000, minimum=0
        ),
        # Build the solver's table once, in the master, before the workers fork.
        "preload_app": boolean(environ, "GUNICORN_PRELOAD", default=True),
        "loglevel": choice(
            environ, "LOG_LEVEL", "info", {"debug", "info", "warning", "error", "critical"}
        ),
        "proc_name": "bestmove",
        # No runtime management socket: nothing uses it, and it would be written under $HOME.
        "control_socket_disable": True,
        "post_worker_init": drain_on_sigterm,
    }


def prepare_metrics_dir(environ: MutableMapping[str, str]) -> WorkingDirectory:
    """Give the worker processes an empty directory to share metrics through.

    Must run before the app is imported: prometheus_client reads the variable on import.
    An operator's directory is emptied of a previous run's files; without one, a fresh
    directory is made under the temporary directory (writable in a read-only image).
    """
    given = environ.get(METRICS_DIR_VARIABLE, "").strip()
    if given:
        directory = WorkingDirectory(Path(given), temporary=False)
        directory.path.mkdir(parents=True, exist_ok=True)
        for stale in directory.path.glob("*.db"):
            stale.unlink()
    else:
        directory = WorkingDirectory.make_temporary("metrics")
    environ[METRICS_DIR_VARIABLE] = str(directory.path)
    return directory


def drain_on_sigterm(worker: Any) -> None:
    """Make the worker's readiness fail as soon as it is told to stop (gunicorn hook)."""
    lifecycle = worker.wsgi.extensions[EXTENSION_KEY].lifecycle
    stop_worker = signal.getsignal(signal.SIGTERM)

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        lifecycle.start_draining()
        if callable(stop_worker):
            stop_worker(signum, frame)

    signal.signal(signal.SIGTERM, on_sigterm)


class ProductionServer(BaseApplication):  # type: ignore[misc]  # gunicorn is untyped
    """gunicorn serving the app, with settings given in code rather than on a command line."""

    def __init__(self, app_factory: Callable[[], Any], settings: Mapping[str, Any]) -> None:
        self._app_factory = app_factory
        self._settings = settings
        super().__init__()

    def load_config(self) -> None:
        """Apply the settings to gunicorn, and its own error answers to the one envelope."""
        for name, value in self._settings.items():
            self.cfg.set(name, value)
        gunicorn_errors.install()

    def load(self) -> Any:
        """Create the WSGI app."""
        return self._app_factory()

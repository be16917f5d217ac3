"""The production server: gunicorn, configured from the environment."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gunicorn.app.base import BaseApplication

from service.settings import positive_int

DEFAULT_PORT = 8000
DEFAULT_WORKERS = 2


def gunicorn_settings(environ: Mapping[str, str]) -> dict[str, Any]:
    """Return gunicorn's settings for the production server, read from the environment."""
    host = environ.get("HOST", "0.0.0.0").strip() or "0.0.0.0"
    port = positive_int(environ, "PORT", DEFAULT_PORT, maximum=65535)
    return {
        "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        # gunicorn's own convention for the worker count.
        "workers": positive_int(environ, "WEB_CONCURRENCY", DEFAULT_WORKERS),
        # Build the solver's table once, in the master, before the workers fork.
        "preload_app": True,
        "proc_name": "bestmove",
        # No runtime management socket: nothing uses it, and it would be written under $HOME.
        "control_socket_disable": True,
    }


class ProductionServer(BaseApplication):  # type: ignore[misc]  # gunicorn is untyped
    """gunicorn serving the app, with settings given in code rather than on a command line."""

    def __init__(self, app_factory: Callable[[], Any], settings: Mapping[str, Any]) -> None:
        self._app_factory = app_factory
        self._settings = settings
        super().__init__()

    def load_config(self) -> None:
        """Apply the settings to gunicorn."""
        for name, value in self._settings.items():
            self.cfg.set(name, value)

    def load(self) -> Any:
        """Create the WSGI app."""
        return self._app_factory()

"""The production server: gunicorn, configured from the environment."""

from __future__ import annotations

import gc
import os
import queue
import signal
from collections.abc import Callable, Mapping
from pathlib import Path
from types import FrameType
from typing import Any

from gunicorn.app.base import BaseApplication

from service.api.services import EXTENSION_KEY
from service.ops import gunicorn_errors
from service.ops.directories import WorkingDirectory
from service.ops.environment import Environment

#: The signals that stop a worker: gracefully (SIGTERM) or at once.
STOP_SIGNALS = frozenset({signal.SIGTERM, signal.SIGINT, signal.SIGQUIT})

#: gunicorn's worker class for each GUNICORN_WORKER_CLASS.
WORKER_CLASSES = {"handoff": "service.ops.worker.HandoffWorker", "gthread": "gthread"}


def gunicorn_settings(environment: Environment) -> dict[str, Any]:
    """Return gunicorn's settings for the production server, from the process's environment."""
    host, port = environment.host, environment.port
    return {
        "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        "workers": environment.web_concurrency,
        # Either kind keeps a worker busy with a search answering probes and tables.
        "worker_class": WORKER_CLASSES[environment.gunicorn_worker_class],
        "threads": environment.gunicorn_threads,
        "timeout": environment.gunicorn_timeout,
        "graceful_timeout": environment.gunicorn_graceful_timeout,
        # No keep-alive by default: a gthread worker keeps a kept-alive connection for good,
        # so a burst of clients can pile onto one worker (one core, one interpreter lock)
        # and stay there, and a killed worker takes all of them with it. A connection per
        # request spreads the load over the workers on every request, as sync workers did.
        "keepalive": environment.gunicorn_keepalive,
        # Recycle workers now and then, spread out so that they never all restart at once.
        "max_requests": environment.gunicorn_max_requests,
        "max_requests_jitter": environment.gunicorn_max_requests_jitter,
        # Build the solver's table once, in the master, before the workers fork.
        "preload_app": environment.gunicorn_preload,
        "loglevel": environment.log_level,
        "proc_name": "bestmove",
        # No runtime management socket: nothing uses it, and it would be written under $HOME.
        "control_socket_disable": True,
        "post_fork": hold_stop_signals,
        "post_worker_init": drain_on_sigterm,
        "pre_fork": freeze_before_fork,
    }


def prepare_metrics_dir(given: Path | None) -> WorkingDirectory:
    """Give the worker processes an empty directory to share metrics through.

    An operator's directory is emptied of a previous run's files; without one, a fresh
    directory is made under the temporary directory (writable in a read-only image).
    prometheus_client must be handed it before it is imported (`environment.hand_over`).
    """
    if given is None:
        return WorkingDirectory.make_temporary("metrics")
    directory = WorkingDirectory(given, temporary=False)
    directory.path.mkdir(parents=True, exist_ok=True)
    for stale in directory.path.glob("*.db"):
        stale.unlink()
    return directory


def freeze_before_fork(server: Any, worker: Any) -> None:
    """Keep everything the master made before forking (the app, the tables' index) out of
    the garbage collector's sight in the workers (gunicorn hook).

    A collection touches every object it tracks, which copies the pages a worker shares with
    the master, and a full one walks them all; what the master made lives for good anyway.
    Python's documentation advises this for servers that fork.
    """
    gc.freeze()


def hold_stop_signals(server: Any, worker: Any) -> None:
    """Keep the signals that stop a worker from a new worker until it has set its own
    handlers (gunicorn hook, in the worker just forked).

    Until then a signal runs the master's handler, which puts it on the worker's copy of the
    master's queue, which no one reads: a worker told to stop as it boots (SIGTERM just
    after a start, as a rollout may send it) would serve on, and hold the server's exit until
    the master kills it when the grace runs out. From here a stop signal waits, blocked; one
    already on the queue is sent again. So is one the master had queued and not yet acted on
    at the fork: the master, stopping, tells this worker to stop too. The worker lets them
    through as soon as its `init_signals` has set its handlers, before it loads the app.
    """
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    while True:
        try:
            queued = server.SIG_QUEUE.get_nowait()
        except queue.Empty:
            break
        if queued in STOP_SIGNALS:
            os.kill(os.getpid(), queued)
    set_handlers = worker.init_signals

    def set_handlers_then_let_through() -> None:
        set_handlers()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)

    worker.init_signals = set_handlers_then_let_through


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

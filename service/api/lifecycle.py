"""Where this process is in its life: serving, or draining before it exits."""

from __future__ import annotations

import threading


class Lifecycle:
    """Whether the process has been asked to stop and is finishing its requests in flight."""

    def __init__(self) -> None:
        self._draining = threading.Event()

    def start_draining(self) -> None:
        """Note that the process is shutting down; readiness fails from now on."""
        self._draining.set()

    @property
    def draining(self) -> bool:
        """Return whether the process is shutting down."""
        return self._draining.is_set()

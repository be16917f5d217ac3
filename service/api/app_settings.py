"""The app's own settings: what the HTTP app lets an operator tune, given to `create_app`."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

#: The documented upper bound on a request body: far above any real request, far below harm.
DEFAULT_MAX_BODY_BYTES = 1024 * 1024

#: The default bound on one process's cache of answers that never change.
DEFAULT_ANSWER_CACHE_BYTES = 32 * 1024 * 1024

#: How long a search takes when a request does not say (budget_ms), and the most it may ask.
DEFAULT_BUDGET_MS = 250
DEFAULT_MAX_BUDGET_MS = 5000


def cores() -> int:
    """Return how many cores this process may run on: the default number of search slots."""
    # Only Linux knows the cores a process is pinned to; elsewhere (macOS) it may use them all.
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


@dataclass(frozen=True, slots=True)
class AppSettings:
    """The app's own settings; the defaults are what the service ships with."""

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    cors_origins: tuple[str, ...] = ("*",)
    #: What one process's cache of perfect answers and analyses may hold, in bytes (0: none).
    answer_cache_bytes: int = DEFAULT_ANSWER_CACHE_BYTES
    #: A search's budget when a request names none, and the most a request may name.
    default_budget_ms: int = DEFAULT_BUDGET_MS
    max_budget_ms: int = DEFAULT_MAX_BUDGET_MS
    #: How many searches may run at once (in this process, unless the server shares slots).
    search_slots: int = field(default_factory=cores)
    #: The most threads one search may use; it uses only the slots free when it starts.
    search_threads: int = field(default_factory=cores)

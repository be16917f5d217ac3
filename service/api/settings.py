"""What the HTTP app lets an operator tune; read from the environment by the process (ops)."""

from __future__ import annotations

from dataclasses import dataclass

#: The documented upper bound on a request body: far above any real request, far below harm.
DEFAULT_MAX_BODY_BYTES = 1024 * 1024

#: The default bound on one process's cache of answers that never change.
DEFAULT_ANSWER_CACHE_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class AppSettings:
    """The app's own settings; the defaults are what the service ships with."""

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    cors_origins: tuple[str, ...] = ("*",)
    #: What one process's cache of perfect answers and analyses may hold, in bytes (0: none).
    answer_cache_bytes: int = DEFAULT_ANSWER_CACHE_BYTES

"""Telling the server that a request will take long, so that it goes on answering the others.

The production server's worker answers each request in the thread that accepted it, as a
sync worker does: the cheapest way to answer a table. A request about to search, or to
answer a batch, calls `step_aside()`, and the worker gives the accepting of connections to
another of its threads while this one finishes; under any other server it does nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import has_request_context, request

#: The WSGI environ key under which a server offers its step-aside hook (a callable).
STEP_ASIDE = "bestmove.step_aside"


def step_aside() -> None:
    """Tell the server this request will take long; a server that can hands its accepting
    of connections to another thread meanwhile."""
    if not has_request_context():
        return
    hook: Callable[[], None] | None = request.environ.get(STEP_ASIDE)
    if hook is not None:
        hook()

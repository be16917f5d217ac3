"""The one adapter to gunicorn's inside: the errors it answers itself, in the service's envelope.

gunicorn answers a request it cannot parse (a bad request line or header, a URI or header
too large) itself, before the app sees it, with an HTML page; it has no setting for that
page. Its workers write it through one function, `gunicorn.util.write_error`, which this
module replaces. gunicorn calls it inside a `try` that logs failures only at debug level,
so a changed signature would fail silently: `install` refuses to start unless the function
is the one this was written for (pyproject.toml pins the tested gunicorn range too).
"""

from __future__ import annotations

import inspect
from typing import Any

from gunicorn import util as gunicorn_util

from service.api.app import EVERY_ANSWER
from service.api.problems import PROBLEM_HEADERS, PROBLEM_MEDIA_TYPE, Problem, http_code

#: The signature of gunicorn.util.write_error this adapter was written and tested for.
REPLACED_SIGNATURE = "(sock, status_int, reason, mesg)"


class UnsupportedGunicorn(RuntimeError):
    """Raised when gunicorn's error writer is not the one the adapter replaces."""


def write_problem(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """Answer a request gunicorn itself refused with problem details instead of HTML."""
    detail = mesg or "the server failed to answer; the failure has been logged"
    body = Problem(status_int, http_code(status_int), detail).to_json()
    headers = {
        "Connection": "close",
        "Content-Type": PROBLEM_MEDIA_TYPE,
        "Content-Length": str(len(body)),
        **EVERY_ANSWER,
        **PROBLEM_HEADERS,
    }
    head = f"HTTP/1.1 {status_int} {reason}\r\n" + "".join(
        f"{name}: {value}\r\n" for name, value in headers.items()
    )
    gunicorn_util.write_nonblock(sock, head.encode("latin-1") + b"\r\n" + body)


def install() -> None:
    """Make gunicorn write its own error answers as problems; raise if it changed underneath."""
    current = gunicorn_util.write_error
    if current is write_problem:
        return
    signature = str(inspect.signature(current))
    if signature != REPLACED_SIGNATURE:
        raise UnsupportedGunicorn(
            f"gunicorn.util.write_error{signature} is not the write_error{REPLACED_SIGNATURE} "
            "that service.ops.gunicorn_errors replaces: check the adapter against this gunicorn"
        )
    # The workers look the function up on the module at each call, and inherit it on fork.
    gunicorn_util.write_error = write_problem

"""Request ids, the JSON access log and request metrics, in one WSGI layer around the app.

One thin layer around the whole app, so it also sees 404s, 405s and 500s, and kept cheap
because every request pays for it: no per-request system randomness, no logging machinery,
one write per access line.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from flask import Flask, Response

from service.ops.metrics import EXPOSITION_MEDIA_TYPE, Metrics

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

REQUEST_ID_HEADER = "X-Request-ID"

#: An incoming id is kept if it is this plain; anything else could forge or break log lines.
ACCEPTABLE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")


class RequestIds:
    """Request ids unique across processes: a random prefix per process, then a counter."""

    def __init__(self) -> None:
        self._pid = -1
        self._prefix = ""
        self._counter = itertools.count(1)

    def new(self) -> str:
        """Return a fresh id."""
        pid = os.getpid()
        if pid != self._pid:
            # A forked worker must not repeat its parent's ids: a new prefix per process.
            self._pid, self._prefix, self._counter = pid, os.urandom(8).hex(), itertools.count(1)
        return f"{self._prefix}-{next(self._counter):x}"

    def for_request(self, incoming: str | None) -> str:
        """Return the caller's id if it is acceptable, else a fresh one."""
        if incoming and ACCEPTABLE_REQUEST_ID.fullmatch(incoming):
            return incoming
        return self.new()


class AccessLog:
    """One JSON line per request, written to a file descriptor (stdout by default).

    A single write of a line shorter than the pipe buffer is atomic, so the lines of
    several worker processes sharing stdout never interleave.
    """

    def __init__(self, fd: int = 1) -> None:
        self._fd = fd
        # The formatted date and time of the current second, made once a second rather than
        # once a line; one tuple, so that threads never read a second with another's text.
        self._second: tuple[int, str] = (-1, "")

    def timestamp(self) -> str:
        """Return the current UTC time, ISO 8601 to the millisecond."""
        now = time.time()
        second = int(now)
        cached_second, text = self._second
        if second != cached_second:
            text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._second = (second, text)
        return f"{text}.{int((now - second) * 1000):03d}+00:00"

    def write(self, request_id: str, method: str, path: str, status: int, seconds: float) -> None:
        """Log one answered request."""
        # The request id is already plain (RequestIds); the method and the path are quoted
        # as they are when nothing in them needs escaping, which is nearly always.
        line = (
            f'{{"time":"{self.timestamp()}",'
            f'"request_id":"{request_id}","method":{_json_string(method)},'
            f'"path":{_json_string(path)},"status":{status},"duration_ms":{seconds * 1000:.3f}}}\n'
        )
        # A closed stdout must not fail the request the line describes.
        with contextlib.suppress(OSError):
            os.write(self._fd, line.encode())


#: The methods a metric label names as sent; any other (servers accept invented ones) is
#: counted as "other", so that no client can grow the number of series.
STANDARD_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"})
OTHER_METHOD = "other"


def method_label(method: str) -> str:
    """Return a request method as a metric label: a standard method, or "other"."""
    return method if method in STANDARD_METHODS else OTHER_METHOD


PLAIN_TEXT = re.compile(r"[ !#-\[\]-~]*")


def _json_string(text: str) -> str:
    return f'"{text}"' if PLAIN_TEXT.fullmatch(text) else json.dumps(text)


def endpoint_labels(app: Flask) -> Callable[[str], str]:
    """Return a function naming a path's route pattern, so metric labels stay a bounded set."""
    exact: set[str] = set()
    prefixed: list[tuple[str, str]] = []
    for rule in app.url_map.iter_rules():
        if "<" in rule.rule:
            prefixed.append((rule.rule.split("<", 1)[0], rule.rule))
        else:
            exact.add(rule.rule)

    def label(path: str) -> str:
        if path in exact:
            return path
        for prefix, rule in prefixed:
            if path.startswith(prefix):
                return rule
        return "unmatched"

    return label


class Observed:
    """The WSGI layer: id, time, count and log every request."""

    def __init__(
        self,
        app: WSGIApplication,
        metrics: Metrics,
        log: AccessLog | None,
        label: Callable[[str], str],
    ) -> None:
        self._app, self._metrics, self._log, self._label = app, metrics, log, label
        self._ids = RequestIds()

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        """Serve one request through the app."""
        started = time.perf_counter()
        request_id = self._ids.for_request(environ.get("HTTP_X_REQUEST_ID"))
        statuses: list[int] = []

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            statuses.append(int(status[:3]))
            headers.append((REQUEST_ID_HEADER, request_id))
            return start_response(status, headers, exc_info)

        answer = self._app(environ, start)
        seconds = time.perf_counter() - started
        method, path = environ.get("REQUEST_METHOD", ""), environ.get("PATH_INFO", "")
        status = statuses[-1] if statuses else 500
        self._metrics.observe_request(self._label(path), method_label(method), status, seconds)
        if self._log is not None:
            self._log.write(request_id, method, path, status, seconds)
        return answer


def observe(app: Flask, metrics: Metrics, log: AccessLog | None) -> None:
    """Serve the metrics at /metrics, and wrap the app in the observing layer."""

    def exposition() -> Response:
        """Expose the metrics of every worker in Prometheus text format."""
        return Response(metrics.exposition(), content_type=EXPOSITION_MEDIA_TYPE)

    app.add_url_rule("/metrics", "metrics", exposition, methods=["GET"])
    # Flask's documented way to add WSGI middleware; last, so that the layer knows every
    # route for its metric labels.
    app.wsgi_app = Observed(  # type: ignore[method-assign]  # mypy forbids it; Flask asks for it
        app.wsgi_app, metrics, log, endpoint_labels(app)
    )

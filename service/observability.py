"""Request ids, the JSON access log and request metrics, around every request."""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import uuid
from datetime import UTC, datetime

from flask import Flask, Response, g, request

from service.metrics import Metrics

REQUEST_ID_HEADER = "X-Request-ID"
ACCESS_LOGGER = "bestmove.access"

#: An incoming id is kept if it is this plain; anything else could forge or break log lines.
ACCEPTABLE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")


def request_id_for(incoming: str | None) -> str:
    """Return the caller's request id if it is acceptable, else a new random one."""
    if incoming and ACCEPTABLE_REQUEST_ID.fullmatch(incoming):
        return incoming
    return uuid.uuid4().hex


class JsonLinesFormatter(logging.Formatter):
    """Format a record's `fields` as one JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        """Return the record's fields as compact JSON."""
        return json.dumps(getattr(record, "fields", {"message": record.getMessage()}))


def access_logger() -> logging.Logger:
    """Return the access logger, writing JSON lines to stdout."""
    logger = logging.getLogger(ACCESS_LOGGER)
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(JsonLinesFormatter())
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        # The lines are for stdout only, not for whatever the root logger does.
        logger.propagate = False
    return logger


def install(app: Flask, metrics: Metrics, *, log_access: bool) -> None:
    """Give every request an id, count and time it, and log it as a JSON line."""
    logger = access_logger() if log_access else None

    @app.before_request
    def start() -> None:
        g.started = time.perf_counter()
        g.request_id = request_id_for(request.headers.get(REQUEST_ID_HEADER))

    @app.after_request
    def finish(response: Response) -> Response:
        duration = time.perf_counter() - g.get("started", time.perf_counter())
        request_id = g.get("request_id") or request_id_for(None)
        response.headers[REQUEST_ID_HEADER] = request_id
        # The route's pattern, never the raw path, so that metrics keep a bounded set of labels.
        endpoint = request.url_rule.rule if request.url_rule is not None else "unmatched"
        metrics.observe_request(endpoint, request.method, response.status_code, duration)
        if logger is not None:
            fields = {
                "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
                "request_id": request_id,
                "method": request.method,
                "path": request.path,
                "status": response.status_code,
                "duration_ms": round(duration * 1000, 3),
            }
            logger.info("access", extra={"fields": fields})
        return response

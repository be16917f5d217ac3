"""One error envelope for every failure: RFC 9457 problem details as application/problem+json."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any

from flask import Blueprint, Response, current_app, request
from pydantic import ValidationError
from werkzeug.exceptions import HTTPException, MethodNotAllowed, RequestEntityTooLarge

from service.legality import IllegalPosition

PROBLEM_MEDIA_TYPE = "application/problem+json"

#: Stable codes for the failures the HTTP layer itself answers.
HTTP_CODES = {
    400: "malformed_json",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    417: "expectation_failed",
    431: "headers_too_large",
    500: "internal_error",
    501: "not_implemented",
    503: "not_ready",
}
#: For a request gunicorn cannot even parse as HTTP: a bad request line or header.
MALFORMED_REQUEST = "malformed_request"

#: RFC 9110 renamed these; older Pythons still carry the RFC 7231 phrases.
RFC_9110_TITLES = {413: "Content Too Large", 414: "URI Too Long", 422: "Unprocessable Content"}

#: On every problem: a failure says nothing lasting about the resource, so no cache may keep it.
PROBLEM_HEADERS = {"Cache-Control": "no-store"}

#: How much of an oversized body is read and thrown away, so the client gets to read the 413.
DISCARD_LIMIT = 8 * 1024 * 1024

errors = Blueprint("errors", __name__)


class Problem(Exception):
    """An HTTP failure to answer as problem details."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        errors: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.errors = errors

    def as_dict(self) -> dict[str, Any]:
        """Return the problem details as a JSON-ready object."""
        body: dict[str, Any] = {
            "type": "about:blank",
            "title": RFC_9110_TITLES.get(self.status, HTTPStatus(self.status).phrase),
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        if self.errors is not None:
            body["errors"] = list(self.errors)
        return body

    def to_json(self) -> bytes:
        """Return the problem details as compact JSON."""
        return json.dumps(self.as_dict(), separators=(",", ":")).encode()


def problem_response(problem: Problem, headers: Mapping[str, str] | None = None) -> Response:
    """Render a problem as an application/problem+json response that nobody caches."""
    response = Response(problem.to_json(), status=problem.status, mimetype=PROBLEM_MEDIA_TYPE)
    response.headers.update(PROBLEM_HEADERS)
    response.headers.update(headers or {})
    return response


def invalid_request(error: ValidationError) -> Problem:
    """Return the problem for a request that does not fit the schema: every reason, located."""
    reasons = [
        {"loc": list(reason["loc"]), "msg": _message(reason)}
        for reason in error.errors(include_url=False, include_context=False, include_input=False)
    ]
    detail = "; ".join(f"{_where(reason['loc'])}{reason['msg']}" for reason in reasons)
    return Problem(422, "invalid_request", detail, errors=reasons)


def illegal_position(error: IllegalPosition) -> Problem:
    """Return the problem for a board no game reaches, or a player who is not to move."""
    field = "player" if error.about_player else "board"
    reasons = [{"loc": [field], "msg": error.detail}]
    return Problem(422, error.reason.code, error.detail, errors=reasons)


@errors.app_errorhandler(Problem)
def handle_problem(problem: Problem) -> Response:
    """Answer a problem raised by a view."""
    return problem_response(problem)


@errors.app_errorhandler(ValidationError)
def handle_invalid_request(error: ValidationError) -> Response:
    """Answer a request that does not fit the schema."""
    return problem_response(invalid_request(error))


@errors.app_errorhandler(IllegalPosition)
def handle_illegal_position(error: IllegalPosition) -> Response:
    """Answer a board no game can reach, or a player who is not to move, with the rule broken."""
    return problem_response(illegal_position(error))


@errors.app_errorhandler(HTTPException)
def handle_http_exception(error: HTTPException) -> Response:
    """Answer routing and protocol failures (404, 405, 413, ...) in the same envelope."""
    status = error.code or 500
    headers = {}
    if isinstance(error, MethodNotAllowed) and error.valid_methods:
        headers["Allow"] = ", ".join(sorted(error.valid_methods))
    if isinstance(error, RequestEntityTooLarge):
        _discard_body()
        # What was not read cannot be taken for the next request on this connection.
        headers["Connection"] = "close"
    code = HTTP_CODES.get(status, HTTPStatus(status).phrase.lower().replace(" ", "_"))
    return problem_response(Problem(status, code, _http_detail(error)), headers)


@errors.app_errorhandler(Exception)
def handle_unexpected(error: Exception) -> Response:
    """Log a failure the service did not foresee and answer 500 without internals."""
    current_app.logger.exception("unhandled error on %s %s", request.method, request.path)
    return problem_response(
        Problem(500, "internal_error", "the server failed to answer; the failure has been logged")
    )


def _http_detail(error: HTTPException) -> str:
    if error.code == 404:
        return f"there is no resource at {request.path}"
    if error.code == 405:
        return f"{request.method} is not allowed on {request.path}"
    if error.code == 413:
        return f"the body is larger than the limit of {request.max_content_length} bytes"
    return error.description or HTTPStatus(error.code or 500).description


def _discard_body() -> None:
    stream = request.environ.get("wsgi.input")
    if stream is None:
        return
    remaining = min(request.content_length or DISCARD_LIMIT, DISCARD_LIMIT)
    while remaining > 0:
        chunk = stream.read(min(remaining, 64 * 1024))
        if not chunk:
            return
        remaining -= len(chunk)


def _where(loc: Sequence[int | str]) -> str:
    return "/".join(str(part) for part in loc) + ": " if loc else ""


#: Plainer words for the schema failures Pydantic phrases for Python programmers.
FRIENDLIER_MESSAGES = {
    "extra_forbidden": "is not a field of this request",
    "missing": "is required",
    "model_type": "the body must be a JSON object",
    "model_attributes_type": "the body must be a JSON object",
}


def _message(reason: Mapping[str, Any]) -> str:
    return str(FRIENDLIER_MESSAGES.get(reason["type"], reason["msg"]))

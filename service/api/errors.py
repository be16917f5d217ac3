"""Every failure, raised anywhere in the app, answered in the one envelope."""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus

from flask import Blueprint, Response, current_app, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed, RequestEntityTooLarge

from service.api.problems import (
    PROBLEM_HEADERS,
    PROBLEM_MEDIA_TYPE,
    REQUEST_FAILURES,
    Problem,
    RequestFailure,
    http_code,
    problem_for,
)

#: What the framework's own error answers mean here, where Python's phrase is too terse.
FRAMEWORK_DETAILS = {
    412: "the If-Match or If-Unmodified-Since condition does not hold for this resource",
    416: "the Range header asks for bytes outside this resource",
}

#: How much of an oversized body is read and thrown away, so the client gets to read the 413.
DISCARD_LIMIT = 8 * 1024 * 1024

errors = Blueprint("errors", __name__)


def problem_response(problem: Problem, headers: Mapping[str, str] | None = None) -> Response:
    """Render a problem as an application/problem+json response that nobody caches."""
    response = Response(problem.to_json(), status=problem.status, mimetype=PROBLEM_MEDIA_TYPE)
    response.headers.update(PROBLEM_HEADERS)
    response.headers.update(problem.headers)
    response.headers.update(headers or {})
    return response


def as_problem(response: Response) -> Response:
    """Turn an error the framework answered without raising (a 412 from a conditional GET,
    say) into the one envelope; any other answer passes unchanged."""
    if response.status_code < 400 or response.mimetype == PROBLEM_MEDIA_TYPE:
        return response
    status = response.status_code
    # The replaced answer may hold an open file (a page file's 412): let it go now.
    response.close()
    detail = FRAMEWORK_DETAILS.get(status) or HTTPStatus(status).description
    return problem_response(Problem(status, http_code(status), detail))


def handle_request_failure(error: RequestFailure) -> Response:
    """Answer a request the service refuses: a problem raised by a view, a body that does not
    fit the schema, rules outside the family, or a board no game reaches."""
    return problem_response(problem_for(error))


for _failure in (Problem, *REQUEST_FAILURES):
    errors.app_errorhandler(_failure)(handle_request_failure)


@errors.app_errorhandler(HTTPException)
def handle_http_exception(error: HTTPException) -> Response:
    """Answer routing and protocol failures (404, 405, 413, 416, ...) in the same envelope."""
    status = error.code or 500
    headers = {}
    if isinstance(error, MethodNotAllowed) and error.valid_methods:
        headers["Allow"] = ", ".join(sorted(error.valid_methods))
    if isinstance(error, RequestEntityTooLarge):
        _discard_body()
        # What was not read cannot be taken for the next request on this connection.
        headers["Connection"] = "close"
    return problem_response(Problem(status, http_code(status), _http_detail(error)), headers)


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
    if error.code in FRAMEWORK_DETAILS:
        return FRAMEWORK_DETAILS[error.code]
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

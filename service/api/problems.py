"""The one error envelope: RFC 9457 problem details, and the stable code of every failure."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails, PydanticCustomError

from service.game.legality import IllegalPosition
from service.game.moves import InvalidMoves
from service.game.rules import InvalidRules
from service.game.swap2 import InvalidOpening

PROBLEM_MEDIA_TYPE = "application/problem+json"

#: For a request that is not even well-formed HTTP, or a 400 from the HTTP layer itself.
MALFORMED_REQUEST = "malformed_request"

#: The stable code of every error status the HTTP layer (Werkzeug, Flask, gunicorn) can give,
#: so that no failure leaves with a code the contract does not list.
HTTP_CODES = {
    400: MALFORMED_REQUEST,
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    408: "request_timeout",
    409: "conflict",
    410: "gone",
    411: "length_required",
    412: "precondition_failed",
    413: "body_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    416: "range_not_satisfiable",
    417: "expectation_failed",
    418: "im_a_teapot",
    421: "misdirected_request",
    422: "invalid_request",
    423: "locked",
    424: "failed_dependency",
    428: "precondition_required",
    429: "too_many_requests",
    431: "headers_too_large",
    451: "unavailable_for_legal_reasons",
    500: "internal_error",
    501: "not_implemented",
    502: "bad_gateway",
    503: "not_ready",
    504: "gateway_timeout",
    505: "http_version_not_supported",
}

#: RFC 9110 renamed these; older Pythons still carry the RFC 7231 phrases.
RFC_9110_TITLES = {
    413: "Content Too Large",
    414: "URI Too Long",
    416: "Range Not Satisfiable",
    422: "Unprocessable Content",
}

#: On every problem: a failure says nothing lasting about the resource, so no cache may keep it.
PROBLEM_HEADERS = {"Cache-Control": "no-store"}


def http_code(status: int) -> str:
    """Return the stable code of an error status from the HTTP layer."""
    return HTTP_CODES.get(status, MALFORMED_REQUEST if status < 500 else "internal_error")


class Problem(Exception):
    """An HTTP failure to answer as problem details."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        errors: Sequence[Mapping[str, Any]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.errors = errors
        #: Headers the answer needs beyond the envelope's (Retry-After on a 503, say).
        self.headers = dict(headers or {})

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


#: The failures of the domain and of validation that a request can cause, each answered 422.
REQUEST_FAILURES = (ValidationError, InvalidRules, InvalidMoves, IllegalPosition, InvalidOpening)
#: What a request can fail with: a problem raised on purpose, or one of REQUEST_FAILURES.
RequestFailure = (
    Problem | ValidationError | InvalidRules | InvalidMoves | IllegalPosition | InvalidOpening
)


def problem_for(error: RequestFailure) -> Problem:
    """Return the problem that answers a request's failure: the one map, for the app's
    handlers and a batch's items alike; every `loc` is relative to the request."""
    if isinstance(error, Problem):
        return error
    if isinstance(error, ValidationError):
        return _invalid_request(error)
    if isinstance(error, InvalidRules):
        loc = ["board"] if error.field == "board" else ["rules", error.field]
        return _unprocessable(error.problem.code, error.detail, loc)
    if isinstance(error, InvalidMoves):
        at: list[str | int] = ["moves"] if error.index is None else ["moves", error.index]
        return _unprocessable(error.problem.code, error.detail, at)
    if isinstance(error, InvalidOpening):
        return _unprocessable(error.problem.code, error.detail, [error.field])
    # A board no game reaches, or a player who is not to move.
    return _unprocessable(
        error.reason.code, error.detail, ["player" if error.about_player else "board"]
    )


def _unprocessable(code: str, detail: str, loc: Sequence[str | int]) -> Problem:
    return Problem(422, code, detail, errors=[{"loc": list(loc), "msg": detail}])


def _invalid_request(error: ValidationError) -> Problem:
    reasons = [
        {"loc": list(reason["loc"]), "msg": _sentence(reason)}
        for reason in error.errors(include_url=False)
    ]
    detail = "; ".join(f"{_where(reason['loc'])}{reason['msg']}" for reason in reasons)
    return Problem(422, "invalid_request", detail, errors=reasons)


def _where(loc: Sequence[int | str]) -> str:
    return "/".join(str(part) for part in loc) + ": " if loc else ""


#: What a board's cell may be, said in every refusal of one.
CELL_HELP = (
    "a cell is 'X' or 'O' (either case), empty (null, '', ' ', '_', '-' or '.') or its own index"
)

#: The sentence for every validation failure a request can meet, keyed by Pydantic's error
#: type (and the custom types of service.api.schemas), for a frontend developer rather than a
#: Python programmer. Each is filled in with the error's context (the limits Pydantic reports,
#: or what a custom validator found), `field` (the name that failed, "the body" at the top)
#: and `input` (what was given there, shortened).
SENTENCES = {
    "missing": "is required",
    "extra_forbidden": "is not a field of this request",
    "model_type": "{field} must be a JSON object",
    "int_type": "{field} is a whole number, not {input}",
    # Only a query string's text is parsed (the lax mode of MoveRequest.from_query).
    "int_parsing": "{field} is a whole number, not {input}",
    "int_parsing_size": "{field} is a whole number, not {input}",
    # Only whole numbers have bounds in this API.
    "greater_than_equal": "{field} is a whole number of at least {ge}, not {input}",
    "less_than_equal": "{field} is a whole number of at most {le}, not {input}",
    "bool_type": "{field} is true or false, not {input}",
    "bool_parsing": "{field} is true or false, not {input}",
    "enum": "{field} is one of {expected}, not {input}",
    "list_type": "{field} is a list, not {input}",
    # A batch's requests are the only list of bounded length.
    "too_long": "a batch holds at most {max_length} requests, not {actual_length}",
    "repeated_parameter": "a query parameter may be given only once",
    "board_type": (
        "a board is a list of cells, a list of rows of cells, or a string of one character a cell"
    ),
    "board_text_length": "a board string has 1 to {maximum} characters, one a cell, not {length}",
    "board_list_length": (
        "a board is a list of 1 to {cells} cells or of 1 to {sides} rows of cells, "
        "not a list of {length}"
    ),
    "board_rows": (
        "a board of rows has 1 to {maximum} rows, each a list of the same 1 to {maximum} cells"
    ),
    "board_cell": "cell {index} is {value}: " + CELL_HELP + ", {index}",
    "moves_type": "moves is a list of the cells played, in order, X first",
    "moves_cell": "move {index} is {value}: a move is a cell's index, a whole number",
    "player": "player is 'X' or 'O' (either case) or null, not {value}",
}


def refusal(kind: str, **context: Any) -> PydanticCustomError:
    """Return a custom validation failure of a kind in SENTENCES, with what it found."""
    return PydanticCustomError(kind, SENTENCES[kind], context)


def describe(value: Any) -> str:
    """Return a short, safe rendering of a value a request gave, for a sentence."""
    if value is None:
        return "null"
    text = repr(value) if isinstance(value, str | int | float) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _sentence(reason: ErrorDetails) -> str:
    template = SENTENCES.get(reason["type"])
    if template is None:
        return reason["msg"]
    loc = reason["loc"]
    field = str(loc[-1]) if loc else "the body"
    return template.format(field=field, input=describe(reason["input"]), **reason.get("ctx", {}))

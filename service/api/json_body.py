"""Reading a request body as strict JSON, with a problem saying why when it cannot be read."""

from __future__ import annotations

import json
from typing import Any

from flask import request
from werkzeug.exceptions import RequestEntityTooLarge

from service.api.problems import Problem


class _NotJson(ValueError):
    """Raised while parsing for input Python's json module would accept but JSON does not."""


def read_json_body() -> Any:
    """Return the request's body parsed as JSON; raise a Problem (415, 413, 400) if it is not."""
    if not is_json_media_type(request.mimetype):
        sent = f"'{request.content_type}'" if request.content_type else "no Content-Type"
        raise Problem(
            415,
            "unsupported_media_type",
            f"the body must be JSON sent with Content-Type: application/json, not {sent}",
        )
    raw = _body_bytes()
    if not raw.strip():
        raise Problem(400, "malformed_json", "the body is empty; it must be a JSON object")
    try:
        return json.loads(
            raw.decode("utf-8"), object_pairs_hook=_unique_keys, parse_constant=_reject_constant
        )
    except UnicodeDecodeError:
        raise Problem(400, "malformed_json", "the body is not UTF-8 text") from None
    except json.JSONDecodeError as error:
        detail = (
            f"the body is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
        )
        raise Problem(400, "malformed_json", detail) from None
    except _NotJson as error:
        raise Problem(400, "malformed_json", f"the body is not valid JSON: {error}") from None
    except RecursionError:
        raise Problem(
            400, "malformed_json", "the body nests arrays or objects too deeply"
        ) from None
    except ValueError:
        # Python refuses to convert integers of thousands of digits; no board needs one.
        raise Problem(
            400, "malformed_json", "the body holds a number with too many digits"
        ) from None


def _body_bytes() -> bytes:
    """Return the request's body; raise 413 if it is over the limit, before reading it when
    its length is declared."""
    environ = request.environ
    declared = environ.get("CONTENT_LENGTH")
    if not (declared and declared.isdigit()):
        raw = request.get_data(cache=False)
        if _chunked_body_went_on(len(raw)):
            raise RequestEntityTooLarge()
        return raw
    # Nearly every request declares its length: the server's stream is read for exactly
    # that, without werkzeug's stream wrappers, a sixth of the app's own time on a table
    # answer.
    length = int(declared)
    limit = request.max_content_length
    if limit is not None and length > limit:
        raise RequestEntityTooLarge()
    raw = environ["wsgi.input"].read(length) if length else b""
    if len(raw) < length:
        raise Problem(
            400,
            "malformed_json",
            f"the body ended after {len(raw)} of the {length} bytes its Content-Length declares",
        )
    return bytes(raw)


def _chunked_body_went_on(length_read: int) -> bool:
    # Werkzeug stops reading a body of undeclared length at the limit without saying so;
    # one more byte from the server's stream tells whether the body was longer. A declared
    # length, nearly every request's, was checked against the limit before reading.
    declared = request.environ.get("CONTENT_LENGTH")
    if (declared and declared.isdigit()) or request.content_length is not None:
        return False
    limit = request.max_content_length
    return (
        limit is not None and length_read >= limit and bool(request.environ["wsgi.input"].read(1))
    )


def is_json_media_type(mimetype: str) -> bool:
    """Return whether a media type (without parameters) is JSON: application/json or */*+json."""
    return mimetype == "application/json" or (
        mimetype.startswith("application/") and mimetype.endswith("+json")
    )


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A repeated key would make the request mean whatever the last copy says; refuse to guess.
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _NotJson(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


def _reject_constant(name: str) -> Any:
    raise _NotJson(f"{name} is not a JSON value")

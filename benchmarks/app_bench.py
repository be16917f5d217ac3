"""What each layer of the app costs a request, and the JSON choices, measured in-process.

The apps are called as WSGI callables, without a server or a network, so differences of a
few microseconds show. The layers are switched off one at a time only here, by patching the
factory's collaborators, to price them: the shipped service has every one of them on.
"""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from werkzeug.test import create_environ

from benchmarks.floor_app import app as floor_app
from service import app as app_module
from service import observability
from service.app import create_app
from service.engine import Engine
from service.json_body import _unique_keys
from service.schemas import MoveRequest, MoveResponse

BODY = b'{"board": "X...O....", "player": "X"}'


def per_request(app: Any, headers: dict[str, str] | None = None, count: int = 20_000) -> float:
    """The fastest of three timings of `count` POST /v1/move calls, in microseconds each."""
    base = create_environ(
        "/v1/move", method="POST", content_type="application/json", data=BODY, headers=headers
    )

    def start_response(
        status: str, response_headers: Any, exc_info: Any = None
    ) -> Callable[[bytes], None]:
        return lambda data: None

    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for _ in range(count):
            environ = dict(base)
            environ["wsgi.input"] = io.BytesIO(BODY)
            for _chunk in app(environ, start_response):
                pass
        best = min(best, (time.perf_counter() - started) / count)
    return best * 1e6


@contextmanager
def quiet_stdout() -> Iterator[None]:
    """Send the access log to /dev/null while measuring."""
    saved, devnull = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(devnull)
        os.close(saved)


def layer_costs() -> dict[str, float]:
    """Microseconds per POST /v1/move: the floor, the service, and the service less a layer."""
    engine = Engine.build()
    results = {"floor app": per_request(floor_app)}
    variants: dict[str, list[Any]] = {
        "service as shipped": [],
        "service as shipped, browser request (Origin)": [],
        "less the access log": [mock.patch.dict(os.environ, {"ACCESS_LOG": "false"})],
        "less CORS": [mock.patch.object(app_module, "CORS", return_value=None),
                      mock.patch.object(app_module, "_only_for_browsers", return_value=None)],
        "less ids, metrics and log (the WSGI layer)": [
            mock.patch.object(observability, "install", return_value=None)
        ],
    }  # fmt: skip
    with quiet_stdout():
        for name, patches in variants.items():
            for patch in patches:
                patch.start()
            try:
                service = create_app(engine=engine)
            finally:
                for patch in patches:
                    patch.stop()
            headers = {"Origin": "https://game.example"} if "Origin" in name else None
            results[name] = per_request(service, headers)
    return results


def timed(call: Callable[[], object], count: int = 100_000) -> float:
    """The fastest of three timings of `count` calls, in microseconds each."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for _ in range(count):
            call()
        best = min(best, (time.perf_counter() - started) / count)
    return best * 1e6


def json_choices() -> dict[str, float]:
    """Microseconds to parse a move request and to serialize an answer, several ways."""
    text = BODY.decode()
    engine = Engine.build()
    request = MoveRequest.model_validate(json.loads(text))
    answer = MoveResponse.from_advice(engine.advise(request.to_board(), request.player))
    cached = {request.board: answer.model_dump_json().encode()}
    figures = {
        "parse: json.loads refusing repeated keys (shipped)": timed(
            lambda: json.loads(text, object_pairs_hook=_unique_keys)
        ),
        "parse: json.loads": timed(lambda: json.loads(text)),
        "parse: pydantic model_validate_json (jiter; keeps the last repeated key)": timed(
            lambda: MoveRequest.model_validate_json(text)
        ),
        "validate: pydantic model_validate of the parsed body (shipped)": timed(
            lambda: MoveRequest.model_validate(json.loads(text))
        ),
        "serialize: pydantic model_dump_json": timed(answer.model_dump_json),
        "serialize: json.dumps of model_dump": timed(
            lambda: json.dumps(answer.model_dump(mode="json"))
        ),
        "serialize: cached bytes, perfect play (shipped)": timed(lambda: cached[request.board]),
    }
    try:
        import orjson  # noqa: PLC0415 -- optional, measured only when installed
    except ImportError:
        return figures
    figures["parse: orjson.loads (keeps the last repeated key)"] = timed(lambda: orjson.loads(text))
    return figures


if __name__ == "__main__":
    print(layer_costs())
    print(json_choices())

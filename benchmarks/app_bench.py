"""What each layer of the app costs a request, and the JSON choices, measured in-process.

The apps are called as WSGI callables, without a server or a network, so differences of a
few microseconds show. The layers are switched off one at a time only here, to price them
(by settings, by taking the API without the process's layer, and for CORS alone by patching
the factory's collaborator): the shipped service has every one of them on.
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
from service.api import app as app_module
from service.api.json_body import _unique_keys
from service.api.schemas import MoveRequest, MoveResponse
from service.game.board import Board
from service.game.engine import Engine
from service.ops.composition import create_service
from service.ops.environment import Settings

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
    shipped = Settings()
    variants: dict[str, Callable[[], Any]] = {
        "service as shipped": lambda: create_service(shipped, engine=engine),
        "service as shipped, browser request (Origin)": lambda: create_service(
            shipped, engine=engine
        ),
        "less the access log": lambda: create_service(Settings(access_log=False), engine=engine),
        "less CORS": lambda: _without_cors(lambda: create_service(shipped, engine=engine)),
        "less ids, metrics and log (the WSGI layer)": lambda: app_module.create_app(
            shipped.app, engine=engine
        ),
    }
    with quiet_stdout():
        for name, build in variants.items():
            headers = {"Origin": "https://game.example"} if "Origin" in name else None
            results[name] = per_request(build(), headers)
    return results


def _without_cors(build: Callable[[], Any]) -> Any:
    with mock.patch.object(app_module, "CORS", return_value=None):
        return build()


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
    answer = MoveResponse.from_advice(
        engine.advise(engine.position(Board(request.board), request.player))
    )
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

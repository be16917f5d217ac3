"""Resource limits and hygiene: bounded work per request, no debug mode, safe headers."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from werkzeug.test import create_environ, run_wsgi_app

from service.api.errors import DISCARD_LIMIT
from service.game.engine import Engine
from service.ops.composition import create_service
from service.ops.environment import Environment
from service.ops.server import gunicorn_settings

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        ("POST", "/v1/move", {"json": {"board": "X........"}}),
        ("GET", "/v1/move?board=X........", {}),
        ("POST", "/v1/analysis", {"json": {"board": "X........"}}),
        ("POST", "/v1/moves", {"json": {"requests": []}}),
        ("GET", "/healthz", {}),
        ("GET", "/readyz", {}),
        ("GET", "/metrics", {}),
        ("GET", "/openapi.yaml", {}),
        ("GET", "/", {}),
        ("GET", "/static/app.js", {}),
        ("GET", "/docs/", {}),
        ("GET", "/nowhere", {}),
        ("POST", "/v1/move", {"data": b"{", "content_type": "application/json"}),
        ("DELETE", "/healthz", {}),
        (
            "OPTIONS",
            "/v1/move",
            {"headers": {"Origin": "https://a.example", "Access-Control-Request-Method": "POST"}},
        ),
    ],
)
def test_every_answer_forbids_content_sniffing(
    client: FlaskClient, method: str, path: str, kwargs: dict[str, object]
) -> None:
    with client.open(path, method=method, **kwargs) as response:  # type: ignore[arg-type]  # json=, data= or headers=, by row
        assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_a_304_forbids_content_sniffing_too(client: FlaskClient) -> None:
    etag = client.get("/v1/move?board=X........").headers["ETag"]
    response = client.get("/v1/move?board=X........", headers={"If-None-Match": etag})
    assert response.status_code == 304
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_no_shipped_configuration_runs_in_debug_mode(engine: Engine) -> None:
    app = create_service(engine=engine)
    assert app.debug is False
    assert app.testing is False
    assert "reload" not in gunicorn_settings(Environment())
    shipped = "\n".join(
        path.read_text()
        for path in [
            ROOT / "Dockerfile",
            *sorted((ROOT / "deploy").rglob("*.yaml")),
            *sorted((ROOT / "service").rglob("*.py")),
        ]
    )
    # Flask's development server is app.run(); gunicorn's is ProductionServer(...).run().
    assert not re.search(r"FLASK_DEBUG|debug\s*=\s*True|app\.run\(", shipped)


#: A name from pydantic's private modules, which may change in any release.
PRIVATE_PYDANTIC = re.compile(r"\bpydantic(_core)?\.(main|_\w+)\b")


def test_the_service_uses_pydantic_through_its_public_names_only() -> None:
    assert PRIVATE_PYDANTIC.search("from pydantic.main import IncEx")
    assert PRIVATE_PYDANTIC.search("from pydantic._internal._model_construction import x")
    assert not PRIVATE_PYDANTIC.search("from pydantic_core import PydanticCustomError")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "service").rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if PRIVATE_PYDANTIC.search(line)
    ]
    assert offenders == []


class CountingStream(io.RawIOBase):
    """An endless request body that counts what is read of it."""

    def __init__(self) -> None:
        self.read_so_far = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]  # a bytearray is all it is given
        buffer[:] = b" " * len(buffer)
        self.read_so_far += len(buffer)
        return len(buffer)


def test_an_oversized_body_is_refused_before_parsing_after_bounded_reading(
    client: FlaskClient,
) -> None:
    """A body declared at 1 GiB: 413 without parsing, and at most DISCARD_LIMIT bytes read."""
    body = CountingStream()
    environ = create_environ("/v1/move", method="POST", content_type="application/json")
    environ.update({"CONTENT_LENGTH": str(1024**3), "wsgi.input": body})
    answer, status, headers = run_wsgi_app(client.application, environ, buffered=True)
    assert status.startswith("413")
    assert json.loads(b"".join(answer))["code"] == "body_too_large"
    assert headers["Connection"] == "close"
    assert body.read_so_far <= DISCARD_LIMIT


def test_a_batch_is_capped(client: FlaskClient) -> None:
    response = client.post("/v1/moves", json={"requests": [{"board": "........."}] * 1001})
    assert response.status_code == 422

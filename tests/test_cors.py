"""CORS: browser frontends on other origins may call every endpoint, preflight included."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from service.api.app_settings import AppSettings
from service.ops.environment import Environment, Settings, SettingsError
from tests.helpers import ServiceFactory

ORIGIN = "https://game.example"
ENDPOINTS = [
    ("POST", "/v1/move"),
    ("GET", "/v1/move"),
    ("POST", "/v1/analysis"),
    ("POST", "/v1/moves"),
    ("GET", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/metrics"),
    ("GET", "/openapi.yaml"),
]


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
def test_a_preflight_is_allowed_for_every_endpoint(
    client: FlaskClient, method: str, path: str
) -> None:
    response = client.options(
        path,
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": "content-type, x-request-id",
        },
    )
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] in {"*", ORIGIN}
    assert method in response.headers["Access-Control-Allow-Methods"]
    assert response.headers["Access-Control-Allow-Headers"] == "content-type, x-request-id"
    assert response.headers["Access-Control-Max-Age"] == "86400"


def test_an_answer_lets_the_page_read_it_and_its_request_id(client: FlaskClient) -> None:
    response = client.post("/v1/move", json={"board": "X........"}, headers={"Origin": ORIGIN})
    # A literal wildcard, not the caller's origin: shared caches need no Vary: Origin then.
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "Vary" not in response.headers
    exposed = {
        name.strip() for name in response.headers["Access-Control-Expose-Headers"].split(",")
    }
    assert exposed == {"X-Request-ID", "ETag"}


def test_a_problem_can_be_read_by_the_page_too(client: FlaskClient) -> None:
    response = client.post("/v1/move", json={"board": "XXXXX...."}, headers={"Origin": ORIGIN})
    assert response.status_code == 422
    assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_only_the_allowed_origins_get_cors_headers(make_service: ServiceFactory) -> None:
    origins = ("https://a.example", "https://b.example")
    client = make_service(Settings(app=AppSettings(cors_origins=origins))).test_client()
    allowed = client.get("/healthz", headers={"Origin": "https://b.example"})
    other = client.get("/healthz", headers={"Origin": "https://evil.example"})
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://b.example"
    assert "Access-Control-Allow-Origin" not in other.headers
    assert "Origin" in allowed.headers["Vary"]


@pytest.mark.parametrize(
    ("value", "origins"),
    [
        ("", ("*",)),
        ("*", ("*",)),
        ("https://a.example,http://b.example:8080", ("https://a.example", "http://b.example:8080")),
    ],
)
def test_origins_are_read_as_a_comma_separated_list(value: str, origins: tuple[str, ...]) -> None:
    assert Environment.read({"CORS_ORIGINS": value}).settings().app.cors_origins == origins


def test_an_origin_that_is_not_one_is_refused() -> None:
    with pytest.raises(
        SettingsError, match=r"CORS_ORIGINS lists origins like https://example\.com"
    ):
        Environment.read({"CORS_ORIGINS": "a.example"})

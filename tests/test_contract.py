"""The contract: openapi.yaml is valid, and the service and its spec cannot drift apart."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the lock; only its validator is used
import pytest
import schemathesis
import yaml
from flask import abort
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate
from schemathesis.config import SchemathesisConfig
from werkzeug.exceptions import default_exceptions

from service.api.app_settings import AppSettings
from service.api.problems import HTTP_CODES, MALFORMED_REQUEST
from service.game.legality import Illegality
from service.game.moves import MovesProblem
from service.game.rules import RulesProblem
from service.game.swap2 import Swap2Problem
from service.ops.composition import create_service
from service.ops.environment import Settings
from tests.helpers import ServiceFactory, without_time

ROOT = Path(__file__).resolve().parent.parent
SPEC = yaml.safe_load((ROOT / "openapi.yaml").read_text())
API_DOC = (ROOT / "docs" / "API.md").read_text()


def test_the_spec_is_valid_openapi_3_1() -> None:
    assert SPEC["openapi"].startswith("3.1")
    validate(SPEC)


def test_the_top_level_spec_is_a_link_to_the_one_the_package_serves() -> None:
    """A copy could drift from what is served; a link cannot."""
    top_level = ROOT / "openapi.yaml"
    assert top_level.is_symlink()
    assert top_level.resolve() == (ROOT / "service" / "api" / "openapi.yaml").resolve()


#: The pages for people: the web page, its files, and the docs.
PAGES = ("api.web_page", "static", "swagger_ui.")


def test_every_api_route_of_the_service_is_in_the_spec(client: FlaskClient) -> None:
    app = client.application
    routes = {rule.rule for rule in app.url_map.iter_rules() if not rule.endpoint.startswith(PAGES)}
    assert routes == set(SPEC["paths"])


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local $ref to the object it names."""
    while "$ref" in node:
        found: Any = SPEC
        for part in node["$ref"].removeprefix("#/").split("/"):
            found = found[part]
        node = found
    return node


def examples_of(holder: dict[str, Any]) -> dict[str, Any]:
    (media,) = resolve(holder)["content"].values()
    return {name: example["value"] for name, example in media.get("examples", {}).items()}


def request_examples() -> list[Any]:
    """Every request example of every operation, with the same-named 200 example if any."""
    cases = []
    for path, item in SPEC["paths"].items():
        operation = item.get("post")
        if operation is None:
            continue
        answers = examples_of(operation["responses"]["200"])
        for name, body in examples_of(operation["requestBody"]).items():
            cases.append(pytest.param(path, body, answers.get(name), id=f"{path}:{name}"))
    return cases


@pytest.mark.parametrize(("path", "body", "documented"), request_examples())
def test_every_request_example_gets_its_documented_answer(
    client: FlaskClient, path: str, body: Any, documented: Any
) -> None:
    response = client.post(path, json=body)
    assert response.status_code == 200
    if documented is not None:
        assert without_time(response.get_json()) == without_time(documented)


def test_most_request_examples_have_a_documented_answer() -> None:
    assert sum(case.values[2] is not None for case in request_examples()) >= 4


@pytest.mark.parametrize(
    ("example", "body"),
    [
        ("invalidRequest", {"board": ["X", 7, None, None, None, None, None, None, None]}),
        ("markCountGap", {"board": "XXXXXO..."}),
    ],
)
def test_documented_problems_are_the_real_problems(
    client: FlaskClient, example: str, body: Any
) -> None:
    answer = client.post("/v1/move", json=body).get_json()
    assert answer == examples_of(SPEC["components"]["responses"]["Unprocessable"])[example]


DOCUMENTED_CODES = set(SPEC["components"]["schemas"]["Problem"]["properties"]["code"]["enum"])


def test_every_problem_code_the_service_can_give_is_documented() -> None:
    """The rules' codes, the HTTP layer's, and every code a Problem is raised with in the code."""
    source = "\n".join(path.read_text() for path in (ROOT / "service").rglob("*.py"))
    raised = set(re.findall(r'(?:Problem|Busy)\(\s*\d{3},\s*"([a-z_]+)"', source))
    given = {reason.code for reason in Illegality} | set(HTTP_CODES.values()) | raised
    given |= {problem.code for problem in RulesProblem} | {problem.code for problem in MovesProblem}
    given |= {problem.code for problem in Swap2Problem}
    assert {"malformed_json", "not_ready", "invalid_request", MALFORMED_REQUEST} <= given
    assert given == DOCUMENTED_CODES


def documented_error_statuses() -> set[int]:
    table = API_DOC.split("### Errors", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([\d, ]+) \|", table, flags=re.MULTILINE)
    return {int(status) for row in rows for status in row.split(",")}


@pytest.mark.parametrize("status", sorted(default_exceptions))
def test_every_error_the_framework_can_raise_leaves_as_a_documented_problem(
    make_service: ServiceFactory, status: int
) -> None:
    """Werkzeug's every HTTP error, raised in a view: the envelope, a listed code and status."""
    app = make_service()

    def fail() -> str:
        abort(status)

    app.add_url_rule("/failing", "failing", fail)
    response = app.test_client().get("/failing")
    assert response.status_code == status
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert (body["status"], body["code"]) == (status, HTTP_CODES[status])
    assert body["code"] in DOCUMENTED_CODES
    assert status in documented_error_statuses()


@pytest.mark.parametrize("status", [400, 409, 412, 429, 502])
def test_an_error_status_answered_without_raising_still_leaves_as_a_problem(
    make_service: ServiceFactory, status: int
) -> None:
    """The class behind 412 from a conditional GET: an error answered in another shape."""
    app = make_service()
    app.add_url_rule("/plain", "plain", lambda: ("<p>plain</p>", status))
    response = app.test_client().get("/plain")
    assert response.status_code == status
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == HTTP_CODES[status]


def test_the_readme_lists_exactly_the_error_statuses_of_the_http_layer() -> None:
    assert documented_error_statuses() == set(default_exceptions) == set(HTTP_CODES)


# --- schemathesis: generated requests, every check, against the app in-process ---

CONFIG = SchemathesisConfig.from_path(ROOT / "schemathesis.toml")
# Loaded at collection: schemathesis' fixture-based loader reads a pytest internal that
# pytest 9.2 removed. The engine is built once for these cases. Searches are kept short
# (a budget above 20 ms is refused, as any above the operator's maximum is).
contract = schemathesis.openapi.from_wsgi(
    "/openapi.yaml",
    create_service(
        Settings(app=AppSettings(max_budget_ms=20, default_budget_ms=20), access_log=False)
    ),
    config=CONFIG,
)


@contract.parametrize()
@settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_the_service_keeps_its_contract(case: Any) -> None:
    """Every generated request, valid or not, gets an answer the spec allows: every check on."""
    case.call_and_validate()


def test_the_schemathesis_config_switches_nothing_off() -> None:
    """The one setting: 422 also answers schema-valid data, for impossible boards."""
    config = tomllib.loads((ROOT / "schemathesis.toml").read_text())
    assert config == {"checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "422"]}}}


def test_answers_on_the_largest_board_keep_the_contracts_bounds(client: FlaskClient) -> None:
    """Indices, rows, columns and scores reach 20x20's: the last cell 399, row 19, a win
    at once scoring 400."""
    board = ["."] * 400
    for cell in (380, 381, 382, 383):
        board[cell] = "X"
    for cell in (0, 1, 2, 3):
        board[cell] = "O"
    body = {"board": "".join(board), "budget_ms": 50}
    move = client.post("/v1/move", json=body)
    analysis = client.post("/v1/analysis", json=body)
    assert (move.status_code, analysis.status_code) == (200, 200)
    assert (move.get_json()["move"], move.get_json()["row"]) == (384, 19)
    components = {"components": SPEC["components"]}
    for answer, schema in ((move, "MoveResponse"), (analysis, "AnalysisResponse")):
        validator = jsonschema.Draft202012Validator(
            {"$ref": f"#/components/schemas/{schema}", **components}
        )
        assert list(validator.iter_errors(answer.get_json())) == []

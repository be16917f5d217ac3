"""The HTTP endpoints: each parses its input, asks the engine, and serializes the answer."""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, Response, current_app
from pydantic import BaseModel

from service.engine import Engine
from service.json_body import read_json_body
from service.lifecycle import Lifecycle
from service.metrics import EXPOSITION_MEDIA_TYPE, Metrics
from service.problems import Problem
from service.schemas import MoveRequest, MoveResponse

api = Blueprint("api", __name__)


@dataclass(frozen=True, slots=True)
class Services:
    """What the views share, built once by the app factory."""

    engine: Engine
    openapi_document: bytes
    metrics: Metrics
    lifecycle: Lifecycle


def services() -> Services:
    """Return the current app's shared services."""
    found: Services = current_app.extensions["bestmove"]
    return found


def json_response(body: BaseModel) -> Response:
    """Serialize a response model as application/json."""
    return Response(body.model_dump_json(), mimetype="application/json")


@api.post("/v1/move")
def best_move() -> Response:
    """Answer the best move on the posted board and the position after it."""
    move_request = MoveRequest.model_validate(read_json_body())
    advice = services().engine.advise(move_request.to_board(), move_request.player)
    services().metrics.count_move(advice.evaluation.outcome if advice.evaluation else None)
    return json_response(MoveResponse.from_advice(advice))


@api.get("/healthz")
def health() -> dict[str, str]:
    """Answer that the process serves requests."""
    return {"status": "ok"}


@api.get("/readyz")
def readiness() -> dict[str, str]:
    """Answer whether this process should get traffic: solver sound and not shutting down."""
    if services().lifecycle.draining:
        raise Problem(503, "not_ready", "the server is shutting down")
    if not services().engine.answers_known_position():
        raise Problem(503, "not_ready", "the solver does not answer a known position correctly")
    return {"status": "ready"}


@api.get("/metrics")
def metrics() -> Response:
    """Expose the metrics of every worker in Prometheus text format."""
    return Response(services().metrics.exposition(), content_type=EXPOSITION_MEDIA_TYPE)


@api.get("/openapi.yaml")
def openapi_document() -> Response:
    """Serve the API contract."""
    return Response(services().openapi_document, mimetype="application/yaml")

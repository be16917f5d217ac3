"""The HTTP endpoints: each parses its input, asks for the answer, and sends it."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request

from service.api.json_body import read_json_body
from service.api.long_work import step_aside
from service.api.problems import Problem
from service.api.schemas import BatchRequest, MoveRequest, Swap2Request
from service.api.services import services

api = Blueprint("api", __name__)

#: Perfect play, or a seeded choice, never changes: any cache may keep it for good.
FOREVER = "public, max-age=31536000, immutable"
#: The web page may load only what the service itself serves.
PAGE_POLICY = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"


def json_response(body: bytes) -> Response:
    """Send JSON bytes as application/json."""
    return Response(body, content_type="application/json")


@api.post("/v1/move")
def best_move() -> Response:
    """Answer the move on the posted board and the position after it."""
    move_request = MoveRequest.model_validate(read_json_body())
    return json_response(services().answers.move(move_request).body)


@api.get("/v1/move")
def best_move_cacheable() -> Response:
    """Answer the same as the POST, from the query string, with caching headers."""
    answer = services().answers.move(MoveRequest.from_query(request.args.to_dict(flat=False)))
    response = json_response(answer.body)
    if not answer.lasting:
        response.headers["Cache-Control"] = "no-store"
        return response
    response.headers["Cache-Control"] = FOREVER
    response.add_etag()
    # Answers 304 without a body when the caller's If-None-Match already holds this ETag.
    response.make_conditional(request)
    return response


@api.post("/v1/analysis")
def analysis() -> Response:
    """Rank every legal move of the posted board, best first, with its line of play."""
    move_request = MoveRequest.model_validate(read_json_body())
    return json_response(services().answers.analysis(move_request))


@api.post("/v1/moves")
def best_moves() -> Response:
    """Answer a batch of move requests in order; a bad one gets its problem in its slot."""
    # A thousand items take a while even from the tables: let the server accept meanwhile.
    step_aside()
    batch = BatchRequest.model_validate(read_json_body())
    return json_response(services().answers.moves(batch.requests))


@api.post("/v1/swap2")
def swap2() -> Response:
    """Answer a Swap2 player's decision on the posted opening: its stones, a swap or a move."""
    swap2_request = Swap2Request.model_validate(read_json_body())
    return json_response(services().answers.swap2(swap2_request))


@api.get("/healthz")
def health() -> dict[str, str]:
    """Answer that the process serves requests."""
    return {"status": "ok"}


@api.get("/readyz")
def readiness() -> dict[str, str]:
    """Answer whether this process should get traffic: solver sound and not shutting down."""
    if services().lifecycle.draining:
        raise Problem(503, "not_ready", "the server is shutting down")
    engine = services().engine
    if not engine.answers_every_game():
        raise Problem(503, "not_ready", "the solver does not hold every game of the family yet")
    if not engine.answers_known_position():
        raise Problem(503, "not_ready", "the solver does not answer a known position correctly")
    return {"status": "ready"}


@api.get("/openapi.yaml")
def openapi_document() -> Response:
    """Serve the API contract."""
    return Response(services().openapi_document, mimetype="application/yaml")


@api.get("/")
def web_page() -> Response:
    """Serve the page that plays against the service."""
    response = current_app.send_static_file("index.html")
    response.headers["Content-Security-Policy"] = PAGE_POLICY
    return response

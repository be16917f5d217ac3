"""Health checks and the served contract."""

from __future__ import annotations

from pathlib import Path

from flask.testing import FlaskClient

from service import create_app
from service.board import Board, Mark
from service.engine import Engine, MoveAdvice

ROOT = Path(__file__).resolve().parent.parent


def test_health_is_ok_while_the_process_serves(client: FlaskClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}


def test_ready_once_the_solver_answers_a_known_position(client: FlaskClient) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ready"}


class WrongEngine(Engine):
    """An engine whose table gives a wrong answer."""

    def advise(self, board: Board, requested_player: Mark | None = None) -> MoveAdvice:
        advice = super().advise(board, requested_player)
        return MoveAdvice(advice.player, 0, advice.evaluation, board, advice.status, ())


def test_not_ready_while_the_solver_answers_wrongly(engine: Engine) -> None:
    wrong = WrongEngine(engine._table)
    response = create_app(engine=wrong).test_client().get("/readyz")
    assert response.status_code == 503
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "not_ready"
    # Liveness does not depend on the solver.
    assert create_app(engine=wrong).test_client().get("/healthz").status_code == 200


def test_the_contract_is_served_as_written(client: FlaskClient) -> None:
    response = client.get("/openapi.yaml")
    assert response.status_code == 200
    assert response.mimetype == "application/yaml"
    assert response.data == (ROOT / "openapi.yaml").read_bytes()

"""Health checks and the served contract."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient

from service.game.board import Board, Mark
from service.game.engine import Engine, Evaluation, MoveAdvice
from service.game.position import Position
from service.game.store import prepare_tables
from tests.helpers import ServiceFactory

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
    """An engine whose table gives a wrong answer: the lowest empty cell is always 'best'."""

    def evaluate(self, board: Board, side_to_move: Mark) -> Evaluation:
        right = super().evaluate(board, side_to_move)
        return Evaluation(right.score, board.empty_cells()[:1], right.plies_to_end)


class CrashingEngine(Engine):
    """An engine that fails outright."""

    def evaluate(self, board: Board, side_to_move: Mark) -> Evaluation:
        raise KeyError(board)


def test_not_ready_while_the_solver_answers_wrongly(
    tables_dir: Path, make_service: ServiceFactory
) -> None:
    # Every game held, so that the wrong answer is the only thing that can fail readiness.
    wrong = WrongEngine(prepare_tables(tables_dir))
    assert wrong.answers_every_game()
    response = make_service(engine=wrong).test_client().get("/readyz")
    assert response.status_code == 503
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "not_ready"
    assert "does not answer a known position correctly" in response.get_json()["detail"]
    # Liveness does not depend on the solver.
    assert make_service(engine=wrong).test_client().get("/healthz").status_code == 200


class WrongSearchEngine(Engine):
    """An engine whose tables are right but whose search plays the lowest empty cell."""

    def advise(self, position: Position, *args: Any, **kwargs: Any) -> MoveAdvice:
        advice = super().advise(position, *args, **kwargs)
        if position.in_table or advice.chosen is None:
            return advice
        lowest = dataclasses.replace(advice.chosen, move=position.board.empty_cells()[0])
        return dataclasses.replace(advice, chosen=lowest)


def test_not_ready_while_the_search_answers_wrongly(
    tables_dir: Path, make_service: ServiceFactory
) -> None:
    wrong = WrongSearchEngine(prepare_tables(tables_dir))
    assert wrong.answers_every_game()
    response = make_service(engine=wrong).test_client().get("/readyz")
    assert response.status_code == 503
    assert "does not answer a known position correctly" in response.get_json()["detail"]


def test_not_ready_while_the_solver_fails(tables_dir: Path, make_service: ServiceFactory) -> None:
    crashing = CrashingEngine(prepare_tables(tables_dir))
    assert crashing.answers_every_game()
    response = make_service(engine=crashing).test_client().get("/readyz")
    assert response.status_code == 503
    assert response.get_json()["code"] == "not_ready"
    assert "does not answer a known position correctly" in response.get_json()["detail"]


def test_the_contract_is_served_as_written(client: FlaskClient) -> None:
    response = client.get("/openapi.yaml")
    assert response.status_code == 200
    assert response.mimetype == "application/yaml"
    assert response.data == (ROOT / "openapi.yaml").read_bytes()

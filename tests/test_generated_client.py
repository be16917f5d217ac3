"""A third party generates a client from openapi.yaml, and it works against the service."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from flask import Flask

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """Generate the client package with openapi-python-client and import it."""
    output = tmp_path_factory.mktemp("generated")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            str(ROOT / "openapi.yaml"),
            "--config",
            str(ROOT / "tests" / "client-generator.yaml"),
            "--output-path",
            str(output / "bestmove_client"),
            "--meta",
            "none",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stdout, result.stdout
    sys.path.insert(0, str(output))
    try:
        yield importlib.import_module("bestmove_client")
    finally:
        sys.path.remove(str(output))
        for name in [name for name in sys.modules if name.startswith("bestmove_client")]:
            del sys.modules[name]


@pytest.fixture
def api_client(generated: ModuleType, app: Flask) -> Any:
    transport = httpx.WSGITransport(app=app)
    return generated.Client(base_url="http://bestmove.test", httpx_args={"transport": transport})


def operation(generated: ModuleType, name: str) -> Any:
    return importlib.import_module(f"bestmove_client.api.{name}")


def test_the_generated_client_gets_the_best_move(generated: ModuleType, api_client: Any) -> None:
    models = importlib.import_module("bestmove_client.models")
    post_move = operation(generated, "moves.post_move")
    answer = post_move.sync(
        client=api_client, body=models.MoveRequest(board=["O", 1, "X", "X", 4, "X", 6, "O", "O"])
    )
    assert isinstance(answer, models.MoveResponse)
    assert (answer.move, answer.row, answer.col, answer.score) == (4, 1, 1, 9)
    assert answer.outcome.value == "win"
    assert answer.status.value == "x_won"
    assert answer.winning_lines == [[3, 4, 5]]
    assert answer.next_player is None


@pytest.mark.parametrize("board", ["X...O....", [["X", 1, 2], [3, "O", 5], [6, 7, 8]]])
def test_the_generated_client_sends_every_encoding(
    generated: ModuleType, api_client: Any, board: Any
) -> None:
    models = importlib.import_module("bestmove_client.models")
    post_move = operation(generated, "moves.post_move")
    answer = post_move.sync(client=api_client, body=models.MoveRequest(board=board, player="x"))
    assert answer.player.value == "X"
    assert answer.board[0] == "X"


def test_the_generated_client_reads_problems(generated: ModuleType, api_client: Any) -> None:
    models = importlib.import_module("bestmove_client.models")
    post_move = operation(generated, "moves.post_move")
    response = post_move.sync_detailed(
        client=api_client, body=models.MoveRequest(board="XXXXX.O..")
    )
    assert response.status_code == 422
    assert isinstance(response.parsed, models.Problem)
    assert response.parsed.code.value == "mark_count_gap"
    assert response.parsed.errors[0].loc == ["board"]


def test_the_generated_client_checks_health(generated: ModuleType, api_client: Any) -> None:
    health = operation(generated, "operations.get_health").sync(client=api_client)
    readiness = operation(generated, "operations.get_readiness").sync(client=api_client)
    document = operation(generated, "operations.get_openapi_document").sync(client=api_client)
    assert health.status.value == "ok"
    assert readiness.status.value == "ready"
    assert document == (ROOT / "openapi.yaml").read_text()


def test_the_generated_client_ranks_moves(generated: ModuleType, api_client: Any) -> None:
    models = importlib.import_module("bestmove_client.models")
    post_analysis = operation(generated, "moves.post_analysis")
    analysis = post_analysis.sync(client=api_client, body=models.MoveRequest(board="O.XX.X.OO"))
    assert isinstance(analysis, models.AnalysisResponse)
    assert [ranked.move for ranked in analysis.moves] == [4, 1, 6]
    assert analysis.moves[1].line == [1, 4]


def test_the_generated_client_sends_a_batch(generated: ModuleType, api_client: Any) -> None:
    models = importlib.import_module("bestmove_client.models")
    post_moves = operation(generated, "moves.post_moves")
    batch = post_moves.sync(
        client=api_client,
        body=models.BatchRequest(requests=[{"board": "X........"}, {"board": "XXXXX...."}]),
    )
    good, bad = batch.results
    assert isinstance(good, models.MoveResponse)
    assert good.move == 4
    assert isinstance(bad, models.Problem)
    assert bad.code.value == "mark_count_gap"


def test_the_generated_client_uses_the_cacheable_get(
    generated: ModuleType, api_client: Any
) -> None:
    get_move = operation(generated, "moves.get_move")
    response = get_move.sync_detailed(client=api_client, board="X...O....")
    assert response.status_code == 200
    assert response.parsed.move == 1
    assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"


def test_the_generated_client_names_the_rules_of_a_larger_game(
    generated: ModuleType, api_client: Any
) -> None:
    models = importlib.import_module("bestmove_client.models")
    post_move = operation(generated, "moves.post_move")
    answer = post_move.sync(
        client=api_client,
        body=models.MoveRequest(
            board="XO..............", rules=models.RulesInput(k=3, misere=True)
        ),
    )
    assert isinstance(answer, models.MoveResponse)
    assert (answer.rules.rows, answer.rules.cols, answer.rules.k, answer.rules.misere) == (
        4,
        4,
        3,
        True,
    )
    assert len(answer.board) == 16
    refused = post_move.sync_detailed(
        client=api_client, body=models.MoveRequest(board="X" * 12, rules=models.RulesInput(rows=21))
    )
    assert refused.status_code == 422
    assert refused.parsed.code.value == "rows_out_of_range"
    got = operation(generated, "moves.get_move").sync(
        client=api_client, board="X" + "." * 15, k=3, misere=True
    )
    assert got.rules.k == 3
    assert got.rules.misere is True

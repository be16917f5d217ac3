"""A position is checked once: legality, the side to move, the status and whether a table
answers it are worked out once per request (once per batch item), whatever the endpoint."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.game.board import Board, GameStatus, Mark
from service.game.difficulty import Difficulty
from service.game.engine import Engine
from service.game.legality import Illegality, IllegalPosition, check_board, side_to_move
from service.game.position import Position
from service.game.rules import Rules

GOMOKU_7X7 = Rules(7, 7, 5)
#: X and O, two marks each, near the centre of 7x7: a search's position.
SEARCHED = "." * 16 + "XO" + "." * 5 + "OX" + "." * 24
CLASSIC = "X...O...."
FINISHED_7X7 = "XXXXX.." + "OOOO..." + "." * 35

#: The legality work done, counted per board it is done for (per game, for `holds`).
Calls = Counter[tuple[str, object]]


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Calls:
    """Count the legality work done for each board: the rule check, the side to move, the
    status and the table-or-search decision."""
    counted: Calls = Counter()

    def counting(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            # holds(self, rules) is asked of a game; the others of a board.
            counted[name, args[1] if name == "holds" else args[0]] += 1
            return function(*args, **kwargs)

        return wrapper

    # Wherever the product has the legality functions by name, so a new caller is counted too.
    for name, function in (("check_board", check_board), ("side_to_move", side_to_move)):
        counted_function = counting(name, function)
        for module in list(sys.modules.values()):
            if module.__name__.startswith("service.") and getattr(module, name, None) is function:
                monkeypatch.setattr(module, name, counted_function)
    monkeypatch.setattr(Board, "status", counting("status", Board.status))
    monkeypatch.setattr(Engine, "holds", counting("holds", Engine.holds))
    return counted


def work_for(calls: Calls, board: Board) -> dict[str, int]:
    """Return how often each piece of legality work ran for one board."""
    return {
        "check_board": calls["check_board", board],
        "side_to_move": calls["side_to_move", board],
        "status": calls["status", board],
        "holds": calls["holds", board.rules],
    }


ONCE_BEYOND_THE_TABLES = {"check_board": 1, "side_to_move": 1, "status": 1, "holds": 1}
#: A game the tables hold costs one table lookup instead of the rule check.
ONCE_FROM_A_TABLE = {"check_board": 0, "side_to_move": 1, "status": 1, "holds": 1}


@pytest.mark.parametrize(
    ("method", "path", "body", "board", "work"),
    [
        ("POST", "/v1/move", {"board": CLASSIC}, Board.from_text(CLASSIC), ONCE_FROM_A_TABLE),
        (
            "POST",
            "/v1/move",
            {"board": SEARCHED, "budget_ms": 20},
            Board.from_text(SEARCHED, GOMOKU_7X7),
            ONCE_BEYOND_THE_TABLES,
        ),
        (
            "POST",
            "/v1/move",
            {"board": SEARCHED, "difficulty": "medium", "seed": 3},
            Board.from_text(SEARCHED, GOMOKU_7X7),
            ONCE_BEYOND_THE_TABLES,
        ),
        (
            "POST",
            "/v1/move",
            {"board": FINISHED_7X7},
            Board.from_text(FINISHED_7X7, GOMOKU_7X7),
            ONCE_BEYOND_THE_TABLES,
        ),
        (
            "GET",
            f"/v1/move?board={SEARCHED}&budget_ms=20",
            None,
            Board.from_text(SEARCHED, GOMOKU_7X7),
            ONCE_BEYOND_THE_TABLES,
        ),
        (
            "GET",
            f"/v1/move?board={CLASSIC}",
            None,
            Board.from_text(CLASSIC),
            ONCE_FROM_A_TABLE,
        ),
        (
            "POST",
            "/v1/analysis",
            {"board": SEARCHED, "budget_ms": 20},
            Board.from_text(SEARCHED, GOMOKU_7X7),
            ONCE_BEYOND_THE_TABLES,
        ),
        (
            "POST",
            "/v1/analysis",
            {"board": CLASSIC},
            Board.from_text(CLASSIC),
            ONCE_FROM_A_TABLE,
        ),
    ],
)
def test_a_request_checks_its_position_once(
    client: FlaskClient,
    calls: Calls,
    method: str,
    path: str,
    body: dict[str, Any] | None,
    board: Board,
    work: dict[str, int],
) -> None:
    response = client.open(path, method=method, json=body)
    assert response.status_code == 200, response.get_json()
    assert work_for(calls, board) == work


def test_each_batch_item_checks_its_position_once(client: FlaskClient, calls: Calls) -> None:
    other = SEARCHED.replace("X", "x", 1)  # the same board, written another way
    items = [
        {"board": SEARCHED, "budget_ms": 20},
        {"board": CLASSIC},
        {"board": other, "difficulty": "easy", "seed": 1},
    ]
    response = client.post("/v1/moves", json={"requests": items})
    assert response.status_code == 200
    assert all("move" in result for result in response.get_json()["results"])
    searched = work_for(calls, Board.from_text(SEARCHED, GOMOKU_7X7))
    # Two items of that board: twice its work, once each.
    assert searched == {"check_board": 2, "side_to_move": 2, "status": 2, "holds": 2}
    assert work_for(calls, Board.from_text(CLASSIC)) == ONCE_FROM_A_TABLE


def test_an_impossible_board_is_checked_once_and_refused(client: FlaskClient, calls: Calls) -> None:
    text = "XXX.O" + "." * 44
    response = client.post("/v1/move", json={"board": text})
    assert response.status_code == 422
    assert response.get_json()["code"] == "mark_count_gap"
    board = Board.from_text(text, GOMOKU_7X7)
    assert calls["check_board", board] == 1


@pytest.mark.parametrize(
    ("text", "rules", "requested", "side", "status", "in_table"),
    [
        ("X...O....", Rules(3, 3, 3), None, Mark.X, GameStatus.IN_PROGRESS, True),
        ("X........", Rules(3, 3, 3), None, Mark.O, GameStatus.IN_PROGRESS, True),
        ("XXXOO....", Rules(3, 3, 3), None, Mark.O, GameStatus.X_WON, True),
        (".........", Rules(3, 3, 3), Mark.O, Mark.O, GameStatus.IN_PROGRESS, True),
        (SEARCHED, GOMOKU_7X7, Mark.O, Mark.O, GameStatus.IN_PROGRESS, False),
        (FINISHED_7X7, GOMOKU_7X7, None, Mark.O, GameStatus.X_WON, False),
    ],
)
def test_a_position_carries_its_side_to_move_status_and_source(
    engine: Engine,
    text: str,
    rules: Rules,
    requested: Mark | None,
    side: Mark,
    status: GameStatus,
    in_table: bool,
) -> None:
    position = engine.position(Board.from_text(text, rules), requested)
    assert (position.side_to_move, position.status, position.in_table) == (side, status, in_table)
    assert position.rules == rules


def test_a_player_who_is_not_to_move_is_refused(engine: Engine) -> None:
    with pytest.raises(IllegalPosition) as refused:
        engine.position(Board.from_text("X........"), Mark.X)
    assert refused.value.reason is Illegality.WRONG_PLAYER
    assert refused.value.about_player


@pytest.mark.parametrize(
    ("text", "difficulty", "searches"),
    [
        (SEARCHED, Difficulty.PERFECT, True),
        (SEARCHED, Difficulty.HARD, True),
        (SEARCHED, Difficulty.MEDIUM, False),
        (SEARCHED, Difficulty.EASY, False),
        (SEARCHED, None, True),  # an analysis
        (FINISHED_7X7, Difficulty.PERFECT, False),  # nothing left to search
        (FINISHED_7X7, None, False),
    ],
)
def test_only_games_in_progress_beyond_the_tables_search_and_only_for_levels_that_play_best(
    engine: Engine, text: str, difficulty: Difficulty | None, searches: bool
) -> None:
    position = engine.position(Board.from_text(text, GOMOKU_7X7))
    assert position.searches_for(difficulty) is searches


@pytest.mark.parametrize("difficulty", [*Difficulty, None])
def test_a_table_answer_never_searches(engine: Engine, difficulty: Difficulty | None) -> None:
    position = engine.position(Board.from_text(CLASSIC))
    assert isinstance(position, Position)
    assert not position.searches_for(difficulty)

"""The m,n,k family over HTTP: rules in every request that takes a board, in every answer."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from service.game.board import Board, Mark
from service.game.engine import Engine
from service.game.rules import CLASSIC, FAMILY, Rules
from tests.helpers import CLASSIC_RULES, ServiceFactory, post_move


def rules_json(rules: Rules) -> dict[str, Any]:
    return {
        "rows": rules.rows,
        "cols": rules.cols,
        "k": rules.k,
        "misere": rules.misere,
        "variant": rules.variant.value,
    }


@pytest.mark.parametrize("rules", [r for r in FAMILY if r.cell_count <= 12], ids=str)
def test_every_game_up_to_twelve_cells_answers_the_engines_move_from_the_empty_board(
    client: FlaskClient, engine: Engine, rules: Rules
) -> None:
    body = {"board": "." * rules.cell_count, "rules": rules_json(rules)}
    answer = post_move(client, body)
    evaluation = engine.evaluate(Board.empty(rules), Mark.X)
    assert answer["best_moves"] == list(evaluation.best_moves)
    assert answer["move"] == evaluation.best_moves[0]
    assert answer["score"] == evaluation.score
    assert answer["rules"] == rules_json(rules)
    assert len(answer["board"]) == rules.cell_count


@pytest.mark.parametrize(
    ("board", "rules", "expected"),
    [
        ("." * 9, None, CLASSIC),
        ("." * 16, None, Rules(4, 4, 4)),
        ("." * 4, None, Rules(2, 2, 2)),
        ("X", None, Rules(1, 1, 1)),
        ("." * 12, {"rows": 3}, Rules(3, 4, 3)),
        ("." * 12, {"cols": 3}, Rules(4, 3, 3)),
        ("." * 8, {"rows": 2, "cols": 4, "k": 4}, Rules(2, 4, 4)),
        ([["", "", ""], ["", "", ""]], None, Rules(2, 3, 2)),
        ([[None] * 4] * 4, {"k": 3, "misere": True}, Rules(4, 4, 3, True)),
        ("." * 9, {"misere": True}, Rules(3, 3, 3, True)),
        ("." * 9, {"rows": None, "cols": None, "k": None}, CLASSIC),
    ],
)
def test_the_rules_come_from_the_request_and_the_boards_shape(
    client: FlaskClient, board: Any, rules: Any, expected: Rules
) -> None:
    body = {"board": board} if rules is None else {"board": board, "rules": rules}
    assert post_move(client, body)["rules"] == rules_json(expected)


def test_a_9_cell_board_without_rules_gets_the_answer_naming_the_classic_rules_gets(
    client: FlaskClient,
) -> None:
    for board in ("X...O....", "XX.OO....", ".........", "XXXOO...."):
        plain = post_move(client, {"board": board})
        named = post_move(client, {"board": board, "rules": CLASSIC_RULES})
        assert plain == named
        assert plain["rules"] == CLASSIC_RULES


def test_under_misere_completing_a_line_loses_and_shows_the_losers_line(
    client: FlaskClient,
) -> None:
    # On 1x3 with two in a row, X must play next to its mark or in the last cell: either way.
    answer = post_move(client, {"board": "X.O.", "rules": {"rows": 2, "k": 2, "misere": True}})
    # X to move on 2x2 (X at 0, O at 2): every move completes a line of X's, so X loses.
    assert (answer["outcome"], answer["status"], answer["winner"]) == ("loss", "o_won", "O")
    assert answer["winning_lines"] == [sorted([0, answer["move"]])]


def test_a_move_that_completes_a_line_wins_under_normal_rules(client: FlaskClient) -> None:
    answer = post_move(client, {"board": "XX..OO..........", "rules": {"k": 3}})
    assert (answer["move"], answer["status"], answer["winner"]) == (2, "x_won", "X")
    assert answer["winning_lines"] == [[0, 1, 2]]
    assert answer["score"] == 16


def test_the_cacheable_get_takes_the_rules_as_query_parameters(client: FlaskClient) -> None:
    query = "/v1/move?board=X...O...........&k=3&misere=1"
    answer = client.get(query)
    assert answer.status_code == 200
    assert answer.get_json()["rules"] == rules_json(Rules(4, 4, 3, misere=True))
    posted = post_move(client, {"board": "X...O...........", "rules": {"k": 3, "misere": True}})
    assert answer.get_json() == posted
    again = client.get(query, headers={"If-None-Match": answer.headers["ETag"]})
    assert again.status_code == 304


def test_the_analysis_ranks_every_move_of_a_larger_game_with_its_line(
    client: FlaskClient, engine: Engine
) -> None:
    rules = Rules(3, 4, 3)
    response = client.post("/v1/analysis", json={"board": "X....O......", "rules": {"rows": 3}})
    analysis = response.get_json()
    assert analysis["rules"] == rules_json(rules)
    assert len(analysis["moves"]) == 10
    expected = engine.move_scores(Board.from_text("X....O......", rules), Mark.X)
    assert {ranked["move"]: ranked["score"] for ranked in analysis["moves"]} == expected
    for ranked in analysis["moves"]:
        assert len(ranked["line"]) == ranked["plies_to_end"]


def test_a_batch_mixes_games_and_keeps_each_problem_in_its_slot(client: FlaskClient) -> None:
    items = [
        {"board": "........."},
        {"board": "." * 16, "rules": {"k": 3}},
        {"board": "." * 12},
        {"board": "." * 9, "rules": {"k": 9}},
    ]
    results = client.post("/v1/moves", json={"requests": items}).get_json()["results"]
    assert [result.get("code") for result in results] == [
        None,
        None,
        "board_does_not_fit",
        "k_out_of_range",
    ]
    assert results[1]["rules"]["k"] == 3


def test_a_seeded_level_below_perfect_is_reproducible_on_4x4(client: FlaskClient) -> None:
    body = {"board": "." * 16, "rules": {"k": 3}, "difficulty": "easy", "seed": 11}
    answers = {post_move(client, body)["move"] for _ in range(3)}
    assert len(answers) == 1


def test_the_service_is_not_ready_while_a_game_is_missing(make_service: ServiceFactory) -> None:
    partial = Engine.build([CLASSIC, Rules(4, 4, 4)])
    response = make_service(engine=partial).test_client().get("/readyz")
    assert response.status_code == 503
    assert response.get_json()["detail"] == "the solver does not hold every game of the family yet"


@pytest.mark.parametrize(
    ("rules", "words"),
    [
        ({"rows": 21}, "rows is 21, but a board has 1 to 20 rows"),
        ({"rows": 21, "cols": 21}, "rows is 21, but a board has 1 to 20 rows"),
        ({"cols": 21}, "cols is 21, but a board has 1 to 20 columns"),
        ({"rows": 0}, "rows is 0, but a board has 1 to 20 rows"),
        ({"rows": 5}, "the board has 9 cells, which do not fit 5 rows of 1 cells"),
    ],
)
def test_boards_beyond_20x20_are_refused_saying_why(
    client: FlaskClient, rules: dict[str, int], words: str
) -> None:
    answer = client.post("/v1/move", json={"board": "X...O....", "rules": rules})
    assert answer.status_code == 422
    assert answer.get_json()["detail"] == words

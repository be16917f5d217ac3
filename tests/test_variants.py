"""The variants on every endpoint: standard (exactly k in a row wins, an overline does not)
and caro (exactly k, unless the opponent holds both ends).

Small games are held position by position to the independent reference in test_family.py;
here, what a player of these rules expects on a big board, and the contract.
"""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from service.game.analysis import analyse
from service.game.board import Board, GameStatus, Mark
from service.game.rules import Rules, Variant
from service.game.search import search
from tests.helpers import gomoku_board, post_move

FREESTYLE = Rules(15, 15, 5)
STANDARD = Rules(15, 15, 5, variant=Variant.STANDARD)

#: Row 7 of 15x15: O X X X X . X, so cell 112 (row 7, column 7) makes six in a row.
OVERLINE_AT = 7 * 15 + 7
OVERLINE_ONLY = {
    (7, 2): "O", (7, 3): "X", (7, 4): "X", (7, 5): "X", (7, 6): "X", (7, 8): "X",
    (0, 0): "O", (0, 14): "O", (14, 0): "O", (14, 14): "O",
}  # fmt: skip


def overline_board(rules: Rules) -> Board:
    """Return the board where X's only five would be six: O to move, one mark fewer."""
    return gomoku_board(OVERLINE_ONLY, rules)


def test_six_in_a_row_wins_freestyle_and_does_not_end_a_standard_game() -> None:
    for rules, status in ((FREESTYLE, GameStatus.X_WON), (STANDARD, GameStatus.IN_PROGRESS)):
        board = overline_board(rules).play(OVERLINE_AT, Mark.X)
        assert board.status() is status
    assert overline_board(FREESTYLE).completing(Mark.X) == (OVERLINE_AT,)
    assert overline_board(STANDARD).completing(Mark.X) == ()


def test_a_cell_that_makes_an_overline_is_no_threat_to_block() -> None:
    freestyle = search(overline_board(FREESTYLE), Mark.O, 60.0, max_nodes=3000)
    standard = search(overline_board(STANDARD), Mark.O, 60.0, max_nodes=3000)
    assert freestyle.move == OVERLINE_AT  # the only block
    assert standard.move != OVERLINE_AT or not standard.proven
    assert standard.score is None or standard.score > -(STANDARD.max_score - 2)


def test_a_five_exactly_is_still_found_at_once() -> None:
    """X to move: column 7 is taken by O's blocker, but a five on the other side is exact."""
    marks = {**OVERLINE_ONLY, (7, 2): ".", (7, 7): "O", (6, 0): "O"}
    del marks[(7, 2)]
    board = gomoku_board(marks, STANDARD)
    found = search(board, Mark.X, 60.0, max_nodes=3000)
    assert (found.move, found.proven, found.score) == (7 * 15 + 2, True, STANDARD.max_score - 1)
    ranked = analyse(board, Mark.X, 60.0, max_nodes=3000)
    assert ranked.moves[0].move == 7 * 15 + 2


CARO = Rules(15, 15, 5, variant=Variant.CARO)

#: Row 7: O . X X X X . O, O to move. X completes a five on either empty cell; but O on
#: one closes the other's five at both ends, so in caro either saves the game.
CLOSABLE_FOUR = {
    (7, 2): "O", (7, 4): "X", (7, 5): "X", (7, 6): "X", (7, 7): "X", (7, 9): "O",
    (0, 0): "O",
}  # fmt: skip
SAVING = {7 * 15 + 3, 7 * 15 + 8}


def test_in_caro_a_five_closed_at_both_ends_does_not_win_and_the_edge_closes_none() -> None:
    closed = gomoku_board({**CLOSABLE_FOUR, (7, 3): "X", (7, 8): "O"}, CARO)
    assert closed.status() is GameStatus.IN_PROGRESS
    at_the_edge = {(7, col): "X" for col in range(5)} | {(7, 5): "O", (0, 0): "O"}
    assert gomoku_board({**at_the_edge, (1, 1): "O", (2, 2): "O", (3, 3): "O"}, CARO).status() is (
        GameStatus.X_WON
    )


def test_in_caro_two_fives_one_move_closes_are_no_proven_loss() -> None:
    standard = search(gomoku_board(CLOSABLE_FOUR, STANDARD), Mark.O, 60.0, max_nodes=3000)
    assert (standard.proven, standard.score) == (True, -(STANDARD.max_score - 2))
    board = gomoku_board(CLOSABLE_FOUR, CARO)
    assert set(board.completing(Mark.X)) == SAVING
    caro = search(board, Mark.O, 60.0, max_nodes=3000)
    assert caro.move in SAVING
    assert not (caro.proven and caro.score is not None and caro.score < 0)
    assert board.play(caro.move, Mark.O).completing(Mark.X) == ()
    ranked = analyse(board, Mark.O, 60.0, max_nodes=3000)
    assert ranked.moves[0].move in SAVING


# --- over HTTP ---


def test_the_variant_is_named_in_the_rules_and_echoed_in_every_answer(
    client: FlaskClient,
) -> None:
    board = overline_board(STANDARD).to_text()
    body = {"board": board, "rules": {"variant": "standard"}}
    answer = post_move(client, body)
    assert answer["rules"] == {
        "rows": 15, "cols": 15, "k": 5, "misere": False, "variant": "standard",
    }  # fmt: skip
    assert post_move(client, {"board": board})["rules"]["variant"] == "freestyle"
    analysis = post_move(client, {**body, "budget_ms": 100}, "/v1/analysis")
    assert analysis["rules"]["variant"] == "standard"
    got = client.get(f"/v1/move?board={board}&variant=standard").get_json()
    assert got["rules"]["variant"] == "standard"
    batch = post_move(client, {"requests": [body, {"board": board}]}, "/v1/moves")
    assert [item["rules"]["variant"] for item in batch["results"]] == ["standard", "freestyle"]


def test_an_overline_does_not_end_the_game_over_http(client: FlaskClient) -> None:
    board = overline_board(STANDARD).play(OVERLINE_AT, Mark.X).to_text()
    freestyle = post_move(client, {"board": board, "rules": {"variant": "freestyle"}})
    standard = post_move(client, {"board": board, "rules": {"variant": "standard"}})
    assert (freestyle["status"], freestyle["move"]) == ("x_won", None)
    assert standard["status"] == "in_progress"
    assert standard["move"] is not None


def test_a_small_standard_game_is_answered_from_its_own_table(client: FlaskClient) -> None:
    """2x4, two in a row, X to move on X . X O / O . . .: freestyle, cell 1 wins too; in
    the standard variant it makes three, which does not, and the other pairs do."""
    body = {"board": "X.XOO...", "rules": {"rows": 2, "k": 2}}
    freestyle = post_move(client, body)
    standard = post_move(client, {**body, "rules": {"rows": 2, "k": 2, "variant": "standard"}})
    assert (freestyle["outcome"], freestyle["best_moves"]) == ("win", [1, 5, 6, 7])
    assert (standard["outcome"], standard["best_moves"]) == ("win", [5, 6, 7])
    assert standard["status"] == "x_won"
    assert "search" not in standard


def test_a_small_caro_game_is_answered_from_its_own_table(client: FlaskClient) -> None:
    """1x4, two in a row, O to move on X O . X: O's pair on cell 2 wins in standard, but X
    holds both its ends, so in caro it fills the board for a draw."""
    standard = post_move(client, {"board": "XO.X", "rules": {"rows": 1, "variant": "standard",
                                                             "k": 2}})  # fmt: skip
    caro = post_move(client, {"board": "XO.X", "rules": {"rows": 1, "variant": "caro", "k": 2}})
    assert (standard["outcome"], standard["status"]) == ("win", "o_won")
    assert (caro["outcome"], caro["status"], caro["move"]) == ("draw", "draw", 2)
    assert caro["rules"]["variant"] == "caro"


def test_a_caro_board_no_order_of_play_reaches_is_refused(client: FlaskClient) -> None:
    """2x4, two in a row: O's pair on cells 1 and 2 is closed by X at both ends, but with X
    to answer after each O, it was completed before X closed it."""
    response = client.post(
        "/v1/move", json={"board": "XOOX.O..", "rules": {"rows": 2, "k": 2, "variant": "caro"}}
    )
    assert response.status_code == 422
    assert response.get_json()["code"] == "play_after_win"


def test_moves_are_played_under_the_variant(client: FlaskClient) -> None:
    rules = {"rows": 2, "cols": 4, "k": 2, "variant": "standard"}
    answer = post_move(client, {"moves": [0, 3, 2, 4], "rules": rules})
    assert (answer["best_moves"], answer["status"]) == ([5, 6, 7], "x_won")


def test_a_move_list_goes_on_past_an_overline_that_does_not_count(client: FlaskClient) -> None:
    """Under standard, X's sixth stone in a row makes an overline, which neither wins nor
    ends the game: the moves after it are played (a move list once ended the game there)."""
    x_row, o_row = [0, 1, 3, 4, 5, 2], [30, 31, 32, 48, 134, 200]
    moves = [cell for pair in zip(x_row, o_row, strict=True) for cell in pair]
    rules = {"rows": 15, "cols": 15, "variant": "standard"}
    answer = post_move(client, {"moves": moves, "rules": rules, "difficulty": "medium", "seed": 1})
    assert answer["status"] == "in_progress"
    freestyle = client.post("/v1/move", json={"moves": moves, "rules": {"rows": 15, "cols": 15}})
    assert freestyle.get_json()["code"] == "move_after_end"


@pytest.mark.parametrize(
    ("rules", "code"),
    [
        ({"variant": "standard", "misere": True}, "variant_with_misere"),
        ({"variant": "caro", "misere": True}, "variant_with_misere"),
        ({"variant": "renju", "misere": True}, "variant_with_misere"),
        ({"variant": "gomoku"}, "invalid_request"),
        ({"variant": None}, "invalid_request"),
    ],
)
def test_a_variant_outside_the_service_or_with_misere_is_refused(
    client: FlaskClient, rules: dict[str, object], code: str
) -> None:
    response = client.post("/v1/move", json={"board": "." * 225, "rules": rules})
    assert response.status_code == 422
    assert response.content_type == "application/problem+json"
    problem = response.get_json()
    assert problem["code"] == code
    assert problem["errors"][0]["loc"] == ["rules", "variant"]

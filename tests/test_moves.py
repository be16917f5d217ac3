"""Games sent as the moves played: the board they make, answered exactly as that board."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st

from service.game.board import Board, Mark
from service.game.moves import InvalidMoves, MovesProblem, game_after
from service.game.rules import Rules
from tests.helpers import without_time

CLASSIC = Rules(3, 3, 3)


def test_every_game_of_tic_tac_toe_as_moves_makes_its_board() -> None:
    """Every order of play of every game, each prefix: the board the moves make is the board
    played move by move; a move after the end, or on a taken cell, is refused."""
    games = 0

    def walk(moves: list[int], board: Board, mover: Mark) -> None:
        nonlocal games
        games += 1
        assert game_after(moves, CLASSIC).board == board
        over = board.status().is_over
        for cell in range(9):
            if board.cells[cell] is not None:
                continue
            if over:
                with pytest.raises(InvalidMoves) as refused:
                    game_after([*moves, cell], CLASSIC)
                assert refused.value.problem is MovesProblem.MOVE_AFTER_END
                assert refused.value.index == len(moves)
            else:
                walk([*moves, cell], board.play(cell, mover), mover.opponent)

    walk([], Board.empty(CLASSIC), Mark.X)
    assert games == 549_946  # every sequence of moves of every game, the empty one included


@pytest.mark.parametrize(
    ("moves", "rules", "problem", "index"),
    [
        ([4, 9], CLASSIC, MovesProblem.MOVE_OUT_OF_RANGE, 1),
        ([-1], CLASSIC, MovesProblem.MOVE_OUT_OF_RANGE, 0),
        ([224, 225], Rules(15, 15, 5), MovesProblem.MOVE_OUT_OF_RANGE, 1),
        ([4, 0, 4], CLASSIC, MovesProblem.MOVE_REPEATED, 2),
        # Under misère completing a line ends the game too, lost by its maker.
        ([0, 3, 1, 4, 2, 5], Rules(3, 3, 3, misere=True), MovesProblem.MOVE_AFTER_END, 5),
        # A line of one: the first move completes it.
        ([0, 1], Rules(2, 2, 1), MovesProblem.MOVE_AFTER_END, 1),
    ],
)
def test_a_list_no_game_plays_is_refused_at_its_first_bad_move(
    moves: list[int], rules: Rules, problem: MovesProblem, index: int
) -> None:
    with pytest.raises(InvalidMoves) as refused:
        game_after(moves, rules)
    assert (refused.value.problem, refused.value.index) == (problem, index)


def test_the_empty_list_is_the_empty_board() -> None:
    assert game_after([], Rules(15, 15, 5)).board == Board.empty(Rules(15, 15, 5))


# --- Every endpoint answers the moves exactly as the board they make ---


def random_game(rules: Rules, data: st.DataObject) -> list[int]:
    """Draw a game's moves, each on an empty cell, stopping at its end or at random."""
    cells = data.draw(st.permutations(range(rules.cell_count)))
    length = data.draw(st.integers(0, rules.cell_count))
    board, mover, moves = Board.empty(rules), Mark.X, []
    for cell in cells[:length]:
        if board.status().is_over:
            break
        board, mover = board.play(cell, mover), mover.opponent
        moves.append(cell)
    return moves


def text_of(moves: list[int], rules: Rules) -> str:
    return game_after(moves, rules).board.to_text()


def as_rules(rules: Rules) -> dict[str, Any]:
    return {"rows": rules.rows, "cols": rules.cols, "k": rules.k, "misere": rules.misere}


@settings(max_examples=60, deadline=None)
@given(
    rules=st.sampled_from([CLASSIC, Rules(3, 3, 3, misere=True), Rules(4, 4, 3), Rules(3, 4, 3)]),
    data=st.data(),
)
def test_a_move_request_as_moves_gets_the_boards_answer(
    client: FlaskClient, rules: Rules, data: st.DataObject
) -> None:
    moves = random_game(rules, data)
    by_moves = client.post("/v1/move", json={"moves": moves, "rules": as_rules(rules)})
    by_board = client.post(
        "/v1/move", json={"board": text_of(moves, rules), "rules": as_rules(rules)}
    )
    assert by_moves.status_code == by_board.status_code == 200
    assert by_moves.get_json() == by_board.get_json()


def test_an_analysis_as_moves_gets_the_boards_analysis(client: FlaskClient) -> None:
    moves = [5, 0, 10]
    rules = {"rows": 4, "cols": 4, "k": 3}
    by_moves = client.post("/v1/analysis", json={"moves": moves, "rules": rules})
    by_board = client.post(
        "/v1/analysis", json={"board": text_of(moves, Rules(4, 4, 3)), "rules": rules}
    )
    assert by_moves.status_code == 200
    assert by_moves.get_json() == by_board.get_json()


def test_a_gomoku_game_as_moves_gets_the_boards_answer(client: FlaskClient) -> None:
    """Beyond the tables, at a level that does not search: the same seeded choice."""
    moves = [112, 113, 97, 98, 127]
    common = {"rules": {"rows": 15, "cols": 15, "k": 5}, "difficulty": "medium", "seed": 3}
    by_moves = client.post("/v1/move", json={"moves": moves, **common})
    by_board = client.post("/v1/move", json={"board": text_of(moves, Rules(15, 15, 5)), **common})
    assert by_moves.status_code == 200
    assert without_time(by_moves.get_json()) == without_time(by_board.get_json())


def test_one_side_names_a_square_board_for_moves(client: FlaskClient) -> None:
    answer = client.post("/v1/move", json={"moves": [], "rules": {"rows": 5, "k": 4}})
    assert answer.status_code == 200
    assert len(answer.get_json()["board"]) == 25


def test_the_get_takes_moves_comma_separated_and_caches_them_as_the_board(
    client: FlaskClient,
) -> None:
    by_moves = client.get("/v1/move?moves=4,0,8")
    by_board = client.get("/v1/move?board=O...X...X")
    assert by_moves.status_code == 200
    assert by_moves.get_json() == by_board.get_json()
    assert by_moves.headers["ETag"] == by_board.headers["ETag"]
    assert (
        client.get("/v1/move?moves=").get_json()
        == client.get("/v1/move?board=.........").get_json()
    )


def test_a_batch_item_as_moves_gets_the_boards_answer_and_its_own_problem(
    client: FlaskClient,
) -> None:
    results = client.post(
        "/v1/moves",
        json={"requests": [{"moves": [4, 0]}, {"moves": [4, 0, 4]}, {"board": "O...X...."}]},
    ).get_json()["results"]
    assert results[0] == results[2]
    assert results[1]["code"] == "move_repeated"
    assert results[1]["errors"][0]["loc"] == ["moves", 2]


@pytest.mark.parametrize(
    ("body", "code", "loc"),
    [
        ({"moves": [4, 9]}, "move_out_of_range", ["moves", 1]),
        ({"moves": [4, 0, 4]}, "move_repeated", ["moves", 2]),
        ({"moves": [0, 3, 1, 4, 2, 5]}, "move_after_end", ["moves", 5]),
        ({"moves": [4], "board": "....X...."}, "board_and_moves", ["moves"]),
        ({"moves": [225], "rules": {"rows": 15, "cols": 15}}, "move_out_of_range", ["moves", 0]),
    ],
)
def test_a_list_no_game_plays_gets_its_code_and_the_move_it_fails_at(
    client: FlaskClient, body: dict[str, Any], code: str, loc: list[Any]
) -> None:
    for path in ("/v1/move", "/v1/analysis"):
        response = client.post(path, json=body)
        assert response.status_code == 422
        assert response.content_type == "application/problem+json"
        problem = response.get_json()
        assert (problem["code"], problem["errors"][0]["loc"]) == (code, loc)


def test_a_request_without_board_or_moves_is_refused_as_before_moves_existed(
    client: FlaskClient,
) -> None:
    for body in ({}, {"moves": None}):
        problem = client.post("/v1/move", json=body).get_json()
        assert (problem["code"], problem["errors"]) == (
            "invalid_request",
            [{"loc": ["board"], "msg": "is required"}],
        )

"""Renju served: the variant's rules, black's forbidden cells in every answer, a foul that
ends a game sent as moves, no level and no analysis ever on a foul, and a search that proves
nothing through one."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from benchmarks.renju_judges import crowded_position
from service.game import compiled
from service.game.analysis import analyse
from service.game.board import Board, GameStatus, Mark
from service.game.engine import Engine
from service.game.legality import Illegality, IllegalPosition
from service.game.renju import Foul, forbidden_cells, foul
from service.game.rules import InvalidRules, Rules, RulesProblem, Variant
from service.game.search import Method, Search, search
from tests import search_reference as brute
from tests.helpers import gomoku_board, post_move, reference_game
from tests.renju_reference import reference_forbidden

RENJU = Rules(15, 15, 5, variant=Variant.RENJU)
RENJU_RULES = {"rows": 15, "cols": 15, "variant": "renju"}
LEVELS = ("perfect", "hard", "medium", "easy")


def cell(row: int, col: int) -> int:
    """Return the index of a 15x15 cell."""
    return row * 15 + col


#: Black's twos in row 7 and column 7 cross at (7, 7): a double three there. White's stones
#: stand apart, on the top row.
DOUBLE_THREE_AT = cell(7, 7)
DOUBLE_THREE_GAME = [
    *(cell(7, 5), cell(0, 0), cell(7, 6), cell(0, 2)),
    *(cell(5, 7), cell(0, 4), cell(6, 7), cell(0, 6)),
]


def renju_board(marks: dict[tuple[int, int], str]) -> Board:
    """Return a 15x15 renju board with these marks, keyed by (row, column)."""
    return gomoku_board(marks, RENJU)


def refused(client: FlaskClient, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/v1/move", json=body)
    assert response.status_code == 422, response.get_json()
    assert response.content_type == "application/problem+json"
    problem: dict[str, Any] = response.get_json()
    return problem


# --- the rules ---


@pytest.mark.parametrize(
    ("rules", "cells", "code", "field"),
    [
        ({"k": 4, "variant": "renju"}, 225, "renju_k", "k"),
        ({"k": 6, "variant": "renju"}, 225, "renju_k", "k"),
        ({"rows": 4, "cols": 20, "variant": "renju"}, 80, "renju_board_too_small", "variant"),
        # k would default to five, beyond a 4x4 board's lines: the board is the reason.
        ({"variant": "renju"}, 16, "renju_board_too_small", "variant"),
        ({"variant": "renju"}, 9, "renju_board_too_small", "variant"),
        ({"variant": "renju", "misere": True}, 225, "variant_with_misere", "variant"),
    ],
)
def test_renju_is_five_in_a_row_on_5x5_or_more_and_never_misere(
    client: FlaskClient, rules: dict[str, Any], cells: int, code: str, field: str
) -> None:
    problem = refused(client, {"board": "." * cells, "rules": rules})
    assert problem["code"] == code
    assert problem["errors"][0]["loc"] == ["rules", field]


def test_renju_is_gomocup_rule_4_and_its_own_game_on_every_board() -> None:
    assert Variant.RENJU.gomocup_rule == 4
    # On 5x5 no overline fits, but double threes and fours do: still renju, not freestyle.
    assert Rules(5, 5, 5, variant=Variant.RENJU).same_game.variant is Variant.RENJU
    with pytest.raises(InvalidRules) as too_small:
        Rules(4, 4, 4, variant=Variant.RENJU)
    assert too_small.value.problem is RulesProblem.RENJU_BOARD_TOO_SMALL


def test_black_wins_with_exactly_five_and_white_with_five_or_more() -> None:
    black_five = {**{(7, col): "X" for col in range(3, 8)}, **{(0, c): "O" for c in range(0, 8, 2)}}
    assert renju_board(black_five).status() is GameStatus.X_WON
    white_six = {**{(7, col): "O" for col in range(3, 9)}}
    white_six |= dict.fromkeys(((0, 0), (0, 2), (0, 4), (2, 0), (2, 2), (2, 4)), "X")
    white_wins = renju_board(white_six)
    assert white_wins.status() is GameStatus.O_WON
    assert white_wins.completed_lines()  # white's overline is white's win
    assert not white_wins.overlines()


def test_a_black_overline_is_a_foul_that_white_has_won_by() -> None:
    black_six = {**{(7, col): "X" for col in range(3, 9)}}
    black_six |= dict.fromkeys(((0, 0), (0, 2), (0, 4), (2, 0), (2, 2)), "O")
    board = renju_board(black_six)
    assert board.status() is GameStatus.O_WON
    assert board.completed_lines() == ()  # no line won: black fouled
    assert len(board.overlines()) == 2
    # Under freestyle the same stones are black's win.
    assert Board(board.cells, Rules(15, 15, 5)).status() is GameStatus.X_WON


# --- legality ---


def test_white_never_moves_first() -> None:
    engine = Engine({})
    with pytest.raises(IllegalPosition) as white_first:
        engine.position(renju_board({(7, 7): "O"}))
    assert white_first.value.reason is Illegality.BLACK_MOVES_FIRST
    with pytest.raises(IllegalPosition) as wrong_player:
        engine.position(Board.empty(RENJU), Mark.O)
    assert wrong_player.value.reason is Illegality.WRONG_PLAYER
    assert engine.position(Board.empty(RENJU)).side_to_move is Mark.X


def test_no_move_comes_after_black_overline_or_five() -> None:
    engine = Engine({})
    black_six = {**{(7, col): "X" for col in range(3, 9)}}
    black_six |= dict.fromkeys(((0, 0), (0, 2), (0, 4), (2, 0), (2, 2), (2, 4)), "O")
    with pytest.raises(IllegalPosition) as after_foul:
        engine.position(renju_board(black_six))
    assert after_foul.value.reason is Illegality.PLAY_AFTER_WIN
    black_five = {**{(7, col): "X" for col in range(3, 8)}}
    black_five |= dict.fromkeys(((0, 0), (0, 2), (0, 4), (2, 0), (2, 2)), "O")
    with pytest.raises(IllegalPosition) as after_five:
        engine.position(renju_board(black_five))
    assert after_five.value.reason is Illegality.PLAY_AFTER_WIN


# --- the answers' forbidden cells ---


def test_forbidden_cells_come_with_every_renju_answer_when_black_is_to_move(
    client: FlaskClient,
) -> None:
    body = {"moves": DOUBLE_THREE_GAME, "rules": RENJU_RULES, "budget_ms": 50}
    answer = post_move(client, body)
    assert answer["forbidden"] == [DOUBLE_THREE_AT]
    assert answer["foul"] is None
    assert answer["move"] != DOUBLE_THREE_AT
    analysis = post_move(client, body, "/v1/analysis")
    assert analysis["forbidden"] == [DOUBLE_THREE_AT]
    assert analysis["foul"] is None
    assert DOUBLE_THREE_AT not in [ranked["move"] for ranked in analysis["moves"]]


def test_white_to_move_has_no_forbidden_cells_but_the_answer_gives_blacks_after_it(
    client: FlaskClient,
) -> None:
    body = {"moves": DOUBLE_THREE_GAME[:-1], "rules": RENJU_RULES, "budget_ms": 50}
    answer = post_move(client, body)
    assert answer["player"] == "O"
    assert answer["forbidden"] == []
    after = Board.from_text("".join(mark or "." for mark in answer["board"]), RENJU)
    assert answer["forbidden_after"] == list(forbidden_cells(after))
    assert answer["forbidden_after"] == sorted(reference_forbidden(after))


def test_answers_under_other_variants_carry_no_renju_fields(client: FlaskClient) -> None:
    for rules in ({"rows": 15, "cols": 15}, {"rows": 15, "cols": 15, "variant": "standard"}):
        body = {"moves": DOUBLE_THREE_GAME, "rules": rules, "budget_ms": 20}
        for path in ("/v1/move", "/v1/analysis"):
            answer = post_move(client, body, path)
            assert not {"forbidden", "forbidden_after", "foul"} & set(answer)
    assert "forbidden" not in post_move(client, {"board": "." * 9})


@pytest.mark.parametrize("seed", range(6))
def test_forbidden_cells_are_the_independent_judges_and_no_level_plays_one(
    client: FlaskClient, seed: int
) -> None:
    """Seeded game positions crowded with black's rows, black to move."""
    rng = random.Random(seed)
    board = Board(crowded_position(rng, alternate=True).cells, RENJU)
    expected = sorted(reference_forbidden(board))
    text = board.to_text()
    for level in LEVELS:
        body = {"board": text, "rules": RENJU_RULES, "difficulty": level, "seed": seed}
        answer = post_move(client, {**body, "budget_ms": 30})
        assert answer["forbidden"] == expected
        assert answer["move"] not in expected
    analysis = post_move(
        client, {"board": text, "rules": RENJU_RULES, "budget_ms": 30}, "/v1/analysis"
    )
    assert analysis["forbidden"] == expected
    assert not {ranked["move"] for ranked in analysis["moves"]} & set(expected)


# --- a foul ends the game ---


def test_a_black_foul_in_a_move_list_ends_the_game_and_says_why(client: FlaskClient) -> None:
    moves = [*DOUBLE_THREE_GAME, DOUBLE_THREE_AT]
    for path in ("/v1/move", "/v1/analysis"):
        answer = post_move(client, {"moves": moves, "rules": RENJU_RULES}, path)
        assert answer["status"] == "o_won"
        assert answer["foul"] == {"move": 8, "cell": DOUBLE_THREE_AT, "foul": "double_three"}
        assert answer["forbidden"] == []
    answer = post_move(client, {"moves": moves, "rules": RENJU_RULES})
    assert (answer["move"], answer["winner"], answer["next_player"]) == (None, "O", None)
    # The same board without its order is a game in progress: a double three does not show.
    board = post_move(client, {"board": answer["board"], "rules": RENJU_RULES, "budget_ms": 20})
    assert board["status"] == "in_progress"


def test_a_move_after_a_foul_is_refused(client: FlaskClient) -> None:
    problem = refused(
        client, {"moves": [*DOUBLE_THREE_GAME, DOUBLE_THREE_AT, cell(0, 8)], "rules": RENJU_RULES}
    )
    assert problem["code"] == "move_after_end"
    assert problem["errors"][0]["loc"] == ["moves", 9]
    assert "double three at cell 112 was a foul" in problem["detail"]


def test_a_board_with_a_black_overline_is_over_and_says_so(client: FlaskClient) -> None:
    black_six = {**{(7, col): "X" for col in range(3, 9)}}
    black_six |= dict.fromkeys(((0, 0), (0, 2), (0, 4), (2, 0), (2, 2)), "O")
    answer = post_move(client, {"board": renju_board(black_six).to_text(), "rules": RENJU_RULES})
    assert (answer["status"], answer["move"], answer["winning_lines"]) == ("o_won", None, [])
    # Six in a row: any of the middle four stones could have come last.
    assert answer["foul"] == {"move": None, "cell": None, "foul": "overline"}


def test_an_overline_made_by_one_known_stone_names_it(client: FlaskClient) -> None:
    """Two overlines crossing at one stone: that stone came last."""
    black = {(5, col): "X" for col in (2, 3, 4, 6, 7, 8)} | {
        (row, 5): "X" for row in (2, 3, 4, 6, 7, 8)
    }
    black[(5, 5)] = "X"
    white = {(0, col): "O" for col in range(0, 14, 2)} | {(14, col): "O" for col in range(0, 10, 2)}
    board = renju_board({**black, **white})
    assert board.count(Mark.X) == board.count(Mark.O) + 1
    answer = post_move(client, {"board": board.to_text(), "rules": RENJU_RULES})
    assert answer["foul"] == {"move": None, "cell": cell(5, 5), "foul": "overline"}


def test_a_game_as_moves_gets_the_answer_to_its_board(client: FlaskClient) -> None:
    rules = Rules(15, 15, 5, variant=Variant.RENJU)
    board = Board.empty(rules)
    for index, move in enumerate(DOUBLE_THREE_GAME):
        board = board.play(move, Mark.X if index % 2 == 0 else Mark.O)
    for path in ("/v1/move", "/v1/analysis"):
        common = {"rules": RENJU_RULES, "difficulty": "medium", "seed": 3}
        if path == "/v1/analysis":
            common = {"rules": RENJU_RULES, "budget_ms": 20}
        as_moves = post_move(client, {"moves": DOUBLE_THREE_GAME, **common}, path)
        as_board = post_move(client, {"board": board.to_text(), **common}, path)
        for answer in (as_moves, as_board):
            answer.pop("search", None)
            for ranked in answer.get("moves", []):
                ranked.pop("evaluation")
        if path == "/v1/analysis":
            # A search's values depend on its time; the moves ranked do not change.
            assert as_moves["forbidden"] == as_board["forbidden"]
            continue
        assert as_moves == as_board


# --- the search proves nothing through a foul ---

#: White's four on row 10, closed on the left by black, completes at (10, 7), where black's
#: column and diagonal twos would make a double three: black's only stop is a foul.
STOP_IS_A_FOUL = renju_board(
    {(10, col): "O" for col in range(3, 7)}
    | {(0, 14): "O"}
    | {(10, 2): "X", (8, 7): "X", (9, 7): "X", (8, 5): "X", (9, 6): "X"}
)


def test_when_blacks_only_stop_is_a_foul_black_has_lost_in_two(client: FlaskClient) -> None:
    stop = cell(10, 7)
    assert foul(STOP_IS_A_FOUL, stop) is Foul.DOUBLE_THREE
    body = {"board": STOP_IS_A_FOUL.to_text(), "rules": RENJU_RULES}
    answer = post_move(client, body)
    assert answer["move"] != stop
    assert (answer["outcome"], answer["plies_to_end"]) == ("loss", 2)
    assert answer["search"]["method"] == "rules"
    analysis = post_move(client, body, "/v1/analysis")
    assert (analysis["outcome"], analysis["plies_to_end"]) == ("loss", 2)
    assert stop not in [ranked["move"] for ranked in analysis["moves"]]


def test_black_proves_a_run_of_fours_under_renju_that_passes_no_foul() -> None:
    """Black's open three on an otherwise quiet board: its straight four is no foul, so
    under renju the run of fours wins as under freestyle, proven, exactly (three plies),
    and the analysis proves the same and ranks the move first."""
    marks = {(7, 6): "X", (7, 7): "X", (7, 8): "X", (0, 0): "O", (0, 14): "O", (14, 0): "O"}
    for rules in (Rules(15, 15, 5), RENJU):
        board = Board(gomoku_board(marks).cells, rules)
        found = search(board, Mark.X, 60.0, max_nodes=20_000)
        assert (found.method, found.proven) == (Method.THREATS, True)
        assert (found.move, found.score) == (cell(7, 5), rules.max_score - 3)
        ranked = analyse(board, Mark.X, 60.0, max_nodes=20_000)
        assert ranked.score == rules.max_score - 3
        assert (ranked.moves[0].move, ranked.moves[0].score) == (cell(7, 5), ranked.score)


def test_a_double_four_in_one_line_is_no_run_of_fours_for_black() -> None:
    """Black's X.X.X.X: its stone in the middle gap makes two fives to stop, a win in three
    under freestyle; under renju that is a double four in one line, a foul, and the run of
    one four finds nothing (the other gaps make one four each)."""
    marks = {(7, 3): "X", (7, 5): "X", (7, 7): "X", (7, 9): "X"}
    marks |= {(0, 0): "O", (0, 14): "O", (14, 0): "O", (14, 14): "O"}
    runs = {}
    for rules in (Rules(15, 15, 5), RENJU):
        board = Board(gomoku_board(marks).cells, rules)
        searched = Search(board, Mark.X, 60.0, max_nodes=20_000)
        runs[rules.variant] = searched._compiled(compiled.threat_search.shortest_run_of_fours, 1, 1)
    assert cell(7, 6) in forbidden_cells(Board(gomoku_board(marks).cells, RENJU))
    assert runs == {Variant.FREESTYLE: (3, cell(7, 6)), Variant.RENJU: (0, -1)}


def test_a_five_to_stop_on_blacks_double_four_in_one_line_cannot_be_stopped() -> None:
    """White's four down column 6 has one cell left, (7, 6), the middle gap of black's
    X.X.X.X: black's stone there would make X.XXX.X, two fours in one line, a foul. Black
    cannot stop the five and has lost, as the tree reads the node; with the row's last
    stone gone (X.XXX.: one four), black blocks and nothing is decided."""
    black = {(7, 3): "X", (7, 5): "X", (7, 7): "X", (7, 9): "X", (2, 6): "X"}
    white = {(3, 6): "O", (4, 6): "O", (5, 6): "O", (6, 6): "O", (14, 14): "O"}
    block = cell(7, 6)
    for marks, lost in ((black | white, True), ({**black, (7, 9): "."} | white, False)):
        board = Board(
            gomoku_board({at: mark for at, mark in marks.items() if mark != "."}).cells, RENJU
        )
        assert (block in forbidden_cells(board)) is lost  # the judge's reading
        geometry, state, _table, _limits = Search(board, Mark.X, 60.0).kernel
        assert bool(compiled.fouls._blocking_foul(geometry, state, block)) is lost
        assert bool(compiled.fouls._shape_foul(state, block)) is lost
        below_the_root, depth = 1, 3
        decided = compiled.tree.decided(geometry, state, 1, depth, below_the_root, False)
        assert decided == (-compiled.evaluation.SHAPE_WIN if lost else 0)


def test_blacks_open_four_decides_a_node_only_where_it_is_no_foul() -> None:
    """Black's X.X.X.X, black to move: the shapes show an open four to make at (7, 6), but
    it is a double four in one line, a foul; the node is searched, not read as won. With a
    straight four to make instead (.XXX. in row 9), it is read as won, as in freestyle."""
    corners = {(0, 0): "O", (0, 14): "O", (14, 0): "O", (14, 14): "O"}
    in_one_line = {(7, 3): "X", (7, 5): "X", (7, 7): "X", (7, 9): "X"}
    straight = {(9, 5): "X", (9, 6): "X", (9, 7): "X", (3, 3): "X"}
    below_the_root, depth = 1, 3
    for marks, won in ((in_one_line, False), (straight, True)):
        board = Board(gomoku_board(marks | corners).cells, RENJU)
        geometry, state, _table, _limits = Search(board, Mark.X, 60.0).kernel
        assert state[10][1, compiled.shapes.OPEN_FOUR] > 0  # the tally's reading, foul or not
        decided = compiled.tree.decided(geometry, state, 1, depth, below_the_root, False)
        assert decided == (compiled.evaluation.SHAPE_WIN if won else 0)


@pytest.mark.parametrize("seed", range(6))
def test_no_cell_the_threat_search_lets_black_play_is_a_foul(seed: int) -> None:
    """On seeded crowded positions, every empty cell: where the threat search's reading of
    fouls (`compiled.fouls._shape_foul`, for black's fours, threes and blocks) lets black play,
    the independent judge finds no foul. The reading refuses more than the fouls (a three
    that only looks like one), never fewer, and lets most cells through."""
    rng = random.Random(seed)
    let_through = 0
    for _ in range(8):
        board = Board(crowded_position(rng, alternate=True).cells, RENJU)
        fouls = reference_forbidden(board)
        _geometry, state, _table, _limits = Search(board, Mark.X, 60.0).kernel
        for empty in board.empty_cells():
            if not compiled.fouls._shape_foul(state, empty):
                assert empty not in fouls, (board.to_text(), empty)
                let_through += 1
        assert state[0].tolist() == [{None: 0, Mark.X: 1, Mark.O: 2}[mark] for mark in board.cells]
    assert let_through > 8 * 100


#: Black's five is exactly five: the independent reference's game of the standard rule.
BLACK_FIVES = reference_game(Rules(15, 15, 5, variant=Variant.STANDARD))


@pytest.mark.parametrize("seed", range(6))
def test_a_cell_the_tree_and_whites_runs_call_blacks_foul_is_one(seed: int) -> None:
    """On seeded crowded positions, every empty cell: where the reading of a foul that
    decides whether black can block a five (`compiled.fouls._blocking_foul`, for the tree's
    lost nodes and white's runs of fours) calls the cell a foul, the independent judge
    does too; and it calls every one of the judge's fouls there (it would miss a double
    three whose three is one only two levels deep: none of these positions holds one)."""
    rng = random.Random(seed)
    called = judged = 0
    for _ in range(8):
        board = Board(crowded_position(rng, alternate=True).cells, RENJU)
        fouls = reference_forbidden(board)
        geometry, state, _table, _limits = Search(board, Mark.X, 60.0).kernel
        for empty in board.empty_cells():
            if compiled.fouls._blocking_foul(geometry, state, empty):
                assert empty in fouls, (board.to_text(), empty)
                called += 1
        judged += len(fouls)
    assert called == judged > 0


def test_a_threat_of_blacks_open_four_counts_only_where_the_judge_allows_one() -> None:
    """Black's win by threes may force white with the threat of an open four only where
    black can make one (`compiled.threat_search._open_four_to_make`): on seeded crowded
    positions, where the threat search reads the threat as real, some cell leaves black two
    cells that complete exactly five by the independent reference, and that cell is no foul
    by the independent judge. Where every such cell is a foul, the threat is none."""
    real = only_fouls = 0
    for seed in range(6):
        rng = random.Random(seed)
        for _ in range(8):
            board = Board(crowded_position(rng, alternate=True).cells, RENJU)
            if brute.wins_at_once(BLACK_FIVES, board.to_text(), "X"):
                continue
            makers = open_four_cells(board)
            allowed = makers - reference_forbidden(board)
            geometry, state, _table, _limits = Search(board, Mark.O, 60.0).kernel
            if compiled.threat_search._open_four_to_make(geometry, state, 1):
                assert allowed, board.to_text()
                real += 1
            elif makers and not allowed:
                only_fouls += 1
    assert real >= 10
    assert only_fouls >= 1  # a three whose open four is only a foul (seed 0)


def open_four_cells(board: Board) -> set[int]:
    """Return the empty cells where black leaves two cells that complete exactly five, by
    the independent reference."""
    text = board.to_text()
    return {
        empty
        for empty in board.empty_cells()
        if len(brute.wins_at_once(BLACK_FIVES, brute.placed(text, empty, "X"), "X")) >= 2
    }


def test_a_white_stone_never_adds_to_what_blacks_shapes_show() -> None:
    """Every line of 10 neighbours the renju shapes read, and every empty one of them taken
    by a white stone: what black makes in the middle is never more (a five stays a five, no
    four becomes an open three), so a cell the threat search's reading of fouls lets black
    play stays so whatever white plays, and a threat of black's open four it counts stays
    one after any reply off its windows (black's runs, and so its overlines, are untouched)."""
    shapes = compiled.shapes.shape_table(compiled.shapes.RENJU_SHAPES)[1].astype(np.int64)
    keys = np.arange(shapes.shape[0], dtype=np.int64)
    for slot in range(10):
        empty = (keys >> (2 * slot)) & 3 == 0
        before = keys[empty]
        after = before | (2 << (2 * slot))  # a white stone there
        was, now = shapes[before], shapes[after]
        assert (now <= was).all()
        assert not ((was >= compiled.shapes.FOUR) & (now == compiled.shapes.OPEN_THREE)).any()
        assert (now[was == compiled.shapes.FIVE] == compiled.shapes.FIVE).all()


def black_run_holds(board: Board, move: int) -> bool:
    """Return whether black's `move` wins by fours under renju, as the independent judge
    reads the fouls: no foul, then a five, two fives to stop, or one that white blocks and
    after which the threat search finds black another run that holds."""
    if move in reference_forbidden(board):
        return False
    after = board.play(move, Mark.X)
    if after.status().winner is Mark.X:
        return True
    fives = after.completing(Mark.X)
    if after.completing(Mark.O) or not fives:
        return False  # white wins first, or this was no four
    if len(fives) >= 2:
        return True  # white stops one; a five is never a foul
    blocked = after.play(fives[0], Mark.O)
    line = Search(blocked, Mark.X, 60.0, max_nodes=200_000)._threat_line()
    return line is not None and black_run_holds(blocked, line.first)


@pytest.mark.parametrize("seed", range(4))
def test_every_run_of_fours_black_proves_under_renju_holds(seed: int) -> None:
    """Seeded crowded positions where the threat search finds black a run of fours: its
    first four is no foul by the independent judge, and after the forced block so is the
    first four of the run the threat search finds afresh, and so on down to a five."""
    rng, runs = random.Random(seed), 0
    while runs < 5:
        board = Board(crowded_position(rng, alternate=True).cells, RENJU)
        if board.completing(Mark.X) or board.completing(Mark.O):
            continue  # a win at once, or a five to stop: the rules', not a run
        line = Search(board, Mark.X, 60.0, max_nodes=200_000)._threat_line()
        if line is not None and not line.threes:  # wins by threes: tests/test_threes.py
            assert black_run_holds(board, line.first), (board.to_text(), line)
            runs += 1


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("nodes", [40, 3000])
def test_a_search_stopped_anywhere_never_plays_or_ranks_a_foul(seed: int, nodes: int) -> None:
    """Stopped early (40 nodes) or deepening (3,000), the search plays a legal move that is
    no foul, says how far it looked, and an analysis ranks no foul."""
    board = Board(crowded_position(random.Random(seed), alternate=True).cells, RENJU)
    barred = frozenset(forbidden_cells(board))
    found = search(board, Mark.X, 600.0, max_nodes=nodes, barred=barred)
    assert found.move in set(board.empty_cells()) - barred
    assert found.nodes <= nodes + 1
    assert found.depth >= 0
    ranked = analyse(board, Mark.X, 600.0, max_nodes=nodes, barred=barred)
    moves = [estimate.move for estimate in ranked.moves]
    assert moves
    assert set(moves) <= set(board.empty_cells()) - barred


def test_no_exact_search_claims_a_renju_endgame(client: FlaskClient) -> None:
    """5x7, 8 cells empty, white to move: white wins in three (a reference solver that
    judges every black foul says so), because black's one block would be a foul. An exact
    search that let black play fouls in its tree called it a draw, with a score of 0; under
    renju the exact search is off and nothing is claimed."""
    moves = [34, 18, 16, 32, 10, 3, 7, 25, 13, 1, 0, 2, 17, 30, 20, 26, 23, 21, 27, 6, 5, 14]
    moves += [28, 22, 8, 15, 19]
    rules = {"rows": 5, "cols": 7, "variant": "renju"}
    for path in ("/v1/move", "/v1/analysis"):
        answer = post_move(client, {"moves": moves, "rules": rules, "budget_ms": 300}, path)
        assert answer["search"]["method"] != "exact"
        assert answer["score"] in (None, 33)


def test_when_every_empty_cell_is_a_foul_black_plays_one_and_loses_at_once(
    client: FlaskClient,
) -> None:
    """7x7, black to move, its three empty cells an overline and two double fours."""
    text = "XXX.XXXOOOXXOXXOOXOXXOOX.XX.OOOXOOXXXOOXOXOOOXOOO"
    rules = {"variant": "renju"}
    assert post_move(client, {"board": text, "rules": rules})["forbidden"] == [3, 24, 27]
    for level in LEVELS:
        body = {"board": text, "rules": rules, "difficulty": level, "seed": 2}
        answer = post_move(client, body)
        assert answer["status"] == "o_won"
        assert answer["foul"]["cell"] == answer["move"]
        assert (answer["score"], answer["plies_to_end"]) == (-49, 1)
    analysis = post_move(client, {"board": text, "rules": rules}, "/v1/analysis")
    assert (analysis["score"], analysis["plies_to_end"]) == (-49, 1)
    assert [ranked["score"] for ranked in analysis["moves"]] == [-49, -49, -49]

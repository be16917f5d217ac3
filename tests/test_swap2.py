"""Swap2: the opener's three stones are one of renju's 26 openings, the one the search
finds nearest even; a side is chosen by the sign of white's evaluation; games at no step of
Swap2 are refused with a reason, over HTTP as problems."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the lock
import pytest
import yaml
from flask.testing import FlaskClient

from service.api.app import create_app
from service.api.app_settings import AppSettings
from service.game import swap2 as swap2_module
from service.game.board import Board, Mark
from service.game.compiled.evaluation import FITTED_SHAPE_SCALE
from service.game.engine import Engine
from service.game.rules import Rules, Variant
from service.game.search import CALIBRATED_LIMIT, Method, Search, SearchResult, search
from service.game.swap2 import (
    Decision,
    InvalidOpening,
    Swap2Problem,
    canonical_openings,
    decide,
    decide_with,
    step_of,
)
from service.game.warmup import prepare
from tests.helpers import Heard, TakenSlots

GOMOKU = Rules(15, 15, 5)


@pytest.fixture(autouse=True, scope="module")
def _compiled() -> None:
    """The compiled search loaded before any search is timed: loading it from the cache
    takes a few hundred milliseconds, which the first search's budget would pay."""
    prepare()


def board_of(rules: Rules, x: tuple[int, ...] = (), o: tuple[int, ...] = ()) -> Board:
    board = Board.empty(rules)
    for cell in x:
        board = board.play(cell, Mark.X)
    for cell in o:
        board = board.play(cell, Mark.O)
    return board


def found(move: int, evaluation: float) -> SearchResult:
    """A heuristic search's result, as a stand-in searcher returns it."""
    return SearchResult(move, False, None, evaluation, Method.HEURISTIC, 4, 100, 0.01, evaluation)


# --- the openings ---


def offsets(rules: Rules, cells: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """The cells as (row, column) offsets from the board's centre."""
    centre = (rules.rows // 2, rules.cols // 2)
    return tuple((row - centre[0], col - centre[1]) for row, col in map(rules.coordinates, cells))


def symmetric(opening: tuple[tuple[int, int], ...]) -> frozenset[tuple[tuple[int, int], ...]]:
    """An opening's images under the square's eight symmetries about the centre."""
    images = set()
    for swap, flip_row, flip_col in itertools.product((False, True), (1, -1), (1, -1)):
        images.add(
            tuple(
                ((col, row) if swap else (row, col))
                for row, col in ((flip_row * r, flip_col * c) for r, c in opening)
            )
        )
    return frozenset(images)


def test_the_openings_are_renjus_26_each_shape_once() -> None:
    """Black on the centre, white on one of its 8 neighbours, black's second stone on any
    other cell of the 5x5 square: 184 placements, 26 shapes up to symmetry, each placed once."""
    openings = [offsets(GOMOKU, stones) for stones in canonical_openings(Board.empty(GOMOKU))]
    square: list[tuple[int, int]] = [(row, col) for row in range(-2, 3) for col in range(-2, 3)]
    placements = [
        ((0, 0), white, black)
        for white in square
        if max(map(abs, white)) == 1
        for black in square
        if black not in ((0, 0), white)
    ]
    shapes = {symmetric(placement) for placement in placements}
    assert (len(placements), len(shapes)) == (184, 26)
    assert {symmetric(opening) for opening in openings} == shapes
    assert len(openings) == 26
    direct = [opening for opening in openings if abs(opening[1][0]) + abs(opening[1][1]) == 1]
    assert len(direct) == 13


@pytest.mark.parametrize(("rows", "cols"), [(5, 5), (6, 9), (15, 15), (20, 20), (5, 20)])
def test_the_openings_sit_on_the_centre_of_every_board_that_holds_them(
    rows: int, cols: int
) -> None:
    rules = Rules(rows, cols, 5)
    for stones in canonical_openings(Board.empty(rules)):
        assert len(set(stones)) == 3
        assert all(0 <= cell < rules.cell_count for cell in stones)
        assert offsets(rules, stones)[0] == (0, 0)
        assert all(max(map(abs, offset)) <= 2 for offset in offsets(rules, stones))


# --- the decisions ---


def test_the_opener_places_the_opening_nearest_even_the_first_of_equals() -> None:
    empty = Board.empty(GOMOKU)
    openings = canonical_openings(empty)
    # Far from even but for the 4th (0.02), the 10th (-0.01) and the 20th (0.01): the
    # 10th and 20th are the nearest, and the 10th comes first.
    values = {stones: -0.4 if index % 2 else 0.3 for index, stones in enumerate(openings)}
    values[openings[3]], values[openings[9]], values[openings[19]] = 0.02, -0.01, 0.01
    asked: list[float] = []
    now = [0.0]

    def searcher(board: Board, seconds: float) -> SearchResult:
        asked.append(seconds)
        now[0] += seconds * (2 if len(asked) == 1 else 1)  # the first takes twice its share
        assert (board.count(Mark.X), board.count(Mark.O)) == (2, 1)
        stones = next(stones for stones in openings if board.cells[stones[1]] is Mark.O
                      and board.cells[stones[2]] is Mark.X)  # fmt: skip
        return found(0, values[stones])

    choice = decide_with(step_of(empty), 2.6, searcher, clock=lambda: now[0])
    assert (choice.decision, choice.stones, choice.side) == (Decision.PLACE, openings[9], None)
    assert choice.board == board_of(GOMOKU, (openings[9][0], openings[9][2]), (openings[9][1],))
    assert choice.next_player is Mark.O
    assert choice.found is choice.searches[9]
    assert [found.evaluation for found in choice.searches] == [values[o] for o in openings]
    # The budget in equal shares of the time left: the first search's overrun is taken
    # from the other 25 alike, and the budget is kept.
    assert asked[0] == pytest.approx(0.1)
    assert asked[1:] == [pytest.approx(2.4 / 25)] * 25
    assert now[0] == pytest.approx(2.6)


def test_openings_searched_one_depth_only_are_not_compared_with_the_others() -> None:
    """The first search overruns the whole budget: the other 25 get no time, finish one
    depth (a value that leans with its parity) and are not compared with it."""
    empty = Board.empty(GOMOKU)
    openings = canonical_openings(empty)
    asked: list[float] = []
    now = [0.0]

    def searcher(board: Board, seconds: float) -> SearchResult:
        asked.append(seconds)
        if len(asked) == 1:
            now[0] += 2.6
            return found(0, -0.3)
        return replace(found(0, 0.0), depth=1)

    choice = decide_with(step_of(empty), 2.6, searcher, clock=lambda: now[0])
    assert asked == [pytest.approx(0.1)] + [0.0] * 25
    assert (choice.stones, choice.found) == (openings[0], choice.searches[0])
    # Were every search one depth only, they would all be compared.
    shallow = iter([0.5] * 7 + [0.01] + [0.5] * 18)
    alike = decide_with(
        step_of(empty), 2.6, lambda _board, _seconds: replace(found(0, next(shallow)), depth=1)
    )
    assert alike.stones == openings[7]


@pytest.mark.parametrize(
    ("x", "o"), [((112, 80), (97,)), ((112, 80, 81), (97, 96))], ids=["three stones", "five"]
)
@pytest.mark.parametrize(
    ("evaluation", "decision"),
    [(-0.2, Decision.SWAP), (-0.0001, Decision.SWAP), (0.0, Decision.MOVE), (0.3, Decision.MOVE)],
)
def test_a_side_is_chosen_by_the_sign_of_whites_evaluation(
    x: tuple[int, ...], o: tuple[int, ...], evaluation: float, decision: Decision
) -> None:
    board = board_of(GOMOKU, x, o)
    choice = decide_with(step_of(board), 0.25, lambda _board, _seconds: found(113, evaluation))
    assert choice.decision is decision
    if decision is Decision.SWAP:
        assert (choice.stones, choice.side, choice.board) == ((), Mark.X, board)
        assert choice.next_player is Mark.O  # the other player, now white
    else:
        assert (choice.stones, choice.side) == ((113,), Mark.O)
        assert choice.board == board.play(113, Mark.O)
        assert choice.next_player is Mark.X


def test_the_search_takes_black_against_an_open_three_and_white_with_the_initiative() -> None:
    """Searched, not stood in for: black's open three in the middle, white's stones in
    the corners; then white's two in the middle, black's in the corners."""
    against_three = decide(step_of(board_of(GOMOKU, (111, 112, 113), (0, 14))), 0.25)
    assert (against_three.decision, against_three.side) == (Decision.SWAP, Mark.X)
    assert against_three.found.two_depth_evaluation < 0
    with_initiative = decide(step_of(board_of(GOMOKU, (0, 14, 210), (112, 113))), 0.25)
    assert (with_initiative.decision, with_initiative.side) == (Decision.MOVE, Mark.O)
    assert with_initiative.found.two_depth_evaluation > 0
    assert with_initiative.board.cells[with_initiative.stones[0]] is Mark.O


def test_the_search_places_the_opening_it_finds_nearest_even() -> None:
    empty = Board.empty(GOMOKU)
    choice = decide(step_of(empty), 0.26)
    assert choice.decision is Decision.PLACE
    openings = canonical_openings(empty)
    assert len(choice.searches) == len(openings)
    nearest = min(range(26), key=lambda at: abs(choice.searches[at].two_depth_evaluation))
    assert (choice.stones, choice.found) == (openings[nearest], choice.searches[nearest])
    assert all(found.depth >= 2 for found in choice.searches)  # a mean of two depths


@pytest.mark.parametrize(
    ("variant", "wines_weights"), [(Variant.FREESTYLE, False), (Variant.RENJU, True)]
)
def test_under_renju_the_decisions_are_searched_with_wines_weights(
    monkeypatch: pytest.MonkeyPatch, variant: Variant, wines_weights: bool
) -> None:
    """Renju's fitted weights took Rapfi's side in 20 of its 26 openings, twice, where
    Wine's took it in 24 (`python -m benchmarks.swap2 BRAIN --variant renju`,
    docs/STRENGTH.md): the decisions under renju search with Wine's; freestyle's fitted
    weights took it in 26 and stay."""
    asked: list[bool] = []

    def recorded(*arguments: Any, **keywords: Any) -> SearchResult:
        asked.append(keywords["wines_weights"])
        return search(*arguments, **keywords)

    monkeypatch.setattr(swap2_module, "search", recorded)
    rules = replace(GOMOKU, variant=variant)
    choice = decide(step_of(board_of(rules, (111, 112, 113), (0, 14))), 0.1)
    assert (choice.decision, asked) == (Decision.SWAP, [wines_weights])


def read(value: int) -> float:
    """Return a value as a 15x15 search reads it: on the fitted scale, within its limit."""
    return round(
        max(-CALIBRATED_LIMIT, min(CALIBRATED_LIMIT, math.tanh(value / FITTED_SHAPE_SCALE))), 4
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_the_two_depth_evaluation_is_the_mean_of_the_last_two_depths_values(threads: int) -> None:
    """The search keeps each finished depth's root value; the last alone gives
    `evaluation`, the mean of the last two `two_depth_evaluation`, on one thread or two."""
    board = board_of(GOMOKU, (112, 80), (97,))
    searched = Search(board, Mark.O, 0.1, threads=threads)
    result = searched.run()
    assert result.method is Method.HEURISTIC
    assert len(searched.depth_values) == result.depth >= 2
    before, last = searched.depth_values[-2:]
    assert result.evaluation == read(last)
    assert result.two_depth_evaluation == read((before + last) // 2)
    assert result.two_depth_evaluation != result.evaluation


def test_a_proven_result_is_its_own_two_depth_evaluation() -> None:
    """Where no heuristic depth decides (the rules, a threat win), the two agree."""
    wins_at_once = board_of(Rules(15, 15, 5), (112, 113, 114, 115), (0, 1, 2))
    result = search(wins_at_once, Mark.X, 0.1)
    assert (result.proven, result.evaluation, result.two_depth_evaluation) == (True, 1.0, 1.0)


# --- games at no step of Swap2 ---


@pytest.mark.parametrize(
    "rules",
    [Rules(15, 15, 4), Rules(15, 15, 5, misere=True), Rules(4, 20, 5), Rules(3, 3, 3)],
    ids=["four in a row", "misere", "4x20", "tic-tac-toe"],
)
def test_swap2_is_for_five_in_a_row_on_boards_of_5x5_or_more(rules: Rules) -> None:
    with pytest.raises(InvalidOpening) as refused:
        step_of(Board.empty(rules))
    assert refused.value.problem is Swap2Problem.RULES
    assert rules.describe() in refused.value.detail


@pytest.mark.parametrize(
    ("x", "o"),
    [((112,), ()), ((112,), (97,)), ((112, 80), (97, 96)), ((112, 80, 81, 82), (97, 96))],
)
def test_swap2_decides_on_no_stones_three_or_five(x: tuple[int, ...], o: tuple[int, ...]) -> None:
    with pytest.raises(InvalidOpening) as refused:
        step_of(board_of(GOMOKU, x, o))
    assert refused.value.problem is Swap2Problem.STONES
    assert f"not with {len(x)} X and {len(o)} O" in refused.value.detail


@pytest.mark.parametrize("variant", list(Variant))
def test_every_variant_has_its_steps(variant: Variant) -> None:
    rules = Rules(15, 15, 5, variant=variant)
    for x, o in (((), ()), ((112, 80), (97,)), ((112, 80, 81), (97, 96))):
        board = board_of(rules, x, o)
        assert step_of(board).board == board


# --- over HTTP ---


SPEC = yaml.safe_load((Path(__file__).resolve().parent.parent / "openapi.yaml").read_text())
ANSWER_SCHEMA = jsonschema.Draft202012Validator(
    {"$ref": "#/components/schemas/Swap2Response", "components": SPEC["components"]}
)


def swap2(client: FlaskClient, body: dict[str, Any]) -> Any:
    """Post a Swap2 request; return its answer, held to the contract's schema."""
    response = client.post("/v1/swap2", json=body)
    assert response.status_code == 200, response.get_json()
    assert response.mimetype == "application/json"
    answer = response.get_json()
    assert list(ANSWER_SCHEMA.iter_errors(answer)) == []
    return answer


def test_the_opener_gets_three_stones_and_the_board_after_them(client: FlaskClient) -> None:
    answer = swap2(client, {"moves": [], "rules": {"rows": 15, "cols": 15, "k": 5}})
    assert answer["decision"] == "place"
    assert tuple(answer["stones"]) in canonical_openings(Board.empty(GOMOKU))
    black, white, second = answer["stones"]
    expected = [""] * 225
    expected[black] = expected[second] = "X"
    expected[white] = "O"
    assert answer["board"] == expected
    assert (answer["side"], answer["next_player"]) == (None, "O")
    assert answer["rules"] == {
        "rows": 15,
        "cols": 15,
        "k": 5,
        "misere": False,
        "variant": "freestyle",
    }
    assert answer["search"]["method"] == "heuristic"
    assert answer["search"]["budget_ms"] == 250


@pytest.mark.parametrize("variant", ["freestyle", "renju"])
def test_the_other_player_takes_a_side_by_whites_evaluation(
    client: FlaskClient, variant: str
) -> None:
    rules = {"rows": 15, "cols": 15, "k": 5, "variant": variant}
    answer = swap2(client, {"moves": [112, 97, 80], "rules": rules, "budget_ms": 100})
    assert answer["rules"]["variant"] == variant
    assert answer["decision"] == ("swap" if answer["evaluation"] < 0 else "move")
    on_board = [cell for cell, mark in enumerate(answer["board"]) if mark]
    if answer["decision"] == "swap":
        assert (answer["stones"], answer["side"], answer["next_player"]) == ([], "X", "O")
        assert on_board == [80, 97, 112]
    else:
        (stone,) = answer["stones"]
        assert (answer["side"], answer["next_player"], answer["board"][stone]) == ("O", "X", "O")
        assert sorted(on_board) == sorted([80, 97, 112, stone])


def test_the_opener_takes_black_on_five_stones_against_an_open_three(client: FlaskClient) -> None:
    rules = {"rows": 15, "cols": 15, "k": 5}
    # Black's open three in the middle row, white's stones in the corners: the opener's
    # three and the two more, as a game in order.
    answer = swap2(client, {"moves": [111, 0, 112, 14, 113], "rules": rules})
    assert (answer["decision"], answer["side"], answer["stones"]) == ("swap", "X", [])
    assert answer["evaluation"] < 0


def test_five_stones_may_come_as_a_board(client: FlaskClient) -> None:
    board = ["."] * 225
    for cell in (0, 14, 210):
        board[cell] = "X"
    for cell in (112, 113):
        board[cell] = "O"
    answer = swap2(client, {"board": "".join(board), "rules": {"k": 5}, "budget_ms": 250})
    assert (answer["decision"], answer["side"], answer["next_player"]) == ("move", "O", "X")
    assert answer["evaluation"] > 0


@pytest.mark.parametrize(
    ("body", "code", "loc"),
    [
        ({"moves": []}, "swap2_rules", ["rules"]),
        ({"moves": [], "rules": {"rows": 15, "k": 5, "misere": True}}, "swap2_rules", ["rules"]),
        ({"moves": [112, 97], "rules": {"rows": 15, "k": 5}}, "swap2_stones", ["moves"]),
        ({"board": "X" + "." * 224, "rules": {"k": 5}}, "swap2_stones", ["board"]),
        ({"moves": [], "board": "." * 225, "rules": {"k": 5}}, "board_and_moves", ["moves"]),
        ({"moves": [225], "rules": {"rows": 15, "k": 5}}, "move_out_of_range", ["moves", 0]),
        (
            {"moves": [], "rules": {"rows": 15, "k": 5}, "budget_ms": 0},
            "budget_out_of_range",
            ["budget_ms"],
        ),
        (
            {"moves": [], "rules": {"rows": 15, "k": 5}, "player": "X"},
            "invalid_request",
            ["player"],
        ),
        ({"rules": {"rows": 15, "k": 5}}, "invalid_request", ["board"]),
    ],
)
def test_a_game_at_no_step_of_swap2_is_refused_with_a_reason(
    client: FlaskClient, body: dict[str, Any], code: str, loc: list[Any]
) -> None:
    response = client.post("/v1/swap2", json=body)
    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    problem = response.get_json()
    assert problem["code"] == code
    assert problem["errors"][0]["loc"] == loc


def test_a_decision_without_a_free_slot_is_refused_busy(engine: Engine) -> None:
    heard = Heard()
    app = create_app(AppSettings(), engine=engine, search_slots=TakenSlots(), on_search=heard)
    response = app.test_client().post(
        "/v1/swap2", json={"moves": [], "rules": {"rows": 15, "k": 5}}
    )
    assert (response.status_code, response.get_json()["code"]) == (503, "busy")
    assert (heard.refusals, heard.searches) == (["swap2"], [])


def test_every_search_of_a_decision_is_heard(engine: Engine) -> None:
    """The metrics count each of the 26 searches of an opening placed, and the one of a side."""
    heard = Heard()
    client = create_app(AppSettings(), engine=engine, on_search=heard).test_client()
    rules = {"rows": 15, "cols": 15, "k": 5}
    swap2(client, {"moves": [], "rules": rules, "budget_ms": 52})
    assert len(heard.searches) == 26
    swap2(client, {"moves": [112, 97, 80], "rules": rules, "budget_ms": 20})
    assert len(heard.searches) == 27
    assert {method for method, *_ in heard.searches} == {"heuristic"}

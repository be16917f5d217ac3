"""Boards beyond 4x4 over HTTP: searched within a budget, honest about what is proven,
admitted to a bounded number of search slots, and never changing a table's answer."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.api.admission import BatchBudget, Release, ThreadSlots
from service.api.app import create_app
from service.api.app_settings import AppSettings
from service.game.engine import Engine
from service.game.rules import Rules
from service.game.search import EXACT_EMPTY_CELLS
from tests import search_reference as brute
from tests.family_reference import Game, move_results
from tests.helpers import (
    FOURS_IN_SEVEN,
    GOMOKU_OPENING,
    Heard,
    TakenSlots,
    post_move,
    reference_game,
)

#: 7x7, five in a row, X to move: an open four, so a win at once (cell 14 or 19).
OPEN_FOUR = "...............XXXX...OOO................O......."
#: 7x7, five in a row, X to move: no win at once, but X makes an open four: a win in three.
OPEN_THREE = "O.....................XXX.................O.....O"


SearchApp = Callable[..., Flask]


@pytest.fixture
def search_app(engine: Engine) -> SearchApp:
    def make(**kwargs: Any) -> Flask:
        settings = kwargs.pop("settings", AppSettings())
        return create_app(settings, engine=engine, **kwargs)

    return make


# --- what a searched answer says ---


def test_an_unproven_search_gives_its_move_and_no_score(client: FlaskClient) -> None:
    answer = post_move(client, {"board": GOMOKU_OPENING})
    assert answer["rules"] == {
        "rows": 15,
        "cols": 15,
        "k": 5,
        "misere": False,
        "variant": "freestyle",
    }
    assert answer["player"] == "O"
    assert answer["board"][answer["move"]] == "O"
    assert divmod(answer["move"], 15) == (answer["row"], answer["col"])
    assert answer["best_moves"] == [answer["move"]]
    # A heuristic is never presented as a proof.
    assert (answer["score"], answer["outcome"], answer["plies_to_end"]) == (None, None, None)
    assert answer["optimal"] is None
    search = answer["search"]
    assert (search["method"], search["proven"], search["budget_ms"]) == ("heuristic", False, 250)
    assert -1 < search["evaluation"] < 1
    assert search["depth"] >= 1
    assert search["nodes"] > 0
    assert search["time_ms"] > 0
    assert answer["next_player"] == "X"
    assert answer["status"] == "in_progress"


@pytest.mark.parametrize("side", [19, 20])
def test_boards_to_20x20_are_searched_like_15x15(client: FlaskClient, side: int) -> None:
    # X has four broken marks on the long diagonal (no five in reach); O has four in a row
    # at the start of the last row. X, to move, must block at the row's fifth cell.
    cells = ["."] * (side * side)
    for step in (1, 3, 5, 7):
        cells[side * side - 1 - step * (side + 1)] = "X"
    last_row = side * (side - 1)
    for col in range(4):
        cells[last_row + col] = "O"
    rules = {"rows": side, "cols": side}
    answer = post_move(client, {"board": "".join(cells), "rules": rules})
    assert answer["rules"]["rows"] == answer["rules"]["cols"] == side
    assert answer["rules"]["k"] == 5
    assert answer["move"] == last_row + 4, "the only move that does not lose at once"
    assert divmod(answer["move"], side) == (answer["row"], answer["col"])
    # O's four one cell along is open at both ends: X cannot stop it, and the loss is proven.
    cells[last_row], cells[last_row + 4] = ".", "O"
    lost = post_move(client, {"board": "".join(cells), "rules": rules})
    assert (lost["outcome"], lost["search"]["proven"]) == ("loss", True)
    opening = post_move(client, {"moves": [side * side // 2], "rules": rules})
    assert opening["search"]["method"] == "heuristic"
    assert opening["search"]["depth"] >= 1
    assert opening["status"] == "in_progress"


def test_a_win_at_once_is_proven_with_the_tables_score(client: FlaskClient) -> None:
    answer = post_move(client, {"board": OPEN_FOUR})
    assert (answer["move"], answer["score"], answer["outcome"]) == (14, 49, "win")
    assert (answer["plies_to_end"], answer["optimal"], answer["status"]) == (1, True, "x_won")
    assert answer["winning_lines"] == [[14, 15, 16, 17, 18]]
    assert answer["search"]["method"] == "rules"
    assert answer["search"]["proven"] is True
    assert answer["search"]["evaluation"] == 1.0


def test_a_win_in_three_is_proven_by_the_threat_search(client: FlaskClient) -> None:
    answer = post_move(client, {"board": OPEN_THREE})
    game = Game(7, 7, 5)
    assert brute.wins_in_three(game, OPEN_THREE, "X", answer["move"])
    assert (answer["score"], answer["outcome"], answer["plies_to_end"]) == (47, "win", 3)
    assert answer["optimal"] is True
    assert (answer["search"]["method"], answer["search"]["proven"]) == ("threats", True)


@pytest.mark.parametrize("rules", [Rules(5, 5, 4), Rules(4, 6, 3, misere=True)])
@pytest.mark.parametrize("seed", range(3))
def test_few_empty_cells_are_solved_exactly_and_every_move_analysed(
    client: FlaskClient, rules: Rules, seed: int
) -> None:
    """Against exhaustive play by the independent reference: the move and every ranked move."""
    game = reference_game(rules)
    rng = random.Random(seed)
    position = None
    while position is None:
        position = brute.clustered_position(game, rng, rules.cell_count - EXACT_EMPTY_CELLS)
    text, mover = position
    given = {"rows": rules.rows, "cols": rules.cols, "k": rules.k, "misere": rules.misere}
    body = {"board": text, "rules": given, "player": mover, "budget_ms": 5000}
    reference_score, best_moves = game.perfect_play(text, mover)
    answer = post_move(client, body)
    assert answer["search"]["proven"] is True
    assert (answer["score"], answer["optimal"]) == (reference_score, True)
    assert answer["move"] in best_moves
    analysis = post_move(client, body, "/v1/analysis")
    top = rules.cell_count + 1
    expected = {
        cell: {1: top - plies, 0: 0, -1: plies - top}[result]
        for cell, (result, plies) in move_results(game, text, mover).items()
    }
    assert {ranked["move"]: ranked["score"] for ranked in analysis["moves"]} == expected
    assert analysis["score"] == reference_score
    assert analysis["search"]["proven"] is True


def test_every_proven_claim_of_an_analysis_is_true(client: FlaskClient) -> None:
    """On boards where the search cannot finish, what it calls proven still holds."""
    game = Game(6, 6, 4)
    rng = random.Random(7)
    checked = wins = losses = 0
    while checked < 8:
        position = brute.clustered_position(game, rng, rng.randrange(8, 16))
        if position is None:
            continue
        text, mover = position
        body = {"board": text, "player": mover, "rules": {"k": 4}, "budget_ms": 50}
        analysis = post_move(client, body, "/v1/analysis")
        for ranked in analysis["moves"]:
            if ranked["score"] is None:
                assert ranked["outcome"] is None
                assert -1 < ranked["evaluation"] < 1
                continue
            after = brute.placed(text, ranked["move"], mover)
            if ranked["score"] > 0:  # a win at once, or a threat win: exactly that fast
                plies = 37 - ranked["score"]
                assert plies == ranked["plies_to_end"]
                assert brute.move_wins_within(game, text, mover, ranked["move"], plies)
                assert plies < 3 or not brute.move_wins_within(
                    game, text, mover, ranked["move"], plies - 2
                )
                wins += 1
            elif ranked["score"] == -35:  # the opponent completes a line next
                assert brute.wins_at_once(game, after, "O" if mover == "X" else "X")
                losses += 1
            else:
                raise AssertionError(f"an unexpected proven score: {ranked}")
        checked += 1
    assert wins > 0, "the positions checked hold proven wins"
    assert losses > 0, "the positions checked hold proven losses"


def test_a_run_of_fours_longer_than_five_plies_is_a_bound_not_a_score(
    client: FlaskClient,
) -> None:
    """The win is proven and its bound named; the fastest win is not claimed, since brute
    force finds one faster than the run; the run's first move is ranked at its exact value."""
    game, text = Game(6, 7, 5), FOURS_IN_SEVEN
    body = {"board": text, "player": "X", "rules": {"rows": 6, "cols": 7}, "budget_ms": 2000}
    assert brute.move_wins_within(game, text, "X", 18, 5)
    answer = post_move(client, body)
    assert brute.move_wins_within(game, text, "X", answer["move"], 7)
    assert (answer["search"]["method"], answer["search"]["proven"]) == ("threats", True)
    assert answer["search"]["wins_within_plies"] == 7
    unknown = (answer["score"], answer["outcome"], answer["plies_to_end"], answer["optimal"])
    assert unknown == (None, None, None, None)
    analysis = post_move(client, body, "/v1/analysis")
    assert (analysis["score"], analysis["outcome"], analysis["plies_to_end"]) == (None,) * 3
    assert (analysis["search"]["proven"], analysis["search"]["wins_within_plies"]) == (True, 7)
    ranked = {move["move"]: move for move in analysis["moves"]}[answer["move"]]
    assert (ranked["score"], ranked["plies_to_end"], ranked["wins_within_plies"]) == (36, 7, None)
    assert not brute.move_wins_within(game, text, "X", answer["move"], 5)


#: 15x15, five in a row, X to move: O has an open four (cells 110 and 115 complete it).
OPEN_FOUR_OF_O = "." * 96 + "X.X.X.X" + "." * 8 + "OOOO" + "." * 110


def test_a_move_and_an_analysis_prove_the_same_loss(client: FlaskClient) -> None:
    body = {"board": OPEN_FOUR_OF_O, "player": "X"}
    answer = post_move(client, body)
    analysis = post_move(client, body, "/v1/analysis")
    for proved in (answer, analysis):
        assert (proved["score"], proved["outcome"], proved["plies_to_end"]) == (-224, "loss", 2)
        assert (proved["search"]["method"], proved["search"]["proven"]) == ("rules", True)
    assert all(move["score"] == -224 for move in analysis["moves"])


def test_a_level_that_plays_at_random_does_not_search(search_app: SearchApp) -> None:
    heard = Heard()
    client = search_app(on_search=heard).test_client()
    answer = post_move(client, {"board": GOMOKU_OPENING, "difficulty": "medium", "seed": 1})
    assert answer["search"] is None
    assert answer["best_moves"] == []
    assert answer["score"] is None
    assert answer["optimal"] is None
    assert heard.searches == []
    post_move(client, {"board": GOMOKU_OPENING})
    assert [method for method, *_ in heard.searches] == ["heuristic"]


def test_a_finished_big_board_answers_its_end_without_a_search(search_app: SearchApp) -> None:
    finished = "XXXXX" + "." * 10 + "OOOO" + "." * 206
    client = search_app(search_slots=TakenSlots()).test_client()
    answer = post_move(client, {"board": finished})
    assert (answer["move"], answer["status"], answer["winner"]) == (None, "x_won", "X")
    assert answer["search"] is None
    assert answer["winning_lines"] == [[0, 1, 2, 3, 4]]


# --- answers up to 4x4 never change ---


@pytest.mark.parametrize("board", ["X...O....", "XO.............."])
def test_a_tables_answer_is_the_same_with_a_budget_and_has_no_search(
    client: FlaskClient, board: str
) -> None:
    plain = post_move(client, {"board": board})
    assert "search" not in plain
    assert post_move(client, {"board": board, "budget_ms": 10}) == plain
    analysis = post_move(client, {"board": board}, "/v1/analysis")
    assert "search" not in analysis
    assert all("evaluation" not in ranked for ranked in analysis["moves"])


# --- the budget ---


@pytest.mark.parametrize("budget", [1, 40, 5000])
def test_the_budget_is_reported_as_given(client: FlaskClient, budget: int) -> None:
    answer = post_move(client, {"board": GOMOKU_OPENING, "budget_ms": budget})
    assert answer["search"]["budget_ms"] == budget


@pytest.mark.parametrize("budget", [0, -1, 5001, 2**63])
def test_a_budget_out_of_range_is_refused_with_its_own_code(
    client: FlaskClient, budget: int
) -> None:
    response = client.post("/v1/move", json={"board": GOMOKU_OPENING, "budget_ms": budget})
    assert response.status_code == 422
    problem = response.get_json()
    assert problem["code"] == "budget_out_of_range"
    assert problem["errors"] == [{"loc": ["budget_ms"], "msg": problem["detail"]}]
    assert "1 to 5000 ms" in problem["detail"]


def test_the_operator_sets_the_maximum_and_the_default(search_app: SearchApp) -> None:
    settings = AppSettings(default_budget_ms=30, max_budget_ms=100)
    client = search_app(settings=settings).test_client()
    assert post_move(client, {"board": GOMOKU_OPENING})["search"]["budget_ms"] == 30
    refused = client.post("/v1/move", json={"board": GOMOKU_OPENING, "budget_ms": 101})
    assert refused.get_json()["detail"] == "budget_ms is 101, but a search may take 1 to 100 ms"


def test_get_takes_the_budget_and_never_caches_a_search(client: FlaskClient) -> None:
    response = client.get(f"/v1/move?board={OPEN_FOUR}&budget_ms=20")
    assert response.status_code == 200
    assert response.get_json()["search"]["budget_ms"] == 20
    # Even a proven answer reports the time its search took: it is not the same twice.
    assert response.headers["Cache-Control"] == "no-store"
    assert "ETag" not in response.headers
    assert client.get(f"/v1/move?board={OPEN_FOUR}&budget_ms=0").status_code == 422


# --- admission: a bounded number of searches, the rest refused at once ---


def test_a_search_without_a_free_slot_is_refused_busy(search_app: SearchApp) -> None:
    heard = Heard()
    client = search_app(search_slots=TakenSlots(), on_search=heard).test_client()
    for path in ("/v1/move", "/v1/analysis"):
        response = client.post(path, json={"board": GOMOKU_OPENING})
        assert response.status_code == 503
        assert response.mimetype == "application/problem+json"
        # When the soonest slot's search will have spent its budget, in whole seconds.
        assert response.headers["Retry-After"] == "8"
        assert "try again in 8 s" in response.get_json()["detail"]
        assert response.headers["Cache-Control"] == "no-store"
        assert response.get_json()["code"] == "busy"
    assert heard.refusals == ["move", "analysis"]
    assert heard.searches == []


def test_tables_probes_and_bad_boards_never_wait_for_a_slot(search_app: SearchApp) -> None:
    client = search_app(search_slots=TakenSlots()).test_client()
    assert client.post("/v1/move", json={"board": "X...O...."}).status_code == 200
    assert client.post("/v1/analysis", json={"board": "XO.............."}).status_code == 200
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").status_code == 200
    # A board no game reaches is refused for what it is, not for the load.
    impossible = client.post("/v1/move", json={"board": "XXX" + "." * 222})
    assert (impossible.status_code, impossible.get_json()["code"]) == (422, "mark_count_gap")
    easy = client.post("/v1/move", json={"board": GOMOKU_OPENING, "difficulty": "easy"})
    assert easy.status_code == 200


def test_a_slot_is_given_back_after_each_search(search_app: SearchApp) -> None:
    slots = ThreadSlots(1)
    client = search_app(search_slots=slots).test_client()
    for _ in range(3):
        post_move(client, {"board": GOMOKU_OPENING, "budget_ms": 5})
        post_move(client, {"board": GOMOKU_OPENING, "budget_ms": 5}, "/v1/analysis")
    release = slots.try_take(1.0)
    assert release is not None
    release()


def test_a_slot_is_given_back_after_a_failure(search_app: SearchApp) -> None:
    slots = ThreadSlots(1)
    client = search_app(search_slots=slots).test_client()
    bad_player = {"board": GOMOKU_OPENING, "player": "X"}
    assert client.post("/v1/move", json=bad_player).status_code == 422
    post_move(client, {"board": GOMOKU_OPENING, "budget_ms": 5})


# --- batches ---


def test_a_batch_searches_within_one_total_budget(search_app: SearchApp) -> None:
    heard = Heard()
    client = search_app(on_search=heard).test_client()
    item = {"board": GOMOKU_OPENING, "budget_ms": 2000}
    requests = [item, item, {"board": "X...O...."}, item, {**item, "difficulty": "easy"}]
    results = post_move(client, {"requests": requests}, "/v1/moves")["results"]
    assert [result.get("code") for result in results] == [
        None,
        None,
        None,
        "batch_budget_exceeded",
        None,
    ]
    assert results[3]["status"] == 422
    # Located within its item, as every reason in a batch's slot is.
    assert results[3]["errors"][0]["loc"] == ["budget_ms"]
    assert "5000 ms a batch may search for" in results[3]["detail"]
    assert len(heard.searches) == 2


def test_a_batch_that_needs_a_search_is_busy_as_a_whole_before_any_work(
    search_app: SearchApp,
) -> None:
    answered: list[str] = []
    client = search_app(search_slots=TakenSlots(), on_answer=answered.append).test_client()
    tables_only = {"requests": [{"board": "X...O...."}, {"board": "XO.............."}]}
    assert client.post("/v1/moves", json=tables_only).status_code == 200
    assert len(answered) == 2
    # The table item comes first, but the slot is taken before any item is answered:
    # nothing of the refused batch is answered, nor counted as answered.
    mixed = {"requests": [{"board": "X...O...."}, {"board": GOMOKU_OPENING}]}
    response = client.post("/v1/moves", json=mixed)
    assert (response.status_code, response.get_json()["code"]) == (503, "busy")
    assert response.headers["Retry-After"] == "8"
    assert len(answered) == 2


def test_a_batch_holds_its_slot_for_the_budgets_of_its_searches(search_app: SearchApp) -> None:
    taken: list[float] = []

    class RecordingSlots(ThreadSlots):
        def try_take(self, seconds: float) -> Release | None:
            taken.append(seconds)
            return super().try_take(seconds)

    client = search_app(search_slots=RecordingSlots(1)).test_client()
    item = {"board": GOMOKU_OPENING, "budget_ms": 5}
    requests = [item, {"board": "X...O...."}, {**item, "budget_ms": 7}, {**item, "seed": 1}]
    post_move(client, {"requests": [*requests, {**item, "difficulty": "easy"}]}, "/v1/moves")
    assert taken == [(5 + 7 + 5) / 1000]  # once, for every search, and only the searches


def test_a_batch_item_with_a_bad_budget_gets_its_problem_in_its_slot(
    client: FlaskClient,
) -> None:
    requests = [{"board": GOMOKU_OPENING, "budget_ms": 0}, {"board": "X...O...."}]
    results = post_move(client, {"requests": requests}, "/v1/moves")["results"]
    assert results[0]["code"] == "budget_out_of_range"
    assert results[1]["move"] == 1


def test_a_batchs_searches_share_one_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr("service.api.admission.time.monotonic", lambda: now[0])
    budgets = BatchBudget(5000)
    budgets.spend(100)
    budgets.spend(50)
    assert budgets.spent_ms == 150
    budgets.start()
    assert budgets.left_for(100) == 100  # time enough
    now[0] += 0.12
    assert budgets.left_for(50) == 30  # what is left of the 150 ms
    now[0] += 0.2
    assert budgets.left_for(50) == 1  # past the deadline: the shortest search, which still moves


def test_a_batchs_deadline_counts_its_checking_and_keeps_each_later_search_a_millisecond(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr("service.api.admission.time.monotonic", lambda: now[0])
    budgets = BatchBudget(5000)
    for _ in range(4):
        budgets.spend(10)
    now[0] += 0.0155  # checking the items took 15.5 of the 40 ms
    budgets.start()
    assert budgets.left_for(10) == 10  # 24.5 ms left, 3 kept for the three searches after it
    now[0] += 0.015
    assert budgets.left_for(10) == 7  # 9.5 ms left, 2 kept
    now[0] += 0.005
    assert budgets.left_for(10) == 3  # 4.5 ms left, 1 kept
    now[0] += 0.003
    assert budgets.left_for(10) == 1  # the last: what is left, the shortest search


def test_thread_slots_say_when_the_soonest_search_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [50.0]
    monkeypatch.setattr("service.api.admission.time.monotonic", lambda: now[0])
    slots = ThreadSlots(2)
    first = slots.try_take(3.0)
    assert first is not None
    assert slots.free_in() == 0.0  # a slot is free
    second = slots.try_take(1.5)
    assert second is not None
    assert slots.try_take(1.0) is None
    now[0] += 0.5
    assert slots.free_in() == 1.0
    second()
    assert slots.free_in() == 0.0
    first()

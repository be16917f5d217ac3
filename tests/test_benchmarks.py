"""The benchmarks' own parts work: the baselines are real searches, the workload is valid.

Nothing here is timed: the figures come from `python -m benchmarks`, never from tests.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from flask.testing import FlaskClient

from benchmarks import (
    engine_bench,
    family_bench,
    family_http,
    footprint,
    http_bench,
    ladder,
    margins,
    node_cost,
    search_bench,
    threads,
    tree_speed,
)
from benchmarks.floor_app import app as floor_app
from benchmarks.http_bench import ROOT
from service.game.board import Mark
from service.game.difficulty import Difficulty
from service.game.engine import Engine
from service.game.rules import Rules
from service.game.search import Method, Search, search


def test_the_baseline_searches_find_best_moves(engine: Engine) -> None:
    """Textbook minimax and alpha-beta must be correct, or the ratios would mean nothing."""
    positions = [
        (board, mover)
        for board, mover in engine_bench.legal_positions(engine)
        if len(board.empty_cells()) <= 6
    ]
    for board, mover in random.Random(7).sample(positions, 60):
        best = engine.evaluate(board, mover).best_moves
        assert engine_bench.textbook_minimax(board, mover) in best
        assert engine_bench.alpha_beta(board, mover) in best


def test_every_position_of_the_engine_benchmark_is_legal_and_unfinished(engine: Engine) -> None:
    positions = engine_bench.legal_positions(engine)
    assert len(positions) == len(set(positions))
    assert all(not board.status().is_over for board, _ in positions)
    assert len(positions) > 9000


def test_the_floor_answers_a_constant_to_any_json_body() -> None:
    client = floor_app.test_client()
    first = client.post("/v1/move", json={"board": "X........"}).get_json()
    assert client.post("/v1/move", json={"anything": [1, 2]}).get_json() == first


@pytest.fixture(scope="module")
def workload() -> dict[str, list[tuple[str, str | None]]]:
    return http_bench.workload()


def test_the_http_workload_is_answered_200(
    client: FlaskClient, workload: dict[str, list[tuple[str, str | None]]]
) -> None:
    for name, requests in workload.items():
        for path, body in requests[:25]:
            if body is None:
                response = client.get(path)
            else:
                response = client.post(path, data=body, content_type="application/json")
            assert response.status_code == 200, (name, path, body)
    batch = json.loads(workload["batch1000"][0][1] or "{}")
    assert len(batch["requests"]) == 1000


def test_the_wrk_script_cycles_through_the_requests(tmp_path: Path) -> None:
    script = http_bench.lua_script(
        tmp_path, "move", "POST", [("/v1/move", '{"board": "X........"}')]
    )
    text = script.read_text()
    assert 'wrk.method = "POST"' in text
    assert '{"/v1/move", "{\\"board\\": \\"X........\\"}"}' in text
    assert "wrk.format(nil, requests[i][1], nil, requests[i][2])" in text


def test_the_family_workloads_are_legal_unfinished_positions_the_service_answers(
    client: FlaskClient,
) -> None:
    """The 4x4 loads: distinct boards, the empty one first, each answered with a move."""
    boards = family_http.positions(family_http.FOUR_MISERE, count=40)
    assert boards[0] == "." * 16
    assert len(set(boards)) == len(boards) > 30
    for path, body in family_http.move_requests(family_http.FOUR_MISERE, boards):
        answer = client.post(path, data=body, content_type="application/json").get_json()
        assert answer["move"] is not None, body
        assert answer["rules"] == {
            "rows": 4,
            "cols": 4,
            "k": 4,
            "misere": True,
            "variant": "freestyle",
        }


def test_the_family_preparation_figures_agree_with_the_anchor() -> None:
    member = family_bench.measure_member(Rules(3, 3, 3, misere=True))
    assert member.positions == 5_478
    assert member.anchor_seconds is not None
    assert member.anchor_bytes is not None
    assert member.table_bytes == 3**9
    assert member.result == "draw"
    assert not family_bench.anchored(Rules(4, 4, 4, misere=True))


def test_the_search_benchmarks_positions_are_left_to_the_heuristic_search() -> None:
    """Positions the rules or the threat search decide would measure nothing of the search."""
    board, mover = search_bench.seeded_position(40)
    assert len(board.empty_cells()) == 225 - 40
    assert not board.status().is_over
    result = search(board, mover, 60, max_nodes=300)
    assert result.method is Method.HEURISTIC


def test_the_edge_threes_give_the_threat_search_work_and_nothing_to_find() -> None:
    board, mover = search_bench.edge_threes()
    assert (board.count(Mark.X), board.count(Mark.O), mover) == (15, 15, Mark.X)
    found = Search(board, mover, 60, max_nodes=1_000_000)
    assert found._threat_line() is None
    assert found.nodes > 10_000


def test_on_the_edge_threes_the_run_of_fours_leaves_the_tree_half_the_search() -> None:
    """Many fours and no run among them: the look for one stops at half the search's
    nodes (as at half its time), and the tree searches with the rest."""
    board, mover = search_bench.edge_threes()
    found = Search(board, mover, 60, max_nodes=20_000)
    assert found._threat_line() is None
    assert found.nodes <= 10_000
    result = Search(board, mover, 60, max_nodes=20_000).run()
    assert result.method is Method.HEURISTIC
    assert result.depth >= 2


def test_the_threads_benchmark_searches_each_way_from_unfinished_openings() -> None:
    boards = threads.positions(4)
    assert len(boards) == 4
    for board, _mover in boards:
        assert not board.status().is_over
        assert 4 <= 225 - len(board.empty_cells()) <= 7
    figures = threads.measure(2, 20, 1)
    assert len(figures) == 3
    assert all(depth >= 1 and nodes > 0 for depth, nodes in figures.values())


def test_the_tree_speed_benchmark_tells_the_same_tree_by_its_digest_in_any_checkout() -> None:
    """Two passes over the same positions search the same nodes, here and in a checkout
    measured in a process of its own (this one), and a deeper pass is another tree."""
    here = tree_speed.measure(2, 3)
    assert int(str(here["nodes"])) > 0
    assert tree_speed.measure(2, 3)["digest"] == here["digest"]
    there = tree_speed.measure_in(Path(__file__).resolve().parent.parent, 2, 3)
    assert (there["nodes"], there["digest"]) == (here["nodes"], here["digest"])
    assert tree_speed.measure(2, 4)["digest"] != here["digest"]


def test_the_node_cost_benchmark_times_every_part_on_the_position_as_it_came() -> None:
    """Each part's loop takes back what it changes, so that every repetition times the same
    position; every part and the tree's own node get a time."""
    board, mover = threads.positions(1)[0]
    found = Search(board, mover, 600.0, table_slots=tree_speed.TABLE_SLOTS)
    geometry, state, _table, _limits = found.kernel
    parts: list[npt.NDArray[np.generic]] = [*state]
    before = [part.copy() for part in parts]
    moves = node_cost.near_leaf_moves(geometry, state, found.mover)
    assert len(moves) > 1
    for _name, loop in node_cost.PARTS:
        _checksum, calls = loop(geometry, state, found.mover, moves, 2)
        assert calls in {2, 2 * len(moves)}
        assert all(np.array_equal(now, then) for now, then in zip(parts, before, strict=True))
    figures = node_cost.measure(1, 2)
    assert list(figures)[: len(node_cost.PARTS)] == [name for name, _ in node_cost.PARTS]
    assert all(nanoseconds > 0 for nanoseconds in figures.values())


def test_the_margins_benchmark_finds_the_side_to_move_gains_alike_at_every_depth() -> None:
    """What the tree's margins rest on: a node's searched value stands above its static
    value (the side to move's move is worth something), and with the leaves averaged over
    two plies by about as much one, two or three plies from the leaves (with a leaf's own
    value, 1,400 more where the side to move made the last move). Each node is searched at
    every depth, and a futility margin misjudges the nodes whose gap is below minus it."""
    found = margins.gaps(4, 6, 1)
    assert len(found[1]) == len(found[2]) == len(found[3]) > 0
    medians = [float(np.median(values)) for values in found.values()]
    assert min(medians) > 0
    assert max(medians) - min(medians) < 500
    assert margins.misjudged([-10, 0, 10], 5) == pytest.approx(1 / 3)
    assert margins.misjudged([-10, 0, 10], -5) == pytest.approx(2 / 3)


def test_a_ladder_game_is_played_to_its_end_from_a_three_stone_opening() -> None:
    """The same seed, the same game; the opening's three cells near the centre."""
    cells = ladder.opening(3)
    assert len(set(cells)) == 3
    assert all(abs(cell // 15 - 7) <= 2 and abs(cell % 15 - 7) <= 2 for cell in cells)
    engine = Engine.build(())
    games = [
        ladder.play(engine, Difficulty.MEDIUM, Difficulty.EASY, 3, upper_first=False,
                    budget_seconds=0.01)
        for _ in range(2)
    ]  # fmt: skip
    assert games[0] == games[1]
    assert games[0].result in {"win", "draw", "loss"}
    assert games[0].plies > 3
    results = [replace(games[0], result=result) for result in ("win", "draw", "loss", "win")]
    assert ladder.share(results) == 0.625  # a win 1, a draw 1/2


def test_the_footprint_starts_the_server_and_reads_its_memory() -> None:
    """One start of `python -m service`: ready, four searches answered, every figure read."""
    figures = footprint.measure_once(ROOT)
    assert set(figures) == {"ready_seconds", "worker_rss_mb", "server_pss_mb"}
    assert all(value > 0 for value in figures.values())

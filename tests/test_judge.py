"""`benchmarks.judge`: recorded games replayed through a judge brain, against the tests'
minimal brain (`tests/gomocup_brain.py --eval`), which reports as its evaluation the sum
of col + row + 1 over the stones it is given as its own."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks import swap2 as swap2_benchmark
from benchmarks.gomocup import EVALUATION, Game, play, record, recorded
from benchmarks.judge import (
    MATE_VALUE,
    judged,
    lost_from,
    missed_wins,
    recheck_table,
    rechecked,
    standing,
    table,
    value_of,
    worst_move,
)
from service.game.board import Board
from service.game.rules import Rules, Variant
from service.game.swap2 import Decision, canonical_openings

BRAIN = [sys.executable, str(Path(__file__).with_name("gomocup_brain.py"))]
EVALUATING_BRAIN = [*BRAIN, "--eval"]
GOMOKU = Rules(15, 15, 5)


def game_of(moves: tuple[int, ...], *, search_first: bool, result: str = "loss") -> Game:
    """Return a recorded game of these moves (its figures beside the point here)."""
    return Game(0, search_first, result, len(moves), 0.02, 0.01, 1000.0, None, moves=moves)


def judges_value(moves: tuple[int, ...], search_first: bool) -> int:
    """Return what the tests' brain reports after `moves`: its own stones' col + row + 1."""
    judges = [cell for ply, cell in enumerate(moves) if (ply % 2 == 0) != search_first]
    return sum(cell % 15 + cell // 15 + 1 for cell in judges)


@pytest.mark.parametrize(
    ("note", "evaluation"),
    [
        ("MESSAGE Speed 1088K | Depth 17-28 | Eval -240 | Node 239K | Time 220ms", "-240"),
        ("MESSAGE Speed 849K | Depth 6-11 | Eval +M13 | Node 849 | Time 1ms", "+M13"),
        ("MESSAGE Speed 12K | Eval 45 | Time 1ms", "45"),
    ],
)
def test_an_evaluation_is_read_as_rapfi_sends_it(note: str, evaluation: str) -> None:
    found = EVALUATION.search(note)
    assert found is not None
    assert found.group(1) == evaluation


@pytest.mark.parametrize(
    ("judge_says", "search_stands"),
    [("-240", "+240"), ("+M13", "-M13"), ("-M4", "+M4"), ("45", "-45"), ("0", "0")],
)
def test_the_judges_evaluation_is_turned_round_to_the_search_side(
    judge_says: str, search_stands: str
) -> None:
    assert standing(judge_says) == search_stands


def test_recorded_games_come_back_as_they_were_played(tmp_path: Path) -> None:
    renju = Rules(15, 15, 5, variant=Variant.RENJU)
    games = tmp_path / "games.jsonl"
    played = [play(BRAIN, rules, 0, True, budget_ms=20) for rules in (GOMOKU, renju)]
    for game, rules in zip(played, (GOMOKU, renju), strict=True):
        record(game, rules, games)
    assert recorded(games) == [(GOMOKU, played[0]), (renju, played[1])]
    with pytest.raises(ValueError, match="benchmark's board"):
        record(played[0], Rules(9, 9, 5), games)


@pytest.mark.parametrize("search_first", [True, False])
def test_a_game_is_judged_after_each_of_the_search_moves(search_first: bool) -> None:
    moves = (112, 113, 97, 98, 82, 83, 67, 68, 52)
    game = game_of(moves, search_first=search_first)
    # After each of the search's moves but the last: X's after the opening's three when it
    # moves first, else O's from the fourth ply; the judge given the other side's stones.
    first_ply = 5 if search_first else 4
    expected = [
        (plies, f"-{judges_value(moves[:plies], search_first)}")
        for plies in range(first_ply, len(moves), 2)
    ]
    assert judged(EVALUATING_BRAIN, GOMOKU, game, judge_ms=20) == expected


def test_a_judge_that_sends_no_evaluation_is_shown_as_unknown() -> None:
    game = game_of((112, 113, 97, 98, 82, 83, 67), search_first=True)
    assert judged(BRAIN, GOMOKU, game, judge_ms=20) == [(5, "?")]


def test_the_table_names_where_each_game_was_lost_and_the_wins_not_taken() -> None:
    game = game_of((112, 113, 97, 98, 82, 83, 67, 68, 52, 53), search_first=True)
    standings = [(5, "+120"), (7, "+M9"), (9, "-M7")]
    row = table([(game, standings)]).splitlines()[2]
    assert row == "| 0 | first | loss | 10 | 9 | 7 | 5:+120 7:+M9 9:-M7 |"


def test_a_game_is_lost_from_the_first_forced_win_against_the_search() -> None:
    assert lost_from([(5, "+120"), (7, "+M9"), (9, "-M7"), (11, "-M5")]) == 9
    assert lost_from([(5, "+120")]) is None


def test_the_forced_wins_not_taken_are_named_only_in_games_not_won() -> None:
    standings = [(5, "+120"), (7, "+M9"), (9, "-M7")]
    lost = game_of((112,), search_first=True)
    assert missed_wins(lost, standings) == [7]
    assert missed_wins(replace(lost, result="win"), standings) == []


@pytest.mark.parametrize(
    ("found", "value"),
    [("+240", 240), ("-45", -45), ("0", 0), ("+M13", MATE_VALUE - 13), ("-M4", 4 - MATE_VALUE)],
)
def test_a_standing_is_a_number_a_forced_win_beyond_any_evaluation(found: str, value: int) -> None:
    assert value_of(found) == value
    assert value_of("?") is None


def test_the_worst_move_is_the_one_that_lost_most_of_a_lead() -> None:
    assert worst_move([(5, "+120"), (7, "+90"), (9, "-300"), (11, "-M9")]) == 9
    assert worst_move([(5, "+120"), (7, "-300"), (9, "?"), (11, "-310")]) == 7
    assert worst_move([(5, "+M30"), (7, "+200"), (9, "-100")]) == 7  # a forced win let go
    assert worst_move([(5, "-50"), (7, "+200")]) == 5  # the first move falls from 0
    assert worst_move([(5, "+50"), (7, "+200")]) is None


@pytest.mark.parametrize("search_first", [True, False])
def test_the_worst_position_is_searched_again_and_judged(search_first: bool) -> None:
    moves = (112, 113, 97, 98, 82, 83, 67, 68)
    game = game_of(moves, search_first=search_first)
    plies = 7 if search_first else 6
    found = rechecked(EVALUATING_BRAIN, GOMOKU, game, plies, budgets_ms=[20, 40], judge_ms=20)
    before = moves[: plies - 1]
    assert len(found) == 2
    for move, judged_as in found:
        assert 0 <= move < GOMOKU.cell_count
        assert move not in before
        assert judged_as == f"-{judges_value((*before, move), search_first)}"
    row = recheck_table([(game, plies, "-300", found)], [20, 40]).splitlines()[2]
    assert row.startswith(f"| 0 | {'first' if search_first else 'second'} | {plies} | -300 |")


# --- benchmarks.swap2: the service's Swap2 decisions against the judge's values ---


def test_the_swap2_benchmark_sets_the_services_side_beside_the_judges() -> None:
    """The tests' brain, playing white, values an opening at its white stone's col + row +
    1: always above 0, so it takes white, and agrees where the service plays white's move."""
    rows = swap2_benchmark.judged(EVALUATING_BRAIN, GOMOKU, budget_ms=20, judge_ms=50)
    assert [row.stones for row in rows] == list(canonical_openings(Board.empty(GOMOKU)))
    for row in rows:
        white = row.stones[1]
        assert row.judges_value == white % 15 + white // 15 + 1
        assert row.agrees is (row.decision is Decision.MOVE)
        assert row.decision is (Decision.SWAP if row.evaluation < 0 else Decision.MOVE)
    chosen = rows[5].stones
    printed = swap2_benchmark.table(rows, chosen)
    agreeing = sum(row.decision is Decision.MOVE for row in rows)
    assert f"The same side as the judge in {agreeing} of 26 openings." in printed
    # The judge's values are 14 to 16 (white beside the centre, 7,7): the placed opening's
    # rank is among the openings of its white stone's value.
    value = chosen[1] % 15 + chosen[1] // 15 + 1
    assert f"the judge's value for white {value}, ranked" in printed

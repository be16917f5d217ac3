"""`benchmarks.judge`: recorded games replayed through a judge brain, against the tests'
minimal brain (`tests/gomocup_brain.py --eval`), which reports the stones it is given as
its evaluation (a win in that many plies from six on)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from benchmarks.gomocup import EVALUATION, play, record, recorded
from benchmarks.judge import judged, lost_from, missed_wins, standing, table
from service.game.rules import Rules, Variant

BRAIN = [sys.executable, str(Path(__file__).with_name("gomocup_brain.py"))]
GOMOKU = Rules(15, 15, 5)


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
    ("judges", "searchs"),
    [("-240", "+240"), ("+M13", "-M13"), ("-M4", "+M4"), ("45", "-45"), ("0", "0")],
)
def test_the_judges_evaluation_is_turned_round_to_the_searchs_side(
    judges: str, searchs: str
) -> None:
    assert standing(judges) == searchs


@pytest.mark.parametrize("search_first", [True, False])
def test_a_recorded_game_is_judged_after_each_of_the_searchs_moves(
    search_first: bool, tmp_path: Path
) -> None:
    renju = Rules(15, 15, 5, variant=Variant.RENJU)
    games = tmp_path / "games.jsonl"
    played = [play(BRAIN, rules, 0, search_first, budget_ms=20) for rules in (GOMOKU, renju)]
    for game, rules in zip(played, (GOMOKU, renju), strict=True):
        record(game, rules, games)
    assert recorded(games) == [(GOMOKU, played[0]), (renju, played[1])]

    game = played[0]
    standings = judged([*BRAIN, "--eval"], GOMOKU, game, judge_ms=20)
    # After each of the search's moves but the last (X's after the opening's three when it
    # moves first, else O's from the fourth ply), the judge is given every stone played.
    first_ply = 5 if search_first else 4
    expected = [
        (plies, f"-M{plies}" if plies >= 6 else f"-{plies}")
        for plies in range(first_ply, game.plies, 2)
    ]
    assert standings == expected
    assert lost_from(standings) == min(
        plies for plies in range(first_ply, game.plies, 2) if plies >= 6
    )
    assert missed_wins(game, standings) == []  # the search won this game
    row = table([(game, standings)]).splitlines()[2]
    assert row.startswith(f"| 0 | {'first' if search_first else 'second'} | win | {game.plies} |")


def test_a_forced_win_the_judge_saw_is_named_in_a_game_the_search_lost() -> None:
    game = play(BRAIN, GOMOKU, 0, True, budget_ms=20)
    lost = type(game)(**{**game.__dict__, "result": "loss"})
    assert missed_wins(lost, [(5, "+120"), (7, "+M9"), (9, "-M7")]) == [7]
    assert lost_from([(5, "+120"), (7, "+M9"), (9, "-M7")]) == 9
    assert lost_from([(5, "+120")]) is None

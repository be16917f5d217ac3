"""`benchmarks.rate`: the search's moves in recorded positions, rated by a judge brain (the
tests' minimal brain, `tests/gomocup_brain.py --eval`, which reports the sum of col + row + 1
over the stones it is given as its own), and two runs compared position by position."""

from __future__ import annotations

import math
import shlex
import sys
from pathlib import Path

import pytest

from benchmarks.gomocup import Game, record, search_as_served
from benchmarks.rate import (
    FIRST_PLIES,
    LAST_PLIES,
    SCORE_SCALE,
    Rating,
    compared,
    expected_score,
    main,
    positions,
    rate,
    saved,
)
from service.game.board import Mark
from service.game.moves import game_after
from service.game.rules import Rules

EVALUATING_BRAIN = [sys.executable, str(Path(__file__).with_name("gomocup_brain.py")), "--eval"]
GOMOKU = Rules(15, 15, 5)
#: X's four open at both ends after ply 8 (cells 112, 97, 82, 67 of column 7), O's stones
#: beside them: X completes a five at 52 or 127 whatever the time.
WON_AT_ONCE = (112, 113, 97, 98, 82, 83, 67, 100)


def game_of(moves: tuple[int, ...], *, search_first: bool) -> Game:
    """Return a recorded game of these moves (its figures beside the point here)."""
    return Game(0, search_first, "loss", len(moves), 0.02, 0.01, 1000.0, None, moves=moves)


@pytest.mark.parametrize(
    ("found", "score"),
    [
        ("0", 0.5),
        ("+200", 1 / (1 + math.exp(-200 / SCORE_SCALE))),
        ("-200", 1 / (1 + math.exp(200 / SCORE_SCALE))),
        ("+M13", 1.0),
        ("-M5", 0.0),
    ],
)
def test_a_standing_is_an_expected_score_a_forced_end_a_certainty(found: str, score: float) -> None:
    assert expected_score(found) == pytest.approx(score)
    assert expected_score("?") is None


def test_the_positions_are_the_search_moves_as_first_player_in_the_middle_game() -> None:
    opened = game_of(tuple(range(50)), search_first=True)
    answered = game_of(tuple(range(100, 150)), search_first=False)
    odd = game_of(tuple(range(200, 209)), search_first=True)  # won by the search's 5th move
    even = game_of(tuple(range(210, 220)), search_first=True)  # lost on the opponent's
    found = positions([(GOMOKU, game) for game in (opened, answered, odd, even)], every=1)
    expected_plies = [*range(FIRST_PLIES, LAST_PLIES, 2), 4, 6, 4, 6, 8]
    assert [len(before) for _rules, before in found] == expected_plies
    assert all(len(before) % 2 == 0 for _rules, before in found)  # X to move
    # Never the position before a game's last move that was the search's: it ended the game.
    assert found[-4][1] == tuple(range(200, 206))
    assert found[-1][1] == tuple(range(210, 218))
    assert positions([(GOMOKU, opened)], every=3) == positions([(GOMOKU, opened)], every=1)[::3]


def test_answered_the_positions_are_the_search_replies_as_second_player() -> None:
    opened = game_of(tuple(range(50)), search_first=True)
    answered = game_of(tuple(range(100, 150)), search_first=False)
    won = game_of(tuple(range(200, 208)), search_first=False)  # won by the search's move
    lost = game_of(tuple(range(210, 219)), search_first=False)  # lost on the opponent's
    games = [(GOMOKU, game) for game in (opened, answered, won, lost)]
    found = positions(games, every=1, answered=True)
    expected_plies = [*range(3, 38, 2), 3, 5, 3, 5, 7]
    assert [len(before) for _rules, before in found] == expected_plies
    assert all(len(before) % 2 == 1 for _rules, before in found)  # O to move
    assert found[0][1] == tuple(range(100, 103))  # the first reply, after the opening's stones
    # Never the position before the search's move that ended its game; always its own
    # move before the opponent's that did.
    assert found[-4][1] == tuple(range(200, 205))
    assert found[-1][1] == tuple(range(210, 217))


def test_a_rating_is_the_searchs_move_and_the_judges_standing_after_it() -> None:
    rating = rate(EVALUATING_BRAIN, GOMOKU, WON_AT_ONCE, budget_ms=50, judge_ms=20)
    assert rating.before == WON_AT_ONCE
    assert rating.move in {52, 127}
    board = game_after(WON_AT_ONCE, GOMOKU).board
    assert rating.move == search_as_served(board, Mark.X, 0.05).move
    # The judge moves O: its own stones are O's, the search's standing their sum turned round.
    judges = WON_AT_ONCE[1::2]
    assert rating.standing == f"-{sum(cell % 15 + cell // 15 + 1 for cell in judges)}"


def test_two_runs_are_compared_over_the_positions_both_rated() -> None:
    ratings = [
        Rating((1,), 10, "+200"),
        Rating((2,), 20, "0"),
        Rating((3,), 30, "+M9"),
        Rating((4,), 40, "?"),  # no standing: left out
        Rating((5,), 50, "+100"),  # not in the baseline: left out
        Rating((6,), 60, "+100"),  # no standing in the baseline: left out
    ]
    baseline = [  # paired by position, not by order
        Rating((3,), 31, "-M7"),
        Rating((6,), 60, "?"),
        Rating((1,), 10, "0"),
        Rating((4,), 40, "+10"),
        Rating((2,), 21, "0"),
    ]
    count, mean, error, same = compared(ratings, baseline)
    differences = [1 / (1 + math.exp(-200 / SCORE_SCALE)) - 0.5, 0.0, 1.0]
    assert (count, same) == (3, 1)
    assert mean == pytest.approx(sum(differences) / 3)
    spread = math.sqrt(sum((d - mean) ** 2 for d in differences) / 2)
    assert error == pytest.approx(spread / math.sqrt(3))


def test_a_run_writes_its_ratings_and_compares_them_with_a_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    games = tmp_path / "games.jsonl"
    record(game_of((*WON_AT_ONCE, 52), search_first=True), GOMOKU, games)
    record(game_of((*WON_AT_ONCE, 52, 53), search_first=False), GOMOKU, games)  # not rated
    out, baseline = tmp_path / "ratings.jsonl", tmp_path / "baseline.jsonl"
    arguments = ["rate", "--records", str(games), "--budget-ms", "50", "--judge-ms", "20"]
    brain = ["--", *EVALUATING_BRAIN]  # its own flags are not the benchmark's
    monkeypatch.setattr(sys, "argv", [*arguments, "--out", str(baseline), *brain])
    main()
    compared_with = ["--baseline", str(baseline)]
    monkeypatch.setattr(sys, "argv", [*arguments, "--out", str(out), *compared_with, *brain])
    main()
    written = saved(out)
    assert [rating.before for rating in written] == [WON_AT_ONCE[:4], WON_AT_ONCE[:6]]
    # The judge values only its own stones: the same standings whatever the search played.
    assert [(r.before, r.standing) for r in saved(baseline)] == [
        (r.before, r.standing) for r in written
    ]
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1].startswith(f"against {baseline}: +0.0000 ± 0.0000 (standard error) over 2")


def test_another_revision_is_rated_in_the_same_run_against_this_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    games = tmp_path / "games.jsonl"
    record(game_of((*WON_AT_ONCE, 52), search_first=True), GOMOKU, games)
    out, theirs = tmp_path / "ratings.jsonl", tmp_path / "theirs.jsonl"
    # The other "revision": the tests' brain, which plays the first empty cell (cell 0).
    other = shlex.join([sys.executable, str(Path(__file__).with_name("gomocup_brain.py"))])
    monkeypatch.setattr(sys, "argv", [
        "rate", "--records", str(games), "--budget-ms", "50", "--judge-ms", "20",
        "--out", str(out), "--against", other, "--against-out", str(theirs),
        "--", *EVALUATING_BRAIN,
    ])  # fmt: skip
    main()
    mine, its = saved(out), saved(theirs)
    assert [rating.before for rating in mine] == [rating.before for rating in its]
    assert [rating.before for rating in mine] == [WON_AT_ONCE[:4], WON_AT_ONCE[:6]]
    assert {rating.move for rating in its} == {0}
    assert all(rating.move != 0 for rating in mine)
    # The judge values only its own stones: the same standings whatever each side played.
    assert [rating.standing for rating in mine] == [rating.standing for rating in its]
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == f"against {other}: +0.0000 ± 0.0000 (standard error) over 2 " + (
        "positions, the same move in 0"
    )


def test_against_needs_its_own_out(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "argv", [
        "rate", "--records", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "out.jsonl"),
        "--against", "brain", "--", *EVALUATING_BRAIN,
    ])  # fmt: skip
    with pytest.raises(SystemExit):
        main()

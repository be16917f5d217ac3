"""`benchmarks.selfplay` (a match, a game on each core at once), its share by opening
(`benchmarks.gomocup.paired_share`) and the even openings of `benchmarks.openings`, against
the tests' minimal brain (`tests/gomocup_brain.py`)."""

from __future__ import annotations

import math
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.brain import MARGIN_MS
from benchmarks.gomocup import BrainError, Game, opening, paired_share, recorded
from benchmarks.openings import even_openings
from benchmarks.selfplay import match
from service.game.rules import Rules, Variant

BRAIN = [sys.executable, str(Path(__file__).with_name("gomocup_brain.py"))]
GOMOKU = Rules(15, 15, 5)


def games_of(results: dict[int, tuple[str, str]]) -> list[Game]:
    """Return games with these results by seed: as X, then as O."""
    return [
        Game(seed, search_first, result, 9, 0.1, 0.1, 1.0, None)
        for seed, both in results.items()
        for search_first, result in zip((True, False), both, strict=True)
    ]


def test_the_share_is_taken_by_opening_each_one_sample() -> None:
    """Openings won both ways (1), split (1/2), and won as X only with a draw as O (3/4)."""
    found = paired_share(games_of({1: ("win", "win"), 2: ("win", "loss"), 3: ("win", "draw")}))
    assert found.openings == 3
    assert found.share == pytest.approx(0.75)
    assert found.standard_error == pytest.approx(0.25 / math.sqrt(3))
    assert found.elo == pytest.approx(400 * math.log10(3))
    assert str(found).startswith("by opening (3, each both ways): 75.0% ± 14.4%, +191 Elo")


def test_an_opening_played_one_way_only_is_left_out() -> None:
    one_way = games_of({3: ("win", "win")})[:1]
    games = [*games_of({1: ("win", "loss"), 2: ("loss", "loss")}), *one_way]
    assert paired_share(games).openings == 2
    assert paired_share(games).share == pytest.approx(0.25)


def test_a_share_needs_two_openings_played_both_ways() -> None:
    with pytest.raises(ValueError, match="two openings"):
        paired_share(games_of({1: ("win", "win")}))


def test_a_sweep_has_no_finite_elo() -> None:
    assert math.isnan(paired_share(games_of({1: ("win", "win"), 2: ("win", "win")})).elo)


def test_a_match_plays_every_opening_both_ways_and_records_each_game(tmp_path: Path) -> None:
    """The brain plays the first empty cells: the search wins every game, on any core."""
    record_to = tmp_path / "games.jsonl"
    games = match(BRAIN, GOMOKU, [3, 5, 8], budget_ms=20, record_to=record_to)
    assert Counter((game.seed, game.search_first) for game in games) == {
        (seed, first): 1 for seed in (3, 5, 8) for first in (True, False)
    }
    assert {game.result for game in games} == {"win"}
    assert {game for _rules, game in recorded(record_to)} == set(games)
    assert paired_share(games).share == 1.0


def test_an_openings_two_games_are_played_by_one_brain_process(tmp_path: Path) -> None:
    """The second game of an opening restarts the brain of the first (RESTART), which
    plays it from an empty board."""
    starts = tmp_path / "starts.txt"
    games = match([*BRAIN, "--log-starts", str(starts)], GOMOKU, [3, 5], 20, None)
    assert len(games) == 4
    assert {game.result for game in games} == {"win"}
    assert starts.read_text(encoding="utf-8").splitlines() == ["started"] * 2


def test_the_even_openings_are_those_the_judge_rates_within_the_margin() -> None:
    """The tests' judge (`--eval`), given O to move, values its own stones' col + row + 1:
    X's standing is minus that of the opening's O stone."""
    seeds = range(12)
    found = list(even_openings([*BRAIN, "--eval"], GOMOKU, seeds, within=15, judge_ms=20))
    expected = [
        seed
        for seed in seeds
        if sum(divmod(opening(GOMOKU, seed)[1], 15)) + 1 <= 15  # its O stone's row + col + 1
    ]
    assert found == expected
    assert 0 < len(found) < len(seeds)  # the margin tells the openings apart


def test_the_command_judges_renju_openings_under_renju() -> None:
    """`--variant renju` tells the judge renju's rule (`INFO rule 4`), without which the
    tests' judge answers nonsense; the even openings are printed one a line."""
    judge = [*BRAIN, "--eval", "--expect-rule", "4"]
    command = [sys.executable, "-m", "benchmarks.openings", "--first-seed", "0", "--count", "12",
               "--within", "15", "--judge-ms", "20"]  # fmt: skip
    printed = subprocess.run(
        [*command, "--variant", "renju", "--", *judge],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout.split()  # fmt: skip
    renju = replace(GOMOKU, variant=Variant.RENJU)
    assert printed == [str(seed) for seed in even_openings(judge, renju, range(12), 15, 20)]
    assert printed
    told_freestyle = subprocess.run(
        [*command, "--", *judge], capture_output=True, text=True, timeout=120, check=False
    )
    assert told_freestyle.returncode != 0
    assert "not a move" in told_freestyle.stderr


def test_the_brain_gets_the_margin_it_keeps_for_its_answer_unless_given_its_own_time() -> None:
    """The tests' brain answers nonsense unless told the turn's time it expects."""
    kept = [*BRAIN, "--expect-timeout-turn", str(20 + MARGIN_MS)]
    assert {game.result for game in match(kept, GOMOKU, [1, 2], 20, None)} == {"win"}
    odds = [*BRAIN, "--expect-timeout-turn", "10"]
    assert len(match(odds, GOMOKU, [1, 2], 20, None, brain_budget_ms=10)) == 4
    with pytest.raises(BrainError, match="not a move"):
        match(odds, GOMOKU, [1, 2], 20, None)

"""The Gomocup protocol driver of `benchmarks.gomocup`, against a minimal brain of the
tests' own (`tests/gomocup_brain.py`), in its own process as a real brain would be."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import gomocup
from benchmarks.gomocup import SPEED, BrainError, opening, play, table
from service.game.rules import Rules, Variant
from service.game.search import SearchResult, search

BRAIN = [sys.executable, str(Path(__file__).with_name("gomocup_brain.py"))]
GOMOKU = Rules(15, 15, 5)


@pytest.mark.parametrize("search_first", [True, False])
def test_a_game_against_a_brain_is_played_to_its_end(search_first: bool) -> None:
    """The brain plays the first empty cells; the search blocks its row and wins."""
    game = play(BRAIN, GOMOKU, seed=0, search_first=search_first, budget_ms=20)
    assert game.result == "win"
    assert 9 <= game.plies < 60
    assert game.longest_brain_seconds > 0
    assert game.brain_nodes_per_second == 12_000  # read from its notes
    assert game.search_nodes_per_second > 0
    assert len(game.moves) == game.plies  # every cell, once, in the order played
    assert len(set(game.moves)) == game.plies
    assert game.moves[:3] == tuple(opening(GOMOKU, 0))


@pytest.mark.parametrize(
    ("note", "speed"),
    [
        ("MESSAGE depth=9 NPS=950k", ("950", "k")),  # Wine
        ("MESSAGE Speed 1088K | Depth 17-28 | Eval -240 | Node 239K | Time 220ms", ("1088", "K")),
    ],
)
def test_a_brains_speed_is_read_as_wine_and_rapfi_send_it(
    note: str, speed: tuple[str, str]
) -> None:
    found = SPEED.search(note)
    assert found is not None
    assert found.groups() == speed


def test_a_brain_that_answers_no_move_is_an_error() -> None:
    with pytest.raises(BrainError, match="not a move"):
        play([*BRAIN, "--garbage"], GOMOKU, seed=0, search_first=False, budget_ms=20)


@pytest.mark.parametrize("search_first", [True, False])
@pytest.mark.parametrize("drops", ["--busy-once", "--silent-once"])
def test_a_turn_the_brain_drops_while_it_winds_up_is_sent_again(
    drops: str, search_first: bool
) -> None:
    """Rapfi drops a TURN that comes as its last search winds up and reads the move as a
    command (`ERROR Unknown command: 7,7`), or drops both and says nothing: the game goes
    on to its end as if it had not, the brain's every move on an empty cell (it was told
    each of the search's)."""
    game = play([*BRAIN, drops], GOMOKU, seed=0, search_first=search_first, budget_ms=20)
    assert game.brain_illegal is None
    assert game.plies >= 7  # the opening, then moves on both sides after the dropped TURN
    assert len(set(game.moves)) == len(game.moves)


@pytest.mark.parametrize("search_first", [True, False])
def test_a_brain_that_plays_on_a_taken_cell_loses_that_game(search_first: bool) -> None:
    """As Gomocup's judge rules: the game ends there and the run goes on."""
    game = play([*BRAIN, "--taken"], GOMOKU, seed=0, search_first=search_first, budget_ms=20)
    assert game.result == "win"
    assert game.brain_illegal is not None
    assert "taken cell" in game.brain_illegal


def test_the_brain_is_told_the_variant_by_its_gomocup_rule() -> None:
    standard = Rules(15, 15, 5, variant=Variant.STANDARD)
    told_standard = [*BRAIN, "--expect-rule", "1"]
    game = play(told_standard, standard, seed=0, search_first=True, budget_ms=20)
    assert game.result == "win"
    with pytest.raises(BrainError, match="not a move"):
        play(told_standard, GOMOKU, seed=0, search_first=True, budget_ms=20)


def test_the_brain_may_be_given_other_time_than_the_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Time odds: the brain is told its own time a move; the search keeps its budget."""
    budgets: list[float] = []

    def timed_search(*arguments: Any, **options: Any) -> SearchResult:
        budgets.append(arguments[2])  # search(board, mover, seconds, ...)
        return search(*arguments, **options)

    monkeypatch.setattr(gomocup, "search", timed_search)
    told_ten = [*BRAIN, "--expect-timeout-turn", "10"]
    game = play(told_ten, GOMOKU, seed=0, search_first=True, budget_ms=20, brain_budget_ms=10)
    assert game.result == "win"
    assert set(budgets) == {0.02}  # every move of the search, at its own 20 ms
    with pytest.raises(BrainError, match="not a move"):
        play(told_ten, GOMOKU, seed=0, search_first=True, budget_ms=20)


def test_the_table_shows_the_brains_time_where_it_differs() -> None:
    game = play(BRAIN, GOMOKU, seed=0, search_first=True, budget_ms=20)
    rows = table([game], "first-empty", 20, brain_budget_ms=10).splitlines()
    assert rows[2].startswith("| first-empty | 20 ms (brain 10 ms) | first | 1 | 0 | 0 |")
    assert table([game], "first-empty", 20, brain_budget_ms=20) == table([game], "first-empty", 20)


@pytest.mark.parametrize("search_first", [True, False])
def test_a_renju_game_is_played_to_its_end_without_a_foul_of_the_search(
    search_first: bool,
) -> None:
    """The brain is told rule 4; the benchmark stops on any foul of the search's."""
    renju = Rules(15, 15, 5, variant=Variant.RENJU)
    game = play(
        [*BRAIN, "--expect-rule", "4"], renju, seed=1, search_first=search_first, budget_ms=20
    )
    assert game.result == "win"
    assert game.brain_foul is None


def test_openings_differ_by_seed_and_stay_near_the_centre() -> None:
    openings = {tuple(opening(GOMOKU, seed)) for seed in range(8)}
    assert len(openings) == 8
    for cells in openings:
        assert len(set(cells)) == 3  # X, O, X
        assert all(abs(cell // 15 - 7) <= 2 and abs(cell % 15 - 7) <= 2 for cell in cells)


def test_the_table_counts_each_side() -> None:
    games = [
        play(BRAIN, GOMOKU, seed=seed, search_first=first, budget_ms=20)
        for first in (True, False)
        for seed in range(2)
    ]
    rows = table(games, "first-empty", 20).splitlines()
    assert rows[2].startswith("| first-empty | 20 ms | first | 2 | 0 | 0 |")
    assert rows[3].startswith("| first-empty | 20 ms | second | 2 | 0 | 0 |")
    share, ours, theirs = (cell.strip() for cell in rows[2].strip("|").split("|")[8:])
    assert (share, theirs) == ("100%", "12,000")
    assert int(ours.replace(",", "")) > 0


def test_the_openings_may_be_named_by_their_seeds(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    played = tmp_path / "games.jsonl"
    arguments = ["--seeds", "3", "11", "--budget-ms", "20", "--record", str(played)]
    monkeypatch.setattr(sys, "argv", ["gomocup", *BRAIN, *arguments])
    gomocup.main()
    games = [game for _rules, game in gomocup.recorded(played)]
    assert sorted((game.seed, game.search_first) for game in games) == [
        (3, False), (3, True), (11, False), (11, True)
    ]  # fmt: skip
    assert "by opening (2, each both ways): 100.0% ± 0.0%" in capsys.readouterr().out

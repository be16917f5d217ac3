"""What a search's `evaluation` means: on boards beyond the tables, where the game keeps
shapes, read on the fitted scale (so that (1 + evaluation) / 2 is a chance of winning)
and never at an end's 0.99 unless the tree saw one; smaller boards as before; and
`benchmarks.calibration`, which holds the evaluations to a judge, against the tests'
minimal brain (`tests/gomocup_brain.py --eval`: the sum of col + row + 1 over its own
stones)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from benchmarks import calibration
from benchmarks.calibration import Sample, brier, chance_read, fitted_scale, positions, sample
from benchmarks.gomocup import Game
from service.game import search as search_module
from service.game.board import Board, Mark
from service.game.compiled.evaluation import SHAPE_SCALE, SMALL_BOARD_SHAPE_SCALE
from service.game.rules import Rules
from service.game.warmup import prepare

EVALUATING_BRAIN = [sys.executable, str(Path(__file__).with_name("gomocup_brain.py")), "--eval"]
GOMOKU = Rules(15, 15, 5)


@pytest.fixture(scope="module", autouse=True)
def compiled_search() -> None:
    """Load the compiled search first: its loading is no search's budget."""
    prepare()


def judged(value: int, *, proven: bool = False, cells: int = 225) -> float:
    """Return the evaluation a search of a five-in-a-row board of `cells` reads for `value`."""
    rules = Rules(15, cells // 15, 5) if cells % 15 == 0 else Rules(1, cells, 5)
    found = search_module.Search(Board.empty(rules), Mark.X, 0.01)
    return found._judged(value, proven=proven)[1]


@pytest.mark.parametrize("value", [-5000, -800, -96, 0, 12, 144, 1300, 2600, 7000])
def test_beyond_the_tables_a_value_reads_on_the_fitted_scale(value: int) -> None:
    assert judged(value) == round(max(-0.98, min(0.98, math.tanh(value / SHAPE_SCALE))), 4)


@pytest.mark.parametrize("value", [-30_000, 30_000, 9_000])
def test_a_leaf_the_shapes_decide_reads_below_an_end_the_tree_saw(value: int) -> None:
    assert abs(judged(value)) == 0.98


@pytest.mark.parametrize("value", [-30_000, -800, 12, 2600, 30_000])
def test_boards_the_tables_could_hold_keep_the_scale_they_had(value: int) -> None:
    assert judged(value, cells=16) == round(math.tanh(value / SMALL_BOARD_SHAPE_SCALE), 4)


def test_an_evaluation_reads_a_chance_of_winning_for_the_side_to_move() -> None:
    assert chance_read(0.0) == 0.5
    assert chance_read(0.5) == pytest.approx(0.75)
    assert chance_read(-0.5) == pytest.approx(0.25)
    # Read on a scale twice as large, the same value is half as far from even.
    assert chance_read(math.tanh(2.0), 0.5) == pytest.approx((1 + math.tanh(1.0)) / 2)


def read_at(scale: int, value: int, chance: float) -> Sample:
    """Return a sample whose evaluation is `value` read on `scale`."""
    return Sample((), math.tanh(value / scale), False, chance)


def test_the_fitted_scale_is_the_one_that_matches_the_judge() -> None:
    # Judged as a scale of 1,500 would read them, and read by the search on 2,600.
    samples = [
        read_at(SHAPE_SCALE, value, (1 + math.tanh(value / 1500)) / 2)
        for value in range(-3000, 3001, 250)
    ]
    assert fitted_scale(samples) == 1500
    assert brier(samples, SHAPE_SCALE / 1500) == pytest.approx(0.0, abs=1e-12)
    assert brier(samples) > 0.001


def game(moves: tuple[int, ...]) -> Game:
    """Return a recorded game of these moves (its figures beside the point here)."""
    return Game(0, True, "loss", len(moves), 0.02, 0.01, 1000.0, None, moves=moves)


def test_positions_start_after_a_reply_to_the_opening_and_stop_before_the_end() -> None:
    moves = (112, 113, 114, 115, 116, 117, 118)
    found = positions([(GOMOKU, game(moves))], every=1)
    assert [before for _, before in found] == [moves[:4], moves[:5], moves[:6]]
    assert [before for _, before in positions([(GOMOKU, game(moves))], every=2)] == [
        moves[:4],
        moves[:6],
    ]


@pytest.mark.parametrize("before", [(112, 113, 127, 128), (112, 113, 127, 128, 142)])
def test_the_judges_chance_is_for_the_side_the_search_evaluates(before: tuple[int, ...]) -> None:
    found = sample(EVALUATING_BRAIN, GOMOKU, before, budget_ms=20, judge_ms=20)
    # The judge plays the side to move and values its own stones; the sample turns its
    # standing (the side that has just moved's) round again, to the side to move's.
    to_move = [cell for ply, cell in enumerate(before) if ply % 2 == len(before) % 2]
    own = sum(cell % 15 + cell // 15 + 1 for cell in to_move)
    assert found.chance == pytest.approx(1 / (1 + math.exp(-own / 200)))
    assert found.before == before
    assert -1 <= found.evaluation <= 1


def test_the_table_groups_by_size_and_counts_apart_what_it_cannot_hold_to_the_judge() -> None:
    samples = [
        Sample((), 0.01, False, 0.6),
        Sample((), -0.3, False, 0.2),
        Sample((), 0.3, False, 0.9),
        Sample((), 1.0, True, 1.0),
        Sample((), 0.99, False, 0.9),
        Sample((), 0.1, False, None),
    ]
    text = calibration.table(samples)
    assert "| 0.0 to 0.02 | 1 | 0.51 | 0.60 |" in text
    # -0.3 favours the other side: the judge's 0.2 is 0.8 for it.
    assert "| 0.2 to 0.4 | 2 | 0.65 | 0.85 |" in text
    assert "3 positions read (2 proved, ended or decided; 1 unjudged)" in text
    assert "the same side favoured in 100%" in text

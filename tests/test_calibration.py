"""What a search's `evaluation` means: on boards of more than 16 cells, where the game
keeps shapes, read on the fitted scale (so that (1 + evaluation) / 2 is a chance of
winning), and on every board of more than 16 cells never at an end's 0.99 unless the tree
saw one; boards of 16 cells or fewer as before; and
`benchmarks.calibration`, which holds the evaluations to a judge, against the tests'
minimal brain (`tests/gomocup_brain.py --eval`: the sum of col + row + 1 over its own
stones)."""

from __future__ import annotations

import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from benchmarks import calibration
from benchmarks.calibration import Sample, brier, chance_read, fitted_scale, positions, sample
from benchmarks.gomocup import Game
from service.game import analysis as analysis_module
from service.game import search as search_module
from service.game.board import Board, Mark
from service.game.compiled.evaluation import (
    FITTED_SHAPE_SCALE,
    SHAPE_SCALE,
    SMALL_BOARD_SHAPE_SCALE,
)
from service.game.compiled.kernel import MATE
from service.game.geometry import Geometry
from service.game.rules import Rules, Variant
from service.game.warmup import prepare

EVALUATING_BRAIN = [sys.executable, str(Path(__file__).with_name("gomocup_brain.py")), "--eval"]
GOMOKU = Rules(15, 15, 5)


@pytest.fixture(scope="module", autouse=True)
def compiled_search() -> None:
    """Load the compiled search first: its loading is no search's budget."""
    prepare()


def judged(value: int, *, proven: bool = False, rules: Rules = GOMOKU) -> float:
    """Return the evaluation a search by `rules` reads for `value`."""
    found = search_module.Search(Board.empty(rules), Mark.X, 0.01)
    return found._judged(value, proven=proven)[1]


def windows(value: int, rules: Rules) -> float:
    """Return `value` read by the windows' scale of `rules` (games without shapes)."""
    return math.tanh(value / (2 * Geometry(rules).weights[rules.k]))


def within_the_limit(evaluation: float) -> float:
    """Return `evaluation` as a search beyond the tables reports it."""
    return round(max(-0.98, min(0.98, evaluation)), 4)


@pytest.mark.parametrize("value", [-5000, -800, -96, 0, 12, 144, 1300, 2600, 7000])
def test_beyond_the_tables_a_value_reads_on_the_fitted_weights_scale(value: int) -> None:
    assert judged(value) == within_the_limit(math.tanh(value / FITTED_SHAPE_SCALE))
    assert judged(value, rules=Rules(5, 5, 5)) == judged(value)
    assert judged(value, rules=replace(GOMOKU, variant=Variant.RENJU)) == judged(value)


@pytest.mark.parametrize("variant", [Variant.STANDARD, Variant.CARO])
@pytest.mark.parametrize("value", [-5000, -96, 0, 144, 2600, 7000])
def test_the_variants_on_wines_weights_read_on_their_scale(value: int, variant: Variant) -> None:
    rules = replace(GOMOKU, variant=variant)
    assert judged(value, rules=rules) == within_the_limit(math.tanh(value / SHAPE_SCALE))


@pytest.mark.parametrize("value", [-30_000, 30_000, 9_000])
def test_a_leaf_the_shapes_decide_reads_below_an_end_the_tree_saw(value: int) -> None:
    assert abs(judged(value)) == 0.98


@pytest.mark.parametrize("rules", [Rules(1, 16, 5), Rules(2, 8, 5), Rules(3, 5, 5)])
@pytest.mark.parametrize("value", [-30_000, -800, 12, 2600, 30_000])
def test_boards_of_16_cells_or_fewer_keep_the_scale_they_had(value: int, rules: Rules) -> None:
    assert judged(value, rules=rules) == round(math.tanh(value / SMALL_BOARD_SHAPE_SCALE), 4)


def test_the_fitted_scale_starts_at_17_cells() -> None:
    assert judged(FITTED_SHAPE_SCALE, rules=Rules(1, 17, 5)) == round(math.tanh(1.0), 4)


@pytest.mark.parametrize(
    "rules", [Rules(15, 15, 5, misere=True), Rules(15, 15, 4), Rules(1, 16, 4, misere=True)]
)
@pytest.mark.parametrize("value", [-(10**5), -40, 0, 40, 10**5])
def test_games_without_shapes_read_the_windows_within_the_limit_beyond_16_cells(
    rules: Rules, value: int
) -> None:
    reading = windows(value, rules)
    if rules.cell_count > 16:
        reading = max(-0.98, min(0.98, reading))
    assert judged(value, rules=rules) == round(reading, 4)


@pytest.mark.parametrize("rules", [GOMOKU, Rules(15, 15, 4), Rules(2, 8, 5)])
def test_an_end_seen_reads_099_and_a_proven_one_1(rules: Rules) -> None:
    seen = MATE - 7  # beyond the heuristic limit: an end 7 plies away
    assert (judged(seen, rules=rules), judged(-seen, rules=rules)) == (0.99, -0.99)
    assert (judged(seen, proven=True, rules=rules), judged(-seen, proven=True, rules=rules)) == (
        1.0,
        -1.0,
    )


def test_an_evaluation_reads_a_chance_of_winning_for_the_side_to_move() -> None:
    assert chance_read(0.0) == 0.5
    assert chance_read(0.5) == pytest.approx(0.75)
    assert chance_read(-0.5) == pytest.approx(0.25)
    # Read on a scale twice as large, the same value is half as far from even.
    assert chance_read(math.tanh(2.0), 0.5) == pytest.approx((1 + math.tanh(1.0)) / 2)


def read_at(scale: int, value: int, chance: float) -> Sample:
    """Return a sample whose evaluation is `value` read on `scale`."""
    return Sample((), math.tanh(value / scale), False, chance, scale)


def test_the_fitted_scale_is_the_one_that_matches_the_judge() -> None:
    # Judged as a scale of 1,800 would read them, and read by the searches on their own
    # scales (both other than 1,800).
    samples = [
        read_at(scale, value, (1 + math.tanh(value / 1800)) / 2)
        for value in range(-3000, 3001, 250)
        for scale in (SHAPE_SCALE, FITTED_SHAPE_SCALE)
    ]
    assert fitted_scale(samples) == 1800
    assert brier(samples, 1800) == pytest.approx(0.0, abs=1e-12)
    assert brier(samples) > 0.001
    scales = " and ".join(f"{scale:,}" for scale in sorted({FITTED_SHAPE_SCALE, SHAPE_SCALE}))
    assert f"(the search's {scales})" in calibration.table(samples)


@pytest.mark.parametrize(
    ("rules", "scale"),
    [(GOMOKU, FITTED_SHAPE_SCALE), (replace(GOMOKU, variant=Variant.CARO), SHAPE_SCALE)],
)
def test_a_sample_keeps_the_scale_its_search_read_on(rules: Rules, scale: int) -> None:
    assert calibration.scale_read_on(rules) == scale


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
        Sample((), 0.01, False, 0.6, SHAPE_SCALE),
        Sample((), -0.3, False, 0.2, SHAPE_SCALE),
        Sample((), 0.3, False, 0.9, SHAPE_SCALE),
        Sample((), 1.0, True, 1.0, SHAPE_SCALE),
        Sample((), 0.99, False, 0.9, SHAPE_SCALE),
        Sample((), 0.1, False, None, SHAPE_SCALE),
    ]
    text = calibration.table(samples)
    assert "| 0.0 to 0.02 | 1 | 0.51 | 0.60 |" in text
    # -0.3 favours the other side: the judge's 0.2 is 0.8 for it.
    assert "| 0.2 to 0.4 | 2 | 0.65 | 0.85 |" in text
    assert "3 positions read (2 proved, ended or decided; 1 unjudged)" in text
    assert "the same side favoured in 100%" in text


@pytest.mark.parametrize(
    ("rules", "x", "o", "by_value"),
    [
        (GOMOKU, (112,), (), True),
        # X to move with three in a row: some moves win, some do not.
        (Rules(1, 16, 5), (6, 7, 8), (0, 1, 15), False),
        (Rules(2, 8, 5), (1, 2, 3), (8, 9, 15), False),
    ],
)
def test_an_analysis_ranks_moves_that_read_alike_by_their_values_beyond_16_cells(
    monkeypatch: pytest.MonkeyPatch,
    rules: Rules,
    x: tuple[int, ...],
    o: tuple[int, ...],
    by_value: bool,
) -> None:
    """Every move read alike (as at the limit of 0.98): beyond 16 cells the greater value
    first; on smaller boards, whose answers never change, the lower cell first, as before."""
    valued: dict[int, int] = {}
    estimate = analysis_module.Ranking._estimate

    def keeping(self: Any, move: int, value: int, *args: Any, **kwargs: Any) -> Any:
        valued[move] = value
        return estimate(self, move, value, *args, **kwargs)

    monkeypatch.setattr(analysis_module.Ranking, "_estimate", keeping)
    monkeypatch.setattr(analysis_module.Ranking, "_judged", lambda self, value, proven: (None, 0.5))
    board = Board.empty(rules)
    for cells, mark in ((x, Mark.X), (o, Mark.O)):
        for cell in cells:
            board = board.play(cell, mark)
    mover = Mark.O if len(x) > len(o) else Mark.X
    ranked = [found.move for found in analysis_module.analyse(board, mover, 0.05).moves]
    assert len(ranked) > 2
    assert len({valued[move] for move in ranked}) > 1  # the values would tell them apart
    if by_value:
        assert ranked == sorted(ranked, key=lambda move: (-valued[move], move))
    else:
        assert ranked == sorted(ranked)

"""`benchmarks.fit`: the positions of recorded games it weighs and how it labels them, the
regression it fits, and the command that prints the leaves' weights in the evaluation's
order, the shapes it leaves out kept as they stand."""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from benchmarks.fit import (
    MOVER_COLUMNS,
    WAITING_COLUMNS,
    as_inputs,
    design,
    fitted,
    fitted_positions,
    held_out,
    log_loss,
    positions,
    scaled,
    standing,
)
from benchmarks.gomocup import GOMOKU, Game, record
from service.game.compiled import evaluation
from service.game.compiled.evaluation import _shape_value
from service.game.compiled.shapes import (
    DOUBLE_FOURS,
    DOUBLE_THREES,
    FIVE,
    FOUR,
    OPEN_FOUR,
    OPEN_THREE,
)
from service.game.compiled.state import _shapes, new_state, shape_rule
from service.game.geometry import geometry_of
from service.game.rules import Variant
from service.game.warmup import prepare

#: X's five along the top row, O's stones on the third: X wins at its fifth stone.
TOP_ROW_FIVE = (0, 30, 1, 31, 2, 33, 3, 35, 4)


@pytest.fixture(scope="module", autouse=True)
def compiled_search() -> None:
    """Load the compiled search first."""
    prepare()


def game(moves: tuple[int, ...], *, search_first: bool, result: str, seed: int = 0) -> Game:
    """Return a recorded game of `moves`, from the search's side."""
    return Game(seed, search_first, result, len(moves), 0.1, 0.1, 1.0, None, moves=moves)


def test_positions_run_from_the_fourth_stone_labelled_for_the_side_to_move() -> None:
    """X (the search) wins: from ply 4 each position is 1 for X to move and 0 for O, with the
    engine's term +1 where the search is to move; the position where X has a five to make
    (its four on the board) is left out."""
    found = list(positions(GOMOKU, game(TOP_ROW_FIVE, search_first=True, result="win"), True, 7))
    assert [position.mover for position in found] == [1, 2, 1]  # plies 4, 5, 6; not 7
    assert [position.score for position in found] == [1.0, 0.0, 1.0]
    assert [position.engine for position in found] == [1, -1, 1]
    assert {position.game for position in found} == {7}
    assert all(position.mine[FIVE] == position.theirs[FIVE] == 0 for position in found)
    # O to move at ply 5: X's three against the edge makes a four, O's two does not.
    assert found[1].theirs[FOUR] > 0
    assert found[1].mine[FOUR] == 0


def test_the_other_engine_winning_and_self_play_label_the_same_sides() -> None:
    """The search as O losing labels X's positions won too; against itself no engine term."""
    lost = list(positions(GOMOKU, game(TOP_ROW_FIVE, search_first=False, result="loss"), True, 0))
    assert [position.score for position in lost] == [1.0, 0.0, 1.0]
    assert [position.engine for position in lost] == [-1, 1, -1]
    itself = list(positions(GOMOKU, game(TOP_ROW_FIVE, search_first=True, result="win"), False, 0))
    assert [position.engine for position in itself] == [0, 0, 0]
    drawn = list(positions(GOMOKU, game(TOP_ROW_FIVE, search_first=True, result="draw"), True, 0))
    assert [position.score for position in drawn] == [0.5, 0.5, 0.5]


def test_the_design_counts_the_side_to_move_up_and_the_other_down() -> None:
    """A row is the mover's shapes, minus the other side's, then the engine's and black's
    terms; under renju white to move has a block of its own."""
    found = list(positions(GOMOKU, game(TOP_ROW_FIVE, search_first=True, result="win"), True, 0))
    inputs, labels = design(found, coloured=False)
    for row, position in zip(inputs, found, strict=True):
        mine = [position.mine[column] for column in MOVER_COLUMNS]
        theirs = [-position.theirs[column] for column in WAITING_COLUMNS]
        assert row.tolist() == [*mine, *theirs, position.engine, 1 if position.mover == 1 else -1]
    assert inputs[:, -2].tolist() == [1, -1, 1]
    assert labels.tolist() == [1.0, 0.0, 1.0]
    coloured, _ = design(found, coloured=True)
    assert coloured.shape == (3, 2 * 14 + 2)
    assert (coloured[1, 14:] == inputs[1, :]).all()  # white to move: the second block
    assert (coloured[0, :14] == inputs[0, :14]).all()
    assert not coloured[1, :14].any()
    assert not coloured[0, 14:28].any()


@pytest.mark.parametrize("variant", [Variant.FREESTYLE, Variant.RENJU])
def test_the_design_with_the_weights_as_they_stand_is_the_leaf_value_turned_round(
    variant: Variant,
) -> None:
    """For the side to move, a design row times the evaluation's weights is what the
    evaluation values the position at for the side that has just moved, negated: the fit's
    weights go into the evaluation the right way round."""
    rules = replace(GOMOKU, variant=variant)
    arrays = geometry_of(rules).arrays
    moves = (112, 96, 113, 128, 82, 98, 126, 110, 140, 84, 100, 154, 66, 142)
    found = list(positions(rules, game(moves, search_first=True, result="win"), False, 0))
    coloured = variant is Variant.RENJU
    inputs, _ = design(found, coloured)
    valued = []
    for position in found:
        marks = np.zeros(225, dtype=np.int64)
        for ply, move in enumerate(moves[: position.ply]):
            marks[move] = 1 if ply % 2 == 0 else 2
        state = new_state(arrays, marks, _shapes(shape_rule(arrays)))
        valued.append(-_shape_value(state[10], state[11], 3 - position.mover))
    assert (inputs[:, :-2] @ as_inputs(*standing(coloured))).tolist() == valued
    assert len(found) == len(moves) - 4  # none decided: every one compared
    assert len(set(valued)) == len(valued)


@pytest.mark.parametrize("coloured", [False, True])
def test_the_weights_as_they_stand_scale_back_to_themselves(coloured: bool) -> None:
    """Scaled, the evaluation's own weights come back as they are, times 96 over their open
    three to move (renju's on average over the colours): `as_inputs` and `scaled` read the
    same places."""
    mover, waiting = standing(coloured)
    scale = 96 / mover[:, OPEN_THREE].mean()
    again = scaled(np.r_[as_inputs(mover, waiting), 0.0, 0.0], coloured)
    for fitted_columns, values, scaled_values in (
        (MOVER_COLUMNS, mover, again[0]),
        (WAITING_COLUMNS, waiting, again[1]),
    ):
        columns = list(fitted_columns)
        expected = np.round(values[:, columns] * scale).astype(np.int64)
        assert scaled_values[:, columns].tolist() == expected.tolist()
        others = [column for column in range(values.shape[1]) if column not in columns]
        assert scaled_values[:, others].tolist() == values[:, others].tolist()


def test_the_regression_recovers_the_weights_that_made_the_labels() -> None:
    """Labels drawn from known weights (seeded) are fitted back close to them, and fit
    better than weights of the wrong sign."""
    rng = np.random.default_rng(7)
    inputs = rng.integers(0, 4, size=(20_000, 3)).astype(np.float64)
    truth = np.array([0.8, -0.5, 0.2])
    labels = (rng.random(20_000) < 1 / (1 + np.exp(-(inputs @ truth)))).astype(np.float64)
    weights = fitted(inputs, labels, ridge=0)
    assert np.allclose(weights, truth, atol=0.06)
    assert log_loss(inputs, labels, weights) < log_loss(inputs, labels, -truth)


def test_the_weights_are_scaled_so_that_an_open_three_to_move_is_96() -> None:
    """Under renju the two colours' open threes to move average 96; every weight scales
    alike, one below 0 is 0, and the shapes the fit leaves out stand as they are."""
    block = len(MOVER_COLUMNS) + len(WAITING_COLUMNS)
    weights = np.ones(2 * block + 2)
    weights[MOVER_COLUMNS.index(OPEN_THREE)] = 2.0
    weights[block + MOVER_COLUMNS.index(OPEN_THREE)] = 4.0
    weights[len(MOVER_COLUMNS)] = -1.0  # the other side's first shape, when black is to move
    mover, waiting = scaled(weights, coloured=True)
    assert mover[:, OPEN_THREE].tolist() == [64, 128]
    assert mover[:, FOUR].tolist() == [32, 32]
    assert waiting[:, WAITING_COLUMNS[0]].tolist() == [0, 32]
    left_out = [OPEN_FOUR, FIVE, DOUBLE_FOURS, DOUBLE_THREES]
    assert (mover[:, left_out] == evaluation.RENJU_FITTED_MOVER_VALUES[:, left_out]).all()
    assert (waiting[:, FIVE] == evaluation.RENJU_FITTED_WAITING_VALUES[:, FIVE]).all()
    free_mover, _ = scaled(weights[: block + 2], coloured=False)
    assert free_mover.shape == (1, evaluation.FITTED_MOVER_VALUES.shape[0])
    assert free_mover[0, OPEN_THREE] == 96


def test_the_command_fits_each_game_once_and_prints_rows_in_the_evaluations_order(
    tmp_path: Path,
) -> None:
    """Recorded games (a seeded scatter near the centre, some recorded twice) are fitted
    once each; the printed rows have the evaluation's shape, no weight below 0."""
    path = tmp_path / "games.jsonl"
    renju = replace(GOMOKU, variant=Variant.RENJU)
    rng = np.random.default_rng(3)
    centre = [row * 15 + col for row in range(4, 11) for col in range(4, 11)]
    for seed in range(30):
        moves = tuple(int(cell) for cell in rng.permutation(centre)[:24])
        played = game(
            moves, search_first=bool(seed % 2), result=str(rng.choice(["win", "loss"])), seed=seed
        )
        record(played, renju, path)
        if seed % 3 == 0:
            record(played, renju, path)
    printed = subprocess.run(
        [sys.executable, "-m", "benchmarks.fit", "--variant", "renju", "--records", str(path)],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout.splitlines()  # fmt: skip
    assert printed[0].startswith("30 games, ")
    mover = np.array(ast.literal_eval(printed[2].split(": ")[1]))
    waiting = np.array(ast.literal_eval(printed[3].split(": ")[1]))
    assert mover.shape == waiting.shape == evaluation.RENJU_FITTED_MOVER_VALUES.shape
    assert abs(mover[:, OPEN_THREE].mean() - 96) <= 1
    assert (mover >= 0).all()
    assert (waiting >= 0).all()


def test_games_repeated_or_lost_by_a_rule_are_left_out(tmp_path: Path) -> None:
    """A game recorded twice is fitted once; one the other engine lost by a foul or an
    illegal move says nothing of the position, and one of other rules is not these."""
    path = tmp_path / "games.jsonl"
    renju = replace(GOMOKU, variant=Variant.RENJU)
    kept = game(TOP_ROW_FIVE, search_first=True, result="win", seed=1)
    other = (*TOP_ROW_FIVE[:-1], 5)
    record(kept, renju, path)
    record(kept, renju, path)
    record(
        replace(game(other, search_first=True, result="win"), brain_foul="overline"), renju, path
    )
    record(
        replace(game(other, search_first=True, result="win"), brain_illegal="taken"), renju, path
    )
    record(game(other, search_first=True, result="win"), GOMOKU, path)
    found = fitted_positions(renju, [path], [])
    assert {position.game for position in found} == {0}
    assert len(found) == len(list(positions(renju, kept, True, 0)))
    assert fitted_positions(renju, [], [path]) != found  # the same games, no engine term
    assert {position.engine for position in fitted_positions(renju, [], [path])} == {0}


def test_whole_openings_are_held_out_by_their_seed() -> None:
    """Every fifth opening's games, both of them, are held out, none of the others'."""
    found = [
        position
        for seed in range(10)
        for search_first in (True, False)
        for position in positions(
            GOMOKU,
            game(TOP_ROW_FIVE, search_first=search_first, result="win", seed=seed),
            True,
            seed,
        )
    ]
    held = held_out(found)
    assert sorted({position.seed for position, out in zip(found, held, strict=True) if out}) == [
        4,
        9,
    ]
    assert held.sum() == 2 * 2 * 3  # two openings, each both ways, three positions a game


def test_the_command_says_when_the_games_cannot_be_fitted(tmp_path: Path) -> None:
    """No game of the rules asked, or no opening to hold out: a message, not a traceback."""
    path = tmp_path / "games.jsonl"
    record(game(TOP_ROW_FIVE, search_first=True, result="win", seed=4), GOMOKU, path)
    command = [sys.executable, "-m", "benchmarks.fit", "--records", str(path)]
    for arguments, said in (
        (["--variant", "renju"], "no position to fit"),
        ([], "one of them held out"),
    ):
        refused = subprocess.run(
            [*command, *arguments], capture_output=True, text=True, timeout=120, check=False
        )
        assert refused.returncode == 2
        assert said in refused.stderr
        assert "Traceback" not in refused.stderr


def test_the_command_leaves_out_the_variants_valued_by_wines_weights(tmp_path: Path) -> None:
    """Standard and caro value their leaves by Wine's weights: nothing to fit."""
    path = tmp_path / "games.jsonl"
    path.write_text("")
    refused = subprocess.run(
        [sys.executable, "-m", "benchmarks.fit", "--variant", "caro", "--records", str(path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert refused.returncode == 2
    assert "fitted weights" in refused.stderr


def test_a_fit_whose_open_three_is_worth_nothing_says_so() -> None:
    """No scale makes an open three of 0 or less worth 96 without turning every weight
    round: the fit stops and says why."""
    block = len(MOVER_COLUMNS) + len(WAITING_COLUMNS)
    with pytest.raises(ValueError, match="open three"):
        scaled(-np.ones(block + 2), coloured=False)

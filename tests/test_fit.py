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
    design,
    fitted,
    log_loss,
    positions,
    scaled,
)
from benchmarks.gomocup import GOMOKU, Game, record
from service.game.compiled import evaluation
from service.game.compiled.shapes import (
    DOUBLE_FOURS,
    DOUBLE_THREES,
    FIVE,
    FOUR,
    OPEN_FOUR,
    OPEN_THREE,
)
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
    assert found[2].mine != found[0].mine  # the tally follows the moves


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
    assert inputs.shape == (3, 6 + 8 + 2)
    assert (inputs[:, :6] >= 0).all()
    assert (inputs[:, 6:14] <= 0).all()
    assert inputs[:, -1].tolist() == [1, -1, 1]
    assert labels.tolist() == [1.0, 0.0, 1.0]
    coloured, _ = design(found, coloured=True)
    assert coloured.shape == (3, 2 * 14 + 2)
    assert not coloured[1, :14].any()
    assert not coloured[0, 14:28].any()


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
    assert waiting[:, MOVER_COLUMNS[0]].tolist() == [0, 32]
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
        played = game(moves, search_first=bool(seed % 2), result=str(rng.choice(["win", "loss"])))
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
    assert (mover >= 0).all()
    assert (waiting >= 0).all()

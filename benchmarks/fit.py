"""`python -m benchmarks.fit --records RECORD... [--self-play RECORD...]`: the leaves'
weights fitted to how recorded games ended (Texel tuning, as chess engines fit theirs).

Where the game keeps shapes on a board of more cells than the tables hold, the search values
a leaf by a weight for each shape the side to move and the other side could make next
(`compiled.evaluation.FITTED_MOVER_VALUES` and `FITTED_WAITING_VALUES`; under renju a row of
each for black to move and one for white: `RENJU_FITTED_MOVER_VALUES`...). This fits them:
every position of the recorded games (`benchmarks.gomocup --record`, `benchmarks.selfplay
--record`) from the fourth stone on where neither side has a five to make and the shapes
decide nothing, labelled 1, 1/2 or 0 for the side to move by how its game ended; a logistic
regression of that label on the two sides' tallies, with a term for black being to move
and, in games against another engine (`--records`, not `--self-play`), one for which
engine is to move (it wins most games whatever the position says); games the other engine
lost by a foul or an illegal move are left out. The games of every fifth opening (by its
seed, so that no opening's early positions are on both sides) are held out: the log loss
on them is printed for the fit, for the weights as they stand (at their best
scale) and for the terms alone. Then the weights fitted to every game, scaled so that an
open three to move is worth 96 (under renju, on average over the two colours), in the
evaluation's order: the shapes the fit leaves out (the side to move's open four, five and
two fours, which decide its leaves; a five to make for the other side; two open threes,
which count as their threes) keep the values they have, and a weight below 0 is 0.

    python -m benchmarks.gomocup /opt/pbrain-rapfi --games 48 --variant renju --record a.jsonl
    python -m benchmarks.fit --variant renju --records a.jsonl --self-play b.jsonl
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from benchmarks.gomocup import SCORES, Game, add_variant_option, gomoku_of, recorded
from service.game.compiled import evaluation
from service.game.compiled.evaluation import _shape_end
from service.game.compiled.shapes import (
    DOUBLE_FOURS,
    FIVE,
    FOUR,
    FOUR_THREES,
    OPEN_FOUR,
    OPEN_THREE,
)
from service.game.compiled.state import _shapes, new_state, play_move, shape_rule
from service.game.geometry import geometry_of
from service.game.rules import Rules, Variant

#: The first position of a game fitted: after the opening's three stones and a reply.
FIRST_PLIES = 4

#: The tally's columns the fit weighs for the side to move (the lesser shapes, the threes,
#: the four, a four and an open three at once) and for the other side (those, its open
#: four and its two fours too).
MOVER_COLUMNS = (1, 2, 3, OPEN_THREE, FOUR, FOUR_THREES)
WAITING_COLUMNS = (1, 2, 3, OPEN_THREE, FOUR, OPEN_FOUR, DOUBLE_FOURS, FOUR_THREES)

#: What the open three to move is worth once scaled, as the weights have always read.
OPEN_THREE_VALUE = 96

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Position:
    """One position of a recorded game: who is to move (1 black, 2 white), each side's
    tally of shapes, the other engine's term (1 if the search is to move, -1 if the other
    engine is, 0 against itself), how the game ended for the side to move, which game and
    opening (its seed), and how many stones were on."""

    mover: int
    mine: tuple[int, ...]
    theirs: tuple[int, ...]
    engine: int
    score: float
    game: int
    seed: int
    ply: int


def positions(
    rules: Rules, game: Game, against_engine: bool, game_index: int
) -> Iterator[Position]:
    """Yield the positions of one game that the fit weighs (module docstring)."""
    arrays = geometry_of(rules).arrays
    shapes = _shapes(shape_rule(arrays))  # the table a search of these rules reads
    state = new_state(arrays, np.zeros(rules.rows * rules.cols, dtype=np.int64), shapes)
    tally = state[10]  # kept up to date in place as each move is played
    search_score = SCORES[game.result]
    for ply, move in enumerate(game.moves):
        mover = 1 if ply % 2 == 0 else 2
        if ply >= FIRST_PLIES:
            waiting = 3 - mover
            undecided = tally[mover, FIVE] == 0 and tally[waiting, FIVE] == 0
            if undecided and _shape_end(tally, 0, waiting) == 0:
                search_to_move = (mover == 1) == game.search_first
                yield Position(
                    mover,
                    tuple(int(count) for count in tally[mover]),
                    tuple(int(count) for count in tally[waiting]),
                    (1 if search_to_move else -1) if against_engine else 0,
                    search_score if search_to_move else 1 - search_score,
                    game_index,
                    game.seed,
                    ply,
                )
        play_move(arrays, state, move, mover)


def design(found: list[Position], coloured: bool) -> tuple[Floats, Floats]:
    """Return the regression's inputs and labels: the side to move's shapes counted up and
    the other side's down (in a block of their own for white to move where `coloured`),
    then the engine's term and black's."""
    block = len(MOVER_COLUMNS) + len(WAITING_COLUMNS)
    inputs = np.zeros((len(found), block * (2 if coloured else 1) + 2))
    for row, position in enumerate(found):
        first = block if coloured and position.mover == 2 else 0
        for slot, column in enumerate(MOVER_COLUMNS):
            inputs[row, first + slot] = position.mine[column]
        for slot, column in enumerate(WAITING_COLUMNS):
            inputs[row, first + len(MOVER_COLUMNS) + slot] = -position.theirs[column]
        inputs[row, -2] = position.engine
        inputs[row, -1] = 1 if position.mover == 1 else -1
    return inputs, np.array([position.score for position in found])


def fitted(inputs: Floats, labels: Floats, ridge: float = 1e-3) -> Floats:
    """Return the logistic regression's weights (Newton's method, a light ridge so that a
    shape no position holds stays at 0, and terms that move together are split)."""
    weights = np.zeros(inputs.shape[1])
    for _ in range(50):
        chances = 1 / (1 + np.exp(-(inputs @ weights)))
        gradient = inputs.T @ (chances - labels) / len(labels) + ridge * weights
        curvature = (inputs.T * (chances * (1 - chances))) @ inputs / len(labels)
        weights -= np.linalg.solve(curvature + ridge * np.eye(len(weights)), gradient)
    return weights


def log_loss(inputs: Floats, labels: Floats, weights: Floats) -> float:
    """Return the mean log loss of the labels under the weights."""
    chances = np.clip(1 / (1 + np.exp(-(inputs @ weights))), 1e-9, 1 - 1e-9)
    return float(-np.mean(labels * np.log(chances) + (1 - labels) * np.log(1 - chances)))


def standing(coloured: bool) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Return the weights as they stand, a row for each colour to move where `coloured`."""
    if coloured:
        return evaluation.RENJU_FITTED_MOVER_VALUES, evaluation.RENJU_FITTED_WAITING_VALUES
    return evaluation.FITTED_MOVER_VALUES[None, :], evaluation.FITTED_WAITING_VALUES[None, :]


def as_inputs(mover: npt.NDArray[np.int64], waiting: npt.NDArray[np.int64]) -> Floats:
    """Return weights of the evaluation's shape in the design's order."""
    return np.concatenate(
        [
            np.concatenate([mover_row[list(MOVER_COLUMNS)], waiting_row[list(WAITING_COLUMNS)]])
            for mover_row, waiting_row in zip(mover, waiting, strict=True)
        ]
    ).astype(np.float64)


def scaled(weights: Floats, coloured: bool) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Return fitted weights in the evaluation's shape, scaled (module docstring)."""
    mover, waiting = (values.copy() for values in standing(coloured))
    block = len(MOVER_COLUMNS) + len(WAITING_COLUMNS)
    threes = [weights[row * block + MOVER_COLUMNS.index(OPEN_THREE)] for row in range(len(mover))]
    if np.mean(threes) <= 0:
        # No scale makes it 96 without turning every weight round: the games say nothing.
        raise ValueError("the fitted open three to move is worth nothing: more games needed")
    scale = OPEN_THREE_VALUE / float(np.mean(threes))
    for row in range(len(mover)):
        for slot, column in enumerate(MOVER_COLUMNS):
            mover[row, column] = max(0, round(weights[row * block + slot] * scale))
        for slot, column in enumerate(WAITING_COLUMNS):
            value = weights[row * block + len(MOVER_COLUMNS) + slot] * scale
            waiting[row, column] = max(0, round(value))
    return mover, waiting


def held_out(found: list[Position]) -> npt.NDArray[np.bool_]:
    """Return which positions are held out: those of every fifth opening, by its seed, so
    that no opening's early positions stand on both sides."""
    return np.array([position.seed % 5 == 4 for position in found], dtype=np.bool_)


def fitted_positions(rules: Rules, records: list[Path], self_play: list[Path]) -> list[Position]:
    """Return the positions of the recorded games of `rules`, each game once, those the
    other engine lost by a foul or an illegal move left out (module docstring)."""
    found: list[Position] = []
    seen: set[tuple[int, ...]] = set()
    for paths, against_engine in ((records, True), (self_play, False)):
        for path in paths:
            for played_by, game in recorded(path):
                lost_by_a_rule = game.brain_foul is not None or game.brain_illegal is not None
                if played_by == rules and game.moves not in seen and not lost_by_a_rule:
                    found.extend(positions(rules, game, against_engine, len(seen)))
                    seen.add(game.moves)
    return found


def report(found: list[Position], coloured: bool) -> str:
    """Return the held-out losses and the weights fitted to every game (module docstring)."""
    inputs, labels = design(found, coloured)
    held = held_out(found)
    if held.all() or not held.any():
        raise ValueError("the games of at least two openings, one of them held out, are needed")
    train, test = ~held, held
    terms = slice(inputs.shape[1] - 2, None)
    fit_loss = log_loss(inputs[test], labels[test], fitted(inputs[train], labels[train]))
    as_they_stand = np.column_stack(
        [inputs[:, :-2] @ as_inputs(*standing(coloured)), inputs[:, terms]]
    )
    stand_weights = fitted(as_they_stand[train], labels[train], ridge=1e-6)
    stand_loss = log_loss(as_they_stand[test], labels[test], stand_weights)
    terms_weights = fitted(inputs[train][:, terms], labels[train], ridge=1e-6)
    terms_loss = log_loss(inputs[test][:, terms], labels[test], terms_weights)
    mover, waiting = scaled(fitted(inputs, labels), coloured)
    games = len({position.game for position in found})
    return "\n".join(
        [
            f"{games} games, {len(found)} positions, {int(held.sum())} of them held out",
            f"held-out log loss: fitted {fit_loss:.4f}, as they stand {stand_loss:.4f}, "
            f"the terms alone {terms_loss:.4f}",
            f"side to move: {mover.tolist()}",
            f"other side: {waiting.tolist()}",
        ]
    )


def main() -> None:
    """Fit the leaves' weights to the recorded games and print them (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--records", type=Path, nargs="*", default=[], help="games against another engine"
    )
    parser.add_argument(
        "--self-play", type=Path, nargs="*", default=[], help="games against the search itself"
    )
    add_variant_option(parser)
    arguments = parser.parse_args()
    rules = gomoku_of(arguments)
    if rules.variant not in (Variant.FREESTYLE, Variant.RENJU):
        parser.error("only freestyle's and renju's leaves are valued by fitted weights")
    found = fitted_positions(rules, arguments.records, arguments.self_play)
    if not found:
        parser.error(f"no position to fit in the recorded games of {rules.variant.value}")
    try:
        print(report(found, rules.variant is Variant.RENJU))
    except ValueError as problem:
        parser.error(str(problem))


if __name__ == "__main__":
    main()

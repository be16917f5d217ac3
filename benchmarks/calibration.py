"""`python -m benchmarks.calibration BRAIN --records RECORD...`: what a search's `evaluation`
means, against a judge.

A heuristic search reports an `evaluation` from -1 to 1. Where the game keeps shapes (five
in a row) on a board of more cells than the tables hold, its scale (`Search.value_scale`:
in freestyle `compiled.evaluation.FITTED_SHAPE_SCALE`) is fitted so that (1 + evaluation)
/ 2 is about the chance of winning a judge gives the side to move. This measures it: in
positions of recorded games (`benchmarks.gomocup --record`; every `--every`th from the
fourth stone on, either side to move) the search as the benchmark serves it
(`search_as_served`, both cores, `--budget-ms`) gives its evaluation, then a judge
(`--judge-ms`, after the search: never at once) its value, as an expected score
(`benchmarks.rate.expected_score`: a logistic of scale 200, 1 for a forced win). It
prints, by the evaluation's size, the chance the evaluation reads and the judge's mean
chance for the side it favours; the Brier score (the mean squared gap between the two
chances); how often they favour the same side; and the scale that would have fitted best.
Positions the search proved, saw an end in (|evaluation| 0.99) or read at its limit (0.98:
a leaf the shapes decide) are counted apart; so are those the judge sent no value for. A
judge's command with flags of its own goes after `--`:

    python -m benchmarks.gomocup /opt/pbrain-rapfi --games 20 --record /tmp/games.jsonl
    python -m benchmarks.calibration /opt/pbrain-rapfi --records /tmp/games.jsonl --every 4
"""

from __future__ import annotations

import argparse
import itertools
import math
from dataclasses import dataclass
from pathlib import Path

from benchmarks.gomocup import Game, recorded, search_as_served
from benchmarks.judge import judge_position
from benchmarks.rate import expected_score
from service.game.board import Board, Mark
from service.game.moves import game_after
from service.game.rules import Rules
from service.game.search import CALIBRATED_LIMIT, Search
from service.game.warmup import prepare

#: The first position of a game measured: after the opening's three stones and a reply.
FIRST_PLIES = 4

#: The evaluations' sizes the table groups by: each row from one bound to the next, the
#: last below the limit of a reading (larger: an end seen or proved, or a leaf the shapes
#: decide).
BOUNDS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.4, CALIBRATED_LIMIT)


@dataclass(frozen=True)
class Sample:
    """One position: the search's evaluation for the side to move (read on `scale`, the
    search's `value_scale`), and the judge's chance of winning for that side (None if the
    judge sent no value)."""

    before: tuple[int, ...]
    evaluation: float
    proven: bool
    chance: float | None
    scale: int

    @property
    def read(self) -> bool:
        """Whether the evaluation is a reading of the leaves, to be held to the judge."""
        return (
            not self.proven and abs(self.evaluation) < CALIBRATED_LIMIT and self.chance is not None
        )


def positions(games: list[tuple[Rules, Game]], every: int) -> list[tuple[Rules, tuple[int, ...]]]:
    """Return every `every`th position of the games, FIRST_PLIES stones in to the last
    before the game's end, either side to move."""
    found = [
        (rules, tuple(game.moves[:plies]))
        for rules, game in games
        for plies in range(FIRST_PLIES, len(game.moves))
    ]
    return found[::every]


def sample(
    command: list[str], rules: Rules, before: tuple[int, ...], budget_ms: int, judge_ms: int
) -> Sample:
    """Return the search's evaluation after `before` and the judge's chance for the same side."""
    mover = Mark.X if len(before) % 2 == 0 else Mark.O
    found = search_as_served(game_after(before, rules).board, mover, budget_ms / 1000)
    # The judge's standing is that of the side which has just moved: turned round.
    judged = expected_score(judge_position(command, rules, before, mover is Mark.O, judge_ms))
    chance = None if judged is None else 1 - judged
    return Sample(before, found.evaluation, found.proven, chance, scale_read_on(rules))


def scale_read_on(rules: Rules) -> int:
    """Return the scale a search by `rules` reads its values on (`Search.value_scale`)."""
    return Search(Board.empty(rules), Mark.X, 0.01).value_scale


def chance_read(evaluation: float, scale_ratio: float = 1.0) -> float:
    """Return the chance of winning an evaluation reads, (1 + e) / 2, its value first
    scaled by `scale_ratio` (the scale it was read on over another)."""
    return (1 + math.tanh(math.atanh(evaluation) * scale_ratio)) / 2


def brier(samples: list[Sample], scale: int | None = None) -> float:
    """Return the mean squared gap between the chance each evaluation read (`Sample.read`)
    reads and the judge's, each read on `scale` if given (else its own); NaN without one."""
    gaps = [
        (chance_read(s.evaluation, 1.0 if scale is None else s.scale / scale) - s.chance) ** 2
        for s in samples
        if s.read and s.chance is not None
    ]
    return sum(gaps) / len(gaps) if gaps else math.nan


def fitted_scale(samples: list[Sample]) -> int:
    """Return the scale, in steps of 100, that would have made the evaluations' chances
    nearest the judge's (the least Brier score)."""
    return min(range(100, 40_001, 100), key=lambda candidate: brier(samples, candidate))


def searchs_scales(samples: list[Sample]) -> str:
    """Return the scales the samples were read on, as a phrase."""
    return " and ".join(f"{scale:,}" for scale in sorted({s.scale for s in samples}))


def table(samples: list[Sample]) -> str:
    """Return the evaluations held to the judge: by size, then overall."""
    read = [s for s in samples if s.read]
    rows = [
        "| evaluation's size | positions | its chance for the side it favours | the judge's |",
        "|---|---|---|---|",
    ]
    for low, high in itertools.pairwise(BOUNDS):
        group = [s for s in read if low <= abs(s.evaluation) < high]
        if not group:
            continue
        theirs = [
            s.chance if s.evaluation >= 0 else 1 - s.chance for s in group if s.chance is not None
        ]
        ours = [chance_read(abs(s.evaluation)) for s in group]
        rows.append(
            f"| {low} to {high} | {len(group)} | {sum(ours) / len(ours):.2f} "
            f"| {sum(theirs) / len(theirs):.2f} |"
        )
    ended = sum(1 for s in samples if s.proven or abs(s.evaluation) >= CALIBRATED_LIMIT)
    unjudged = len(samples) - len(read) - ended
    rows += [
        "",
        f"{len(read)} positions read ({ended} proved, ended or decided; {unjudged} unjudged)",
    ]
    # An evaluation of 0 favours neither side: left out of the agreement.
    sided = [
        (s.evaluation > 0, s.chance > 0.5)
        for s in read
        if s.evaluation != 0 and s.chance is not None and s.chance != 0.5
    ]
    if read:
        agreeing = sum(1 for ours, theirs in sided if ours == theirs)
        rows[-1] += (
            f": Brier score {brier(read):.4f}; the same side favoured in "
            f"{agreeing / max(1, len(sided)):.0%}; the scale that fits best "
            f"{fitted_scale(read):,} (the search's {searchs_scales(read)})."
        )
    return "\n".join(rows)


def main() -> None:
    """Measure the search's evaluations in the recorded games' positions against a judge."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("judge", nargs="+", help="the judge brain's command")
    parser.add_argument("--records", nargs="+", type=Path, required=True)
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--budget-ms", type=int, default=250)
    parser.add_argument("--judge-ms", type=int, default=100)
    arguments = parser.parse_args()
    prepare()
    games = [game for path in arguments.records for game in recorded(path)]
    samples = [
        sample(arguments.judge, rules, before, arguments.budget_ms, arguments.judge_ms)
        for rules, before in positions(games, arguments.every)
    ]
    print(table(samples))


if __name__ == "__main__":
    main()

"""`python -m benchmarks.rate BRAIN --records RECORD... --out FILE`: the search's moves in fixed
positions, rated by a judge, so that two revisions can be told apart without games.

A run of 80 games against Rapfi moves by about five points between sessions (STRENGTH.md),
more than most steps are worth. This plays the checkout's search (as the benchmark serves
it, `search_as_served`) in positions taken from recorded games (`benchmarks.gomocup
--record`), those where the search was to move as first player from its third move to its
nineteenth (with `--answered`, those of the games it played second, answering the opening's
three stones: from its first reply to its eighteenth), and has a judge rate the position
each move leaves (`benchmarks.judge`). A standing becomes an expected score,
1 / (1 + e^(-value / 200)), 1 for a forced win and 0 for a forced loss. Each line of `--out`
holds a position's moves, the move played and the judge's standing; `--baseline` pairs them
with another run's in the same positions (a git worktree of the commit before, run the same
way) and prints the mean difference and its standard error. The search and the judge never
run at once: the search has both cores. A judge's command with flags of its own goes after
`--`. Paths absolute, so that the same lines run in a worktree:

    python -m benchmarks.gomocup /opt/pbrain-rapfi --games 20 --record /tmp/games.jsonl
    python -m benchmarks.rate /opt/pbrain-rapfi --records /tmp/games.jsonl --out /tmp/before.jsonl
    python -m benchmarks.rate /opt/pbrain-rapfi --records /tmp/games.jsonl --out /tmp/after.jsonl \
        --baseline /tmp/before.jsonl

Two runs of the same search, minutes apart, differ by more than that standard error says
(the machine's speed changes from run to run, and with it the depth: STRENGTH.md). With
`--against BRAIN` the other revision plays in the same run instead: a Gomocup brain (a
git worktree's `benchmarks.brain`, as its docstring makes one) is given each position
just before or just after the checkout's search (in turn), both moves are rated, the
brain's go to `--against-out`, and the two are compared as with `--baseline`. The checkout's
search then keeps for its answer the margin the brain keeps (`benchmarks.brain.MARGIN_MS`):

    python -m benchmarks.rate /opt/pbrain-rapfi --records /tmp/games.jsonl --out /tmp/after.jsonl \
        --against /tmp/brain-before --against-out /tmp/before.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import shlex
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TextIO

from benchmarks.brain import MARGIN_MS
from benchmarks.gomocup import Brain, Game, recorded
from benchmarks.judge import MATE_VALUE, judge_position, searched_and_judged, value_of
from service.game.rules import Rules
from service.game.warmup import prepare

#: The judge's value that reads as about a 3 in 4 chance of winning (0.73; on Rapfi's
#: scale a side ahead by 200 is well ahead).
SCORE_SCALE = 200

#: The plies before the first position rated (the opening's three stones and the
#: opponent's reply) and the first left out: the middle game, where the games are lost.
#: The games the search played second are rated a ply earlier, from its first reply.
FIRST_PLIES, LAST_PLIES = 4, 38


@dataclass(frozen=True)
class Rating:
    """The search's move in one position and the judge's standing after it."""

    #: The moves before, in the order played: the position's key.
    before: tuple[int, ...]
    move: int
    #: From the search's side (`benchmarks.judge.standing`); "?" if the judge sent none.
    standing: str


def expected_score(found: str) -> float | None:
    """Return a standing as the search's chance of winning: 1 won, 0 lost; None for "?"."""
    value = value_of(found)
    if value is None:
        return None
    if abs(value) > MATE_VALUE // 2:
        return 1.0 if value > 0 else 0.0
    return 1 / (1 + math.exp(-value / SCORE_SCALE))


def positions(
    games: list[tuple[Rules, Game]], every: int, *, answered: bool = False
) -> list[tuple[Rules, tuple[int, ...]]]:
    """Return every `every`th position of the games the search opened where it was to
    move, FIRST_PLIES to LAST_PLIES plies in (the last left out), before the game's last
    move (after it the game is over: nothing for a judge to rate); with `answered`, those
    of the games it played second, from FIRST_PLIES - 1 plies in (its first reply) to
    LAST_PLIES."""
    found: list[tuple[Rules, tuple[int, ...]]] = []
    # As second player the search is to move after an odd number of stones: 3, 5, ...
    first = FIRST_PLIES - 1 if answered else FIRST_PLIES
    for rules, game in games:
        if game.search_first == answered:
            continue  # a game of the other side's
        last = min(len(game.moves) - 1, LAST_PLIES)
        found.extend((rules, tuple(game.moves[:plies])) for plies in range(first, last, 2))
    return found[::every]


def rate(
    command: list[str], rules: Rules, before: tuple[int, ...], budget_ms: int, judge_ms: int
) -> Rating:
    """Return what the search plays after `before` and how the judge rates it."""
    return Rating(before, *searched_and_judged(command, rules, before, budget_ms, judge_ms))


def rate_brain(brain: Brain, command: list[str], before: tuple[int, ...], judge_ms: int) -> Rating:
    """Return what a Gomocup brain plays after `before` and how the judge (`command`) rates it."""
    plays_x = len(before) % 2 == 0
    move = brain.board([(cell, (ply % 2 == 0) == plays_x) for ply, cell in enumerate(before)])
    return Rating(
        before, move, judge_position(command, brain.rules, (*before, move), plays_x, judge_ms)
    )


def compared(ratings: list[Rating], baseline: list[Rating]) -> tuple[int, float, float, int]:
    """Return, over the positions both rated (each side's standing known): how many, the
    mean difference of the expected scores (`ratings` less `baseline`), its standard
    error, and in how many both played the same move."""
    baseline_of = {rating.before: rating for rating in baseline}
    differences, same = [], 0
    for rating in ratings:
        other = baseline_of.get(rating.before)
        if other is None:
            continue
        mine, theirs = expected_score(rating.standing), expected_score(other.standing)
        if mine is None or theirs is None:
            continue
        differences.append(mine - theirs)
        same += rating.move == other.move
    if len(differences) < 2:
        return len(differences), sum(differences), 0.0, same
    error = statistics.stdev(differences) / math.sqrt(len(differences))
    return len(differences), statistics.fmean(differences), error, same


def saved(path: Path) -> list[Rating]:
    """Return the ratings a run wrote (`--out`)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [
        Rating(tuple(found["before"]), found["move"], found["standing"])
        for found in map(json.loads, lines)
    ]


def main() -> None:
    """Rate the search's moves in the recorded positions; print their mean expected score
    and, with --baseline, the difference from another run's."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("brain", nargs="+", help="the judge's command line")
    parser.add_argument(
        "--records", type=Path, nargs="+", required=True, help="files of benchmarks.gomocup"
    )
    parser.add_argument("--out", type=Path, required=True, help="where the ratings go")
    parser.add_argument("--baseline", type=Path, help="another run's --out, to compare with")
    parser.add_argument("--budget-ms", type=int, default=250, help="the search's time")
    parser.add_argument("--judge-ms", type=int, default=300, help="the judge's time")
    parser.add_argument("--every", type=int, default=1, help="rate every n-th position")
    parser.add_argument(
        "--answered",
        action="store_true",
        help="rate the games the search played second instead: its replies 3 to 37 plies in",
    )
    parser.add_argument(
        "--against", help="another revision's Gomocup brain, rated in the same run (its command)"
    )
    parser.add_argument("--against-out", type=Path, help="where the --against brain's ratings go")
    arguments = parser.parse_args()
    if (arguments.against is None) != (arguments.against_out is None):
        parser.error("--against and --against-out go together")
    games = [found for path in arguments.records for found in recorded(path)]
    prepare()
    ratings: list[Rating] = []
    theirs: list[Rating] = []
    budget_ms = arguments.budget_ms - (MARGIN_MS if arguments.against else 0)
    judge_ms = arguments.judge_ms
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(arguments.out.open("w", encoding="utf-8"))
        their_out = (
            stack.enter_context(arguments.against_out.open("w", encoding="utf-8"))
            if arguments.against_out
            else None
        )
        brains: dict[Rules, Brain] = {}
        found = positions(games, arguments.every, answered=arguments.answered)
        for at, (rules, before) in enumerate(found):
            other = None
            if arguments.against and their_out:
                if rules not in brains:
                    command = shlex.split(arguments.against)
                    brains[rules] = stack.enter_context(Brain(command, rules, arguments.budget_ms))
                other = brains[rules]
            # In turn first, so that neither side always plays just after the judge.
            mine_first = other is None or at % 2 == 0
            if mine_first:
                _kept(out, ratings, rate(arguments.brain, rules, before, budget_ms, judge_ms))
            if other is not None and their_out:
                _kept(their_out, theirs, rate_brain(other, arguments.brain, before, judge_ms))
            if not mine_first:
                _kept(out, ratings, rate(arguments.brain, rules, before, budget_ms, judge_ms))
    scores = [score for rating in ratings if (score := expected_score(rating.standing)) is not None]
    shown = f"{statistics.fmean(scores):.4f}" if scores else "none: the judge sent no evaluation"
    print(f"{len(scores)} positions rated: mean expected score {shown}")
    for name, baseline in (
        (arguments.baseline, saved(arguments.baseline) if arguments.baseline else None),
        (arguments.against, theirs if arguments.against else None),
    ):
        if baseline is not None:
            count, mean, error, same = compared(ratings, baseline)
            print(
                f"against {name}: {mean:+.4f} ± {error:.4f} (standard error) over "
                f"{count} positions, the same move in {same}"
            )


def _kept(out: TextIO, ratings: list[Rating], rating: Rating) -> None:
    """Write a rating as a line of its run's file, at once, and keep it."""
    out.write(json.dumps(asdict(rating)) + "\n")
    out.flush()
    ratings.append(rating)


if __name__ == "__main__":
    main()

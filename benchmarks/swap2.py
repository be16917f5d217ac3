"""`python -m benchmarks.swap2 BRAIN`: the service's Swap2 decisions, against a judge's.

On each of renju's 26 openings (`service.game.swap2.canonical_openings`, 15x15 five in a
row, `--variant`), white to move: the side the service takes there (`decide`, within
`--budget-ms`, on every core as an idle server searches) with its evaluation for white
(the mean of the search's last two depths', and the last depth's alone), and the judge's
value for white (a Gomocup brain that reports its evaluation, as Rapfi does,
`--judge-ms` a position); whether the two would take the same side (black where
white's value is below 0). Then the opening the service places on the empty board, and
where it stands among the 26 by the judge's value: the nearer 0, the less the other
player's choice gains it.

    python -m benchmarks.swap2 ./pbrain-rapfi --judge-ms 1000
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from benchmarks.gomocup import add_variant_option, gomoku_of
from benchmarks.judge import judge_position, value_of
from service.api.app_settings import cores
from service.game.board import Board
from service.game.rules import Rules
from service.game.swap2 import Decision, canonical_openings, decide, step_of, with_opening
from service.game.warmup import prepare


@dataclass(frozen=True, slots=True)
class Judged:
    """One opening: the service's side and evaluation for white, and the judge's value."""

    stones: tuple[int, int, int]
    decision: Decision
    #: The service's evaluation for white: the mean of its last two depths', and the last's.
    evaluation: float
    last_depth_evaluation: float
    #: The judge's value for white, to move; None where it sent none.
    judges_value: int | None

    @property
    def agrees(self) -> bool | None:
        """Return whether the judge would take the service's side; None without its value."""
        if self.judges_value is None:
            return None
        return (self.judges_value < 0) == (self.decision is Decision.SWAP)


def judges_value_for_white(
    command: list[str], rules: Rules, stones: tuple[int, ...], judge_ms: int
) -> int | None:
    """Return the judge's value of an opening for white, to move (a forced win as
    `value_of` counts it), or None where it sent none."""
    # The judge plays white, the side to move; the standing it gives is black's.
    black = value_of(judge_position(command, rules, stones, True, judge_ms))
    return None if black is None else -black


def judged(command: list[str], rules: Rules, budget_ms: int, judge_ms: int) -> list[Judged]:
    """Return each opening's decision by the service and value by the judge."""
    empty = Board.empty(rules)
    found = []
    for stones in canonical_openings(empty):
        choice = decide(step_of(with_opening(empty, stones)), budget_ms / 1000, threads=cores())
        value = judges_value_for_white(command, rules, stones, judge_ms)
        searched = choice.found
        found.append(
            Judged(
                stones, choice.decision, searched.two_depth_evaluation, searched.evaluation, value
            )
        )
    return found


def table(rows: list[Judged], chosen: tuple[int, ...]) -> str:
    """Return the openings' table, the agreement and where the placed opening stands."""
    lines = [
        "| opening (cells) | service | its evaluation for white: two depths, the last | "
        "judge's value, white | same side |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        same = {True: "yes", False: "no", None: "?"}[row.agrees]
        value = "?" if row.judges_value is None else str(row.judges_value)
        lines.append(
            f"| {', '.join(map(str, row.stones))} | {row.decision.value} | "
            f"{row.evaluation:+.4f}, {row.last_depth_evaluation:+.4f} | {value} | {same} |"
        )
    known = [row for row in rows if row.judges_value is not None]
    agreeing = sum(bool(row.agrees) for row in known)
    lines.append("")
    lines.append(f"The same side as the judge in {agreeing} of {len(known)} openings.")
    by_judge = sorted(known, key=lambda row: abs(row.judges_value or 0))
    ranks = [rank for rank, row in enumerate(by_judge, 1) if row.stones == chosen]
    if ranks:
        placed_value = by_judge[ranks[0] - 1].judges_value
        lines.append(
            f"The opening placed, {', '.join(map(str, chosen))}: the judge's value for white "
            f"{placed_value}, ranked {ranks[0]} of {len(known)} by its nearness to 0 (1 the "
            "nearest)."
        )
    return "\n".join(lines)


def main() -> None:
    """Judge the decisions on the 26 openings and the opening placed; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("brain", nargs="+", help="the judge's command line")
    parser.add_argument("--budget-ms", type=int, default=250, help="the service's budget")
    parser.add_argument("--judge-ms", type=int, default=1000, help="the judge's time a position")
    add_variant_option(parser)
    arguments = parser.parse_args()
    prepare()
    rules = gomoku_of(arguments)
    rows = judged(arguments.brain, rules, arguments.budget_ms, arguments.judge_ms)
    opening = decide(step_of(Board.empty(rules)), arguments.budget_ms / 1000, threads=cores())
    print(table(rows, opening.stones))


if __name__ == "__main__":
    main()

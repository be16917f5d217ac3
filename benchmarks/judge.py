"""`python -m benchmarks.judge RECORD BRAIN`: the search's recorded games, judged move by move.

`python -m benchmarks.gomocup BRAIN --record RECORD` keeps each game it plays. This gives
a judge every position left by one of the search's moves: a Gomocup brain that reports its
evaluation in its notes, as Rapfi does (`Eval -112`; `Eval +M13`, a win in 13 plies),
`--judge-ms` a position. It prints where the search stood after each of its moves, from
the search's side (the judge's value turned round): `+150` ahead, `-M13` lost in 13 plies
whatever it plays, `+M26` a forced win of its own. For each game, the first of its moves
after which the judge saw it lost, and the forced wins of its own the judge saw that the
game did not take. With `--recheck-ms`, the search plays again, with each of those
budgets, the position before its move that lost most of a lead (or of an even game) in
each game, and the judge rates what it plays: whether more time would have found a better
move there.

    python -m benchmarks.gomocup ./pbrain-rapfi --games 20 --record games.jsonl
    python -m benchmarks.judge games.jsonl ./pbrain-rapfi --judge-ms 300 --lost
    python -m benchmarks.judge games.jsonl ./pbrain-rapfi --lost --recheck-ms 250 1000 4000
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.gomocup import Brain, Game, recorded, search_as_served
from service.game.board import Mark
from service.game.moves import game_after
from service.game.rules import Rules
from service.game.warmup import prepare

#: A forced win's standing as a number (`value_of`): beyond any evaluation, and the sooner
#: the greater.
MATE_VALUE = 100_000


def standing(evaluation: str) -> str:
    """Return a judge's evaluation (`Eval` as Rapfi sends it, from the side to move) from
    the other side: the search's, which has just moved."""
    if evaluation.startswith("-"):
        return "+" + evaluation[1:]
    if evaluation.startswith("+"):
        return "-" + evaluation[1:]
    return evaluation if evaluation == "0" else "-" + evaluation


def judged(command: list[str], rules: Rules, game: Game, judge_ms: int) -> list[tuple[int, str]]:
    """Return (plies played, the search's standing) after each of the search's moves but
    the game's last move (after it the game was over, or the brain lost it by an illegal
    move); "?" where the judge sent no evaluation."""
    standings = []
    for plies in range(4, len(game.moves)):
        last_mover_is_x = (plies - 1) % 2 == 0
        if last_mover_is_x != game.search_first:
            continue  # the judge's side has just moved, or the opening
        judged_as = judge_position(command, rules, game.moves[:plies], game.search_first, judge_ms)
        standings.append((plies, judged_as))
    return standings


def judge_position(
    command: list[str], rules: Rules, moves: tuple[int, ...], search_plays_x: bool, judge_ms: int
) -> str:
    """Return the search's standing after `moves`, the last its own, as the judge sees it.

    Each position goes to a judge started for it: nothing it learnt of the last one sways
    it, and a brain that drops a command sent as it answers (Rapfi does: STRENGTH.md) is never
    sent a second."""
    with Brain(command, rules, judge_ms) as judge:
        # The judge plays the side to move: the search's opponent.
        judge.board([(cell, (ply % 2 == 0) != search_plays_x) for ply, cell in enumerate(moves)])
        evaluation = judge.evaluations[-1] if judge.evaluations else None
    return standing(evaluation) if evaluation is not None else "?"


def value_of(found: str) -> int | None:
    """Return a standing as a number, a forced win as MATE_VALUE less its plies; None for "?"."""
    if found == "?":
        return None
    sign = -1 if found.startswith("-") else 1
    body = found.lstrip("+-")
    return sign * (MATE_VALUE - int(body[1:]) if body.startswith("M") else int(body))


def worst_move(standings: list[tuple[int, str]]) -> int | None:
    """Return the plies after the search's move that fell most from a standing at or
    above 0 (its first move's from 0): where it lost the most of a lead or an even game,
    not a step from one loss to a faster one. None if no such move fell."""
    worst, fall, before = None, 0, 0
    for plies, found in standings:
        value = value_of(found)
        if value is None:
            continue
        if before >= 0 and before - value > fall:
            worst, fall = plies, before - value
        before = value
    return worst


def rechecked(
    command: list[str],
    rules: Rules,
    game: Game,
    plies: int,
    *,
    budgets_ms: list[int],
    judge_ms: int,
) -> list[tuple[int, str]]:
    """Return (move, standing) of what the search plays, with each budget, in the position
    before its move that left `plies` plies, as the judge sees each; searched as the
    benchmark searches (`search_as_served`)."""
    before = game.moves[: plies - 1]
    return [searched_and_judged(command, rules, before, budget, judge_ms) for budget in budgets_ms]


def searched_and_judged(
    command: list[str], rules: Rules, before: tuple[int, ...], budget_ms: int, judge_ms: int
) -> tuple[int, str]:
    """Return the move the search plays after `before` (as the benchmark searches,
    `search_as_served`) and the search's standing after it, as the judge sees it."""
    mover = Mark.X if len(before) % 2 == 0 else Mark.O
    board = game_after(before, rules).board
    move = search_as_served(board, mover, budget_ms / 1000).move
    return move, judge_position(command, rules, (*before, move), mover is Mark.X, judge_ms)


def lost_from(standings: list[tuple[int, str]]) -> int | None:
    """Return the plies after the first move from which the judge saw the search lost."""
    return next((plies for plies, found in standings if found.startswith("-M")), None)


def missed_wins(game: Game, standings: list[tuple[int, str]]) -> list[int]:
    """Return the plies after each move from which the judge saw the search win by force,
    in a game it did not win."""
    if game.result == "win":
        return []
    return [plies for plies, found in standings if found.startswith("+M")]


def table(games: list[tuple[Game, list[tuple[int, str]]]]) -> str:
    """Return a markdown table of the judged games, a row each."""
    lines = [
        "| opening | search moves | result | plies | lost from ply | forced wins not taken "
        "| standing after each of the search's moves (plies: value) |",
        "|---|---|---|---|---|---|---|",
    ]
    for game, standings in games:
        lost = lost_from(standings)
        missed = ", ".join(str(plies) for plies in missed_wins(game, standings)) or "none"
        trail = " ".join(f"{plies}:{found}" for plies, found in standings)
        lines.append(
            f"| {game.seed} | {'first' if game.search_first else 'second'} | {game.result} | "
            f"{game.plies} | {lost if lost is not None else 'never'} | {missed} | {trail} |"
        )
    return "\n".join(lines)


def recheck_table(
    rows: list[tuple[Game, int, str, list[tuple[int, str]]]], budgets_ms: list[int]
) -> str:
    """Return a markdown table of each game's worst move (plies after it, the standing it
    left) beside what the search plays there with each budget, and its standing."""
    lines = [
        "| opening | search moves | worst move: plies after it | its standing | "
        + " | ".join(f"{budget} ms: move, standing" for budget in budgets_ms)
        + " |",
        "|---|---|---|---|" + "---|" * len(budgets_ms),
    ]
    for game, plies, played, found in rows:
        side = "first" if game.search_first else "second"
        answers = " | ".join(f"{move}, {judged_as}" for move, judged_as in found)
        lines.append(f"| {game.seed} | {side} | {plies} | {played} | {answers} |")
    return "\n".join(lines)


def main() -> None:
    """Judge the recorded games and print the table; with --recheck-ms, the second."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("record", type=Path, help="games recorded by benchmarks.gomocup")
    parser.add_argument("brain", nargs="+", help="the judge's command line")
    parser.add_argument("--judge-ms", type=int, default=300, help="the judge's time a position")
    parser.add_argument("--lost", action="store_true", help="only the games the search lost")
    parser.add_argument(
        "--recheck-ms",
        type=int,
        nargs="+",
        default=[],
        help="search each game's worst move's position again with these budgets",
    )
    arguments = parser.parse_args()
    chosen = [
        (rules, game)
        for rules, game in recorded(arguments.record)
        if game.result == "loss" or not arguments.lost
    ]
    games = [
        (rules, game, judged(arguments.brain, rules, game, arguments.judge_ms))
        for rules, game in chosen
    ]
    print(table([(game, standings) for _rules, game, standings in games]))
    if not arguments.recheck_ms:
        return
    prepare()
    rows = []
    for rules, game, standings in games:
        plies = worst_move(standings)
        if plies is None:
            continue
        played = dict(standings)[plies]
        found = rechecked(
            arguments.brain,
            rules,
            game,
            plies,
            budgets_ms=arguments.recheck_ms,
            judge_ms=arguments.judge_ms,
        )
        rows.append((game, plies, played, found))
    print()
    print(recheck_table(rows, arguments.recheck_ms))


if __name__ == "__main__":
    main()

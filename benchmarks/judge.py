"""`python -m benchmarks.judge RECORD BRAIN`: the search's recorded games as a stronger
engine judges them, move by move.

`python -m benchmarks.gomocup BRAIN --record RECORD` keeps each game it plays. This gives
a judge every position left by one of the search's moves: a Gomocup brain that reports its
evaluation in its notes, as Rapfi does (`Eval -112`; `Eval +M13`, a win in 13 plies),
`--judge-ms` a position. It prints where the search stood after each of its moves, from
the search's side (the judge's value turned round): `+150` ahead, `-M13` lost in 13 plies
whatever it plays, `+M26` a forced win of its own. For each game, the first of its moves
after which the judge saw it lost, and the forced wins of its own the judge saw that the
game did not take.

    python -m benchmarks.gomocup ./pbrain-rapfi --games 20 --record games.jsonl
    python -m benchmarks.judge games.jsonl ./pbrain-rapfi --judge-ms 300 --lost
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.gomocup import Brain, Game, recorded
from service.game.rules import Rules


def standing(evaluation: str) -> str:
    """Return a judge's evaluation (`Eval` as Rapfi sends it, from the side to move) from
    the other side: the search's, which has just moved."""
    if evaluation.startswith("-"):
        return "+" + evaluation[1:]
    if evaluation.startswith("+"):
        return "-" + evaluation[1:]
    return evaluation if evaluation == "0" else "-" + evaluation


def judged(command: list[str], rules: Rules, game: Game, judge_ms: int) -> list[tuple[int, str]]:
    """Return (plies played, the search's standing) after each of the search's moves but a
    last one that ended the game; "?" where the judge sent no evaluation."""
    search_plays_x = game.search_first
    standings = []
    with Brain(command, rules, judge_ms) as judge:
        for plies in range(4, len(game.moves)):
            last_mover_is_x = (plies - 1) % 2 == 0
            if last_mover_is_x != search_plays_x:
                continue  # the judge's side has just moved, or the opening
            judge.evaluations.clear()
            # The judge plays the side to move: the search's opponent.
            judge.board(
                [
                    (cell, (ply % 2 == 0) != search_plays_x)
                    for ply, cell in enumerate(game.moves[:plies])
                ]
            )
            found = judge.evaluations[-1] if judge.evaluations else None
            standings.append((plies, standing(found) if found is not None else "?"))
    return standings


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


def main() -> None:
    """Judge the recorded games and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("record", type=Path, help="games recorded by benchmarks.gomocup")
    parser.add_argument("brain", nargs="+", help="the judge's command line")
    parser.add_argument("--judge-ms", type=int, default=300, help="the judge's time a position")
    parser.add_argument("--lost", action="store_true", help="only the games the search lost")
    arguments = parser.parse_args()
    games = [
        (game, judged(arguments.brain, rules, game, arguments.judge_ms))
        for rules, game in recorded(arguments.record)
        if game.result == "loss" or not arguments.lost
    ]
    print(table(games))


if __name__ == "__main__":
    main()

"""`python -m benchmarks.threads`: how much deeper a search on every core looks.

Positions from the Gomocup benchmark's seeded openings (three stones within two cells of
the centre, 15x15 freestyle), each with one to four more stones placed by the search
against itself at a small node limit, the side to move searching. Each is searched three
ways in turn, round after round: on one thread with the budget (the baseline), on one
thread with twice the budget (what a second core would give if sharing cost nothing), and
on every core the process may use with the budget (`SharedTree`, as an idle server
searches). Reported: the mean depth finished and nodes of each, and the depth each gains
over the baseline, so that the share of the ideal a second thread delivers is read on any
machine in one run.

With `--midgame`, the positions are taken further into the game (after 10, 13, ... 31
stones of a game the search plays against itself at a small node limit), where threats
abound and the look for a win by threes takes its share before the tree (beside it on
several threads); only the positions whose search, limited by nodes, the tree answers
without seeing the game's end are kept. Only the answers of the tree count.
"""

from __future__ import annotations

import argparse
import statistics

from benchmarks.gomocup import opening
from service.api.app_settings import cores
from service.game.board import Board, Mark
from service.game.rules import Rules
from service.game.search import Method, search
from service.game.warmup import prepare

GOMOKU = Rules(15, 15, 5)

#: The nodes of the search that chooses the midgame positions.
CHOSEN_BY_NODES = 20_000


def positions(count: int) -> list[tuple[Board, Mark]]:
    """Return `count` seeded positions after an opening and a few of the search's moves."""
    found = []
    for seed in range(count):
        board, mover = Board.empty(GOMOKU), Mark.X
        for cell in opening(GOMOKU, seed):
            board, mover = board.play(cell, mover), mover.opponent
        for _ in range(1 + seed % 4):
            move = search(board, mover, 60, max_nodes=500).move
            board, mover = board.play(move, mover), mover.opponent
        if not board.status().is_over:
            found.append((board, mover))
    return found


def midgame_positions(games: int) -> list[tuple[Board, Mark]]:
    """Return positions from `games` seeded games, after 10, 13, ... 31 stones, that a
    search limited by nodes (the same positions on any machine) answers from the tree
    without seeing an end."""
    found = []
    for seed in range(games):
        board, mover = Board.empty(GOMOKU), Mark.X
        for cell in opening(GOMOKU, seed):
            board, mover = board.play(cell, mover), mover.opponent
        for ply in range(30):
            move = search(board, mover, 60, max_nodes=3000).move
            board, mover = board.play(move, mover), mover.opponent
            if board.status().is_over:
                break
            if ply >= 4 and ply % 3 == 0:
                answer = search(board, mover, 60, max_nodes=CHOSEN_BY_NODES)
                if answer.method is Method.HEURISTIC and answer.depth < len(board.empty_cells()):
                    found.append((board, mover))
    return found


def measure(
    count: int, budget_ms: int, rounds: int, *, midgame: bool = False
) -> dict[str, tuple[float, float]]:
    """Return each way's mean depth and nodes over the positions and rounds."""
    ways = {
        "one thread": (budget_ms, 1),
        "one thread, twice the budget": (2 * budget_ms, 1),
        f"{cores()} threads": (budget_ms, cores()),
    }
    seen: dict[str, list[tuple[int, int]]] = {name: [] for name in ways}
    boards = midgame_positions(count) if midgame else positions(count)
    for _ in range(rounds):
        for board, mover in boards:
            for name, (milliseconds, threads) in ways.items():
                found = search(board, mover, milliseconds / 1000, threads=threads)
                if found.method is Method.HEURISTIC:  # a proof's depth is its length
                    seen[name].append((found.depth, found.nodes))
    return {
        name: (statistics.mean(d for d, _ in runs), statistics.mean(n for _, n in runs))
        for name, runs in seen.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--positions", type=int, default=24)
    parser.add_argument("--budget-ms", type=int, default=250)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--midgame", action="store_true", help="positions from further into the game: "
        "--positions games' worth"
    )  # fmt: skip
    arguments = parser.parse_args()
    prepare()
    figures = measure(
        arguments.positions, arguments.budget_ms, arguments.rounds, midgame=arguments.midgame
    )
    baseline = figures["one thread"][0]
    print("| search | mean depth | gain | mean nodes |")
    print("|---|---|---|---|")
    for name, (depth, nodes) in figures.items():
        print(f"| {name} | {depth:.2f} | {depth - baseline:+.2f} | {nodes:,.0f} |")


if __name__ == "__main__":
    main()

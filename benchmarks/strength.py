"""`python -m benchmarks.strength`: the search against OpenSpiel's MCTS bot, game by game.

OpenSpiel is a benchmark dependency only, never the service's: `pip install open-spiel`
(its C++ bots come in the wheel). Each game is OpenSpiel's `mnk` on a square board, the
search playing one side with its budget per move (250 ms, the service's default) and
`pyspiel.MCTSBot` with random rollouts the other, as first and as second player, with a
seed per game. OpenSpiel's state decides how each game ends; the service's own board
follows every move and must agree.

    python -m benchmarks.strength                     # 7x7, 9x9 and 15x15, five in a row
    python -m benchmarks.strength --simulations 10000 --games 1
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from dataclasses import dataclass

import pyspiel

from service.game.board import Board, GameStatus, Mark
from service.game.rules import Rules
from service.game.search import search
from service.game.warmup import prepare

BOARDS = (Rules(7, 7, 5), Rules(9, 9, 5), Rules(15, 15, 5))


@dataclass(frozen=True)
class Game:
    """One finished game, from the search's side."""

    rules: Rules
    simulations: int
    search_first: bool
    seed: int
    result: str
    plies: int
    longest_move_seconds: float


def play(rules: Rules, simulations: int, search_first: bool, seed: int, budget: float) -> Game:
    """Play one game of the search against MCTS; return how it ended for the search."""
    game = pyspiel.load_game(f"mnk(m={rules.cols},n={rules.rows},k={rules.k})")
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.MCTSBot(game, evaluator, 2.0, simulations, 1000, False, seed, False)
    state = game.new_initial_state()
    board, mover = Board.empty(rules), Mark.X
    ours = 0 if search_first else 1
    longest = 0.0
    while not state.is_terminal():
        if state.current_player() == ours:
            started = time.perf_counter()
            move = search(board, mover, budget).move
            longest = max(longest, time.perf_counter() - started)
        else:
            move = bot.step(state)
        state.apply_action(move)
        board, mover = board.play(move, mover), mover.opponent
    returns = state.returns()[ours]
    result = "win" if returns > 0 else "loss" if returns < 0 else "draw"
    ours_mark = Mark.X if search_first else Mark.O
    expected = {
        "win": GameStatus.X_WON if ours_mark is Mark.X else GameStatus.O_WON,
        "loss": GameStatus.O_WON if ours_mark is Mark.X else GameStatus.X_WON,
        "draw": GameStatus.DRAW,
    }[result]
    if board.status() is not expected:
        raise AssertionError(f"OpenSpiel says {result}, the service's board {board.status()}")
    plies = board.rules.cell_count - len(board.empty_cells())
    return Game(rules, simulations, search_first, seed, result, plies, longest)


def table(games: list[Game]) -> str:
    """Return a markdown table of wins, draws and losses by board, strength and side."""
    lines = [
        "| board | MCTS simulations | search moves | wins | draws | losses | longest move |",
        "|---|---|---|---|---|---|---|",
    ]
    keys = sorted({(g.rules.cell_count, g.simulations, not g.search_first) for g in games})
    for cells, simulations, second in keys:
        chosen = [
            g
            for g in games
            if (g.rules.cell_count, g.simulations, not g.search_first)
            == (cells, simulations, second)
        ]
        counts = Counter(g.result for g in chosen)
        rules = chosen[0].rules
        lines.append(
            f"| {rules.describe()} | {simulations:,} | {'second' if second else 'first'} | "
            f"{counts['win']} | {counts['draw']} | {counts['loss']} | "
            f"{max(g.longest_move_seconds for g in chosen) * 1000:.0f} ms |"
        )
    return "\n".join(lines)


def main() -> None:
    """Play the matches and print the table."""
    parser = argparse.ArgumentParser(description="The search against OpenSpiel's MCTS bot.")
    parser.add_argument("--simulations", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--games", type=int, default=2, help="games per side and setting")
    parser.add_argument("--budget-ms", type=int, default=250)
    parser.add_argument("--boards", nargs="+", default=[f"{r.rows}x{r.cols}" for r in BOARDS])
    arguments = parser.parse_args()
    chosen = [rules for rules in BOARDS if f"{rules.rows}x{rules.cols}" in arguments.boards]
    prepare()  # the compiled search loaded before the first move, as the service does
    games = []
    for rules in chosen:
        for simulations in arguments.simulations:
            for search_first in (True, False):
                for seed in range(arguments.games):
                    finished = play(
                        rules, simulations, search_first, seed, arguments.budget_ms / 1000
                    )
                    print(finished, flush=True)
                    games.append(finished)
    print(table(games))


if __name__ == "__main__":
    main()

"""`python -m benchmarks.search_bench`: how far the search looks within a budget on 15x15.

Three seeded positions of five in a row on 15x15 from the search's own play, where the
rules and the threat search prove nothing (so the heuristic search decides): an opening
(4 marks), a middle game (40 marks) and an endgame (100 marks); and a position where the
threat search has most to try and nothing to find (edge threes: five threes of each side
against the board's edges, each a four to make, in any order), each searched with the
default budget of 250 ms. For each: the depth finished, the nodes, nodes per second, and
the time used against the budget, for the search the service runs (compiled by numba).

Its speed is given against an anchor measured in the same rounds on the same position and
budget: a plain negamax in pure Python that shares no code with the search (no pruning, no
table, no incremental counts; every cell within two of a mark, each leaf's windows counted
from scratch), deepening until the budget is spent. The ratio of nodes per second says how
much the search's machinery buys on this machine, whatever the machine. Rounds alternate
the positions and the two; medians are reported.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from service.game.board import Board, Mark
from service.game.rules import Rules
from service.game.search import Method, search
from service.game.warmup import prepare

GOMOKU = Rules(15, 15, 5)


def seeded_position(marks: int, seed: int = 2026) -> tuple[Board, Mark]:
    """Return a position of `marks` marks from seeded self-play, where the rules and the
    threat search prove nothing, so the heuristic search decides: the first from `seed` on.

    Four random moves near the centre, then the search against itself at 300 nodes a move:
    positions as play reaches them (random marks are tactically lost at once)."""
    while True:
        rng = random.Random(seed)
        board, mover = Board.empty(GOMOKU), Mark.X
        while GOMOKU.cell_count - len(board.empty_cells()) < marks and not board.status().is_over:
            if GOMOKU.cell_count - len(board.empty_cells()) < 4:
                move = rng.choice(
                    [
                        c
                        for c in board.empty_cells()
                        if abs(c // 15 - 7) <= 2 and abs(c % 15 - 7) <= 2
                    ]
                )
            else:
                move = search(board, mover, 60, max_nodes=300).move
            board, mover = board.play(move, mover), mover.opponent
        if (
            not board.status().is_over
            and search(board, mover, 60, max_nodes=300).method is Method.HEURISTIC
        ):
            return board, mover
        seed += 1


POSITIONS = {"opening": 4, "middle game": 40, "endgame": 100}


def edge_threes() -> tuple[Board, Mark]:
    """Return 15x15 with X's threes down from the top edge (columns 0, 3, ..., 12) and O's up
    from the bottom (columns 1, 4, ..., 13), X to move: each three makes a four, blocked at
    once, and no run of them wins, so the threat search tries every order of them."""
    cells = ["."] * GOMOKU.cell_count
    for column in range(0, 15, 3):
        for row in range(3):
            cells[row * 15 + column] = "X"
            cells[(14 - row) * 15 + column + 1] = "O"
    return Board.from_text("".join(cells), GOMOKU), Mark.X


class _OutOfTime(Exception):
    pass


class PlainNegamax:
    """The anchor: a full-width negamax in pure Python over a list of cells, without
    pruning, table or running counts, each leaf valued from scratch (an open window of n
    marks worth 4 ** (n - 1) to its holder); deepening until its budget is spent."""

    def __init__(self, board: Board, seconds: float) -> None:
        self.size, self.k = board.rules.rows, board.rules.k
        self.cells = [0 if cell is None else 1 if cell is Mark.X else 2 for cell in board.cells]
        self.windows = [
            [(row + step * dr) * self.size + col + step * dc for step in range(self.k)]
            for row in range(self.size)
            for col in range(self.size)
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1))
            if 0 <= row + (self.k - 1) * dr < self.size and 0 <= col + (self.k - 1) * dc < self.size
        ]
        self.deadline = time.perf_counter() + seconds
        self.nodes = 0

    def run(self, player: int) -> tuple[int, int]:
        """Return (depth finished, nodes) once the budget is spent."""
        finished = 0
        try:
            for depth in range(1, 64):
                self._negamax(player, depth)
                finished = depth
        except _OutOfTime:
            pass
        return finished, self.nodes

    def _negamax(self, player: int, depth: int) -> int:
        self.nodes += 1
        if time.perf_counter() >= self.deadline:
            raise _OutOfTime
        if depth == 0:
            return self._value(player)
        best = -(10**9)
        for cell in self._near():
            self.cells[cell] = player
            best = max(best, -self._negamax(3 - player, depth - 1))
            self.cells[cell] = 0
        return best

    def _near(self) -> list[int]:
        size, cells = self.size, self.cells
        return [
            cell
            for cell in range(size * size)
            if cells[cell] == 0
            and any(
                cells[r * size + c]
                for r in range(max(0, cell // size - 2), min(size, cell // size + 3))
                for c in range(max(0, cell % size - 2), min(size, cell % size + 3))
            )
        ]

    def _value(self, player: int) -> int:
        total = 0
        for window in self.windows:
            marks = [self.cells[cell] for cell in window]
            mine, theirs = marks.count(player), marks.count(3 - player)
            if mine and not theirs:
                total += 4 ** (mine - 1)
            elif theirs and not mine:
                total -= 4 ** (theirs - 1)
        return total


def measure(rounds: int = 5, budget_ms: int = 250) -> dict[str, dict[str, dict[str, float]]]:
    """Search each position `rounds` times with the search and with the anchor; return the
    medians, by position then by kind ("search", "plain negamax")."""
    positions = {name: seeded_position(marks) for name, marks in POSITIONS.items()}
    positions["edge threes"] = edge_threes()
    prepare()  # loads (or compiles) the compiled search outside the clock
    kinds = ("search", "plain negamax")
    found: dict[str, dict[str, list[tuple[int, int, float]]]] = {
        name: {kind: [] for kind in kinds} for name in positions
    }
    for _ in range(rounds):
        for name, (board, mover) in positions.items():
            result = search(board, mover, budget_ms / 1000)
            found[name]["search"].append((result.depth, result.nodes, result.seconds))
            started = time.perf_counter()
            depth, nodes = PlainNegamax(board, budget_ms / 1000).run(1 if mover is Mark.X else 2)
            spent = time.perf_counter() - started
            found[name]["plain negamax"].append((depth, nodes, spent))
    return {
        name: {kind: _medians(runs, budget_ms) for kind, runs in by_kind.items()}
        for name, by_kind in found.items()
    }


def _medians(runs: list[tuple[int, int, float]], budget_ms: int) -> dict[str, float]:
    return {
        "depth": statistics.median(depth for depth, _, _ in runs),
        "nodes": statistics.median(nodes for _, nodes, _ in runs),
        "nodes_per_second": statistics.median(nodes / seconds for _, nodes, seconds in runs),
        "time_over_budget": statistics.median(seconds for _, _, seconds in runs)
        / (budget_ms / 1000),
    }


def main() -> None:
    """Measure and print a markdown table."""
    parser = argparse.ArgumentParser(description="The search's depth and speed on 15x15.")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--budget-ms", type=int, default=250)
    arguments = parser.parse_args()
    figures = measure(arguments.rounds, arguments.budget_ms)
    print(
        "| position | search | depth | nodes | nodes per second | time / budget "
        "| nodes per second / plain negamax |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, by_kind in figures.items():
        for kind, row in by_kind.items():
            ratio = row["nodes_per_second"] / by_kind["plain negamax"]["nodes_per_second"]
            print(
                f"| {name} | {kind} | {row['depth']:.0f} | {row['nodes']:,.0f} | "
                f"{row['nodes_per_second']:,.0f} | {row['time_over_budget']:.3f} | {ratio:.1f}x |"
            )


if __name__ == "__main__":
    main()

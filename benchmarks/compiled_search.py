"""`python -m benchmarks.compiled_search`: the heuristic search compiled with numba, measured
against the pure-Python one it copies, on the positions of `benchmarks.search_bench`.

A measurement, not the service: it decides whether a compiled search is worth serving. The
port is the heuristic alpha-beta of `service.game.search` move for move: the same window
counts and promises, the same candidates in the same order, the same transposition table,
the same node count; a test holds it to the pure-Python search depth by depth. What it
leaves out (the rules at the root, the threat search, the exact endgame, the deadline read
inside the search) costs little next to it. Iterative deepening stays in Python: each depth
is one call, given the nodes the remaining time allows at the speed measured so far.

numba is a benchmark dependency (`pip install numba`), like OpenSpiel; nothing in the
service imports it.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit, types
from numba.typed import Dict

from benchmarks.search_bench import POSITIONS, seeded_position
from service.game.board import Board, Mark
from service.game.search import (
    CANDIDATES_TRIED,
    HEURISTIC_LIMIT,
    MATE,
    Search,
    geometry_of,
)

Ints = npt.NDArray[np.int64]
#: Returned by the compiled search when its node limit is reached mid-depth.
ABORTED = -(2**62)


@njit(cache=True)
def _value_of(weights: Ints, mine: int, theirs: int) -> int:
    if theirs == 0:
        return int(weights[mine])
    return -int(weights[theirs]) if mine == 0 else 0


@njit(cache=True)
def _promise_of(weights: Ints, mine: int, theirs: int) -> int:
    total = 0
    if theirs == 0:
        total += weights[mine + 1]
    if mine == 0:
        total += weights[theirs + 1]
    return total


@njit(cache=True)
def _recount(g, s, cell, player, step):  # type: ignore[no-untyped-def]
    windows, windows_of, weights, k = g[0], g[1], g[3], g[6]
    counts, promise, scalars = s[1], s[3], s[4]
    other = 3 - player
    sign = 1 if player == 1 else -1
    completed = False
    for slot in range(windows_of.shape[1]):
        window = windows_of[cell, slot]
        if window < 0:
            break
        before = counts[window, player]
        theirs = counts[window, other]
        after = before + step
        counts[window, player] = after
        if after == k:
            completed = True
        scalars[0] += sign * (
            _value_of(weights, after, theirs) - _value_of(weights, before, theirs)
        )
        change = _promise_of(weights, after, theirs) - _promise_of(weights, before, theirs)
        if change != 0:
            for member in range(k):
                promise[windows[window, member]] += change
    return completed


@njit(cache=True)
def _play(g, s, cell, player):  # type: ignore[no-untyped-def]
    near, keys = g[2], g[4]
    cells, near_marks, scalars, zobrist = s[0], s[2], s[4], s[5]
    completed = _recount(g, s, cell, player, 1)
    cells[cell] = player
    scalars[1] -= 1
    zobrist[0] ^= keys[cell, player]
    for slot in range(near.shape[1]):
        neighbour = near[cell, slot]
        if neighbour < 0:
            break
        near_marks[neighbour] += 1
    return completed


@njit(cache=True)
def _undo(g, s, cell):  # type: ignore[no-untyped-def]
    near, keys = g[2], g[4]
    cells, near_marks, scalars, zobrist = s[0], s[2], s[4], s[5]
    player = cells[cell]
    _recount(g, s, cell, player, -1)
    cells[cell] = 0
    scalars[1] += 1
    zobrist[0] ^= keys[cell, player]
    for slot in range(near.shape[1]):
        neighbour = near[cell, slot]
        if neighbour < 0:
            break
        near_marks[neighbour] -= 1


@njit(cache=True)
def _completing(g, s, player):  # type: ignore[no-untyped-def]
    """The empty cells where `player` completes a line, ascending (as the sets' sort)."""
    windows, k = g[0], g[6]
    cells, counts = s[0], s[1]
    marked = np.zeros(cells.shape[0], dtype=np.bool_)
    found = 0
    for window in range(windows.shape[0]):
        if counts[window, player] == k - 1 and counts[window, 3 - player] == 0:
            for member in range(k):
                cell = windows[window, member]
                if cells[cell] == 0 and not marked[cell]:
                    marked[cell] = True
                    found += 1
    result = np.empty(found, dtype=np.int64)
    at = 0
    for cell in range(cells.shape[0]):
        if marked[cell]:
            result[at] = cell
            at += 1
    return result


@njit(cache=True)
# The pure search's candidates and negamax, branch for branch: hence the branches.
def _candidates(g, s, player, hint, misere):  # type: ignore[no-untyped-def]  # noqa: PLR0912
    centre = g[5]
    cells, near_marks, promise = s[0], s[2], s[3]
    if not misere:
        wins = _completing(g, s, player)
        if wins.shape[0] > 0:
            return wins[:1]
        threats = _completing(g, s, 3 - player)
        if threats.shape[0] > 0:
            return threats
    count = 0
    for cell in range(cells.shape[0]):
        if cells[cell] == 0 and near_marks[cell] > 0:
            count += 1
    if count == 0:
        first = centre
        if cells[centre] != 0:
            for cell in range(cells.shape[0]):
                if cells[cell] == 0:
                    first = cell
                    break
        return np.array([first], dtype=np.int64)
    moves = np.empty(count, dtype=np.int64)
    keys = np.empty(count, dtype=np.int64)
    at = 0
    size = cells.shape[0]
    for cell in range(size):
        if cells[cell] == 0 and near_marks[cell] > 0:
            moves[at] = cell
            # Sorted by (-promise, cell), as the pure-Python search sorts them.
            keys[at] = -promise[cell] * size + cell
            at += 1
    ordered = moves[np.argsort(keys, kind="mergesort")][:CANDIDATES_TRIED]
    if hint >= 0:
        for at in range(ordered.shape[0]):
            if ordered[at] == hint:
                for back in range(at, 0, -1):
                    ordered[back] = ordered[back - 1]
                ordered[0] = hint
                break
    return ordered


@njit(cache=True)
def _heuristic(s, player_who_moved, misere):  # type: ignore[no-untyped-def]
    value = s[4][0] if player_who_moved == 1 else -s[4][0]
    if misere:
        value = -value
    return max(-HEURISTIC_LIMIT, min(HEURISTIC_LIMIT, value))


@njit(cache=True)
def _negamax(  # type: ignore[no-untyped-def]  # noqa: PLR0912, PLR0917
    g, s, table, player, depth, alpha, beta, ply, misere, limits
):
    limits[0] += 1  # nodes
    if limits[0] > limits[1]:
        return ABORTED
    original_alpha = alpha
    key = s[5][0]
    hint = -1
    if key in table:
        stored_depth, stored_value, flag, stored_move = table[key]
        hint = stored_move
        if stored_depth >= depth and ply > 0:
            if flag == 0:
                return stored_value
            if flag < 0 and stored_value <= alpha:
                return stored_value
            if flag > 0 and stored_value >= beta:
                return stored_value
    moves = _candidates(g, s, player, hint, misere)
    best_value = -MATE - 1
    best_move = moves[0]
    for at in range(moves.shape[0]):
        move = moves[at]
        if _play(g, s, move, player):
            value = -(MATE - ply - 1) if misere else MATE - ply - 1
        elif s[4][1] == 0:
            value = 0
        elif depth <= 1:
            value = _heuristic(s, player, misere)
        else:
            deeper = _negamax(
                g, s, table, 3 - player, depth - 1, -beta, -alpha, ply + 1, misere, limits
            )
            if deeper == ABORTED:
                _undo(g, s, move)
                return ABORTED
            value = -deeper
        _undo(g, s, move)
        if value > best_value:
            best_value = value
            best_move = move
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    flag = -1 if best_value <= original_alpha else (1 if best_value >= beta else 0)
    table[key] = (depth, best_value, flag, best_move)
    return best_value


@dataclass(frozen=True)
class DepthResult:
    """What one depth of the compiled search found, or None when it ran out of nodes."""

    depth: int
    value: int
    move: int
    nodes: int


class CompiledSearch:
    """The heuristic search of one position, compiled: the state copied from the service's."""

    def __init__(self, board: Board, mover: Mark) -> None:
        started = Search(board, mover, 60.0)  # the service's set-up, so the states agree
        geometry = geometry_of(board.rules)
        position = started.position
        self.mover = 1 if mover is Mark.X else 2
        self.misere = board.rules.misere
        k = board.rules.k
        windows = np.array(geometry.windows, dtype=np.int64).reshape(len(geometry.windows), k)
        widest = max(len(listed) for listed in geometry.windows_of)
        windows_of = np.full((geometry.cells, widest), -1, dtype=np.int64)
        for cell, listed in enumerate(geometry.windows_of):
            windows_of[cell, : len(listed)] = listed
        nearest = max(len(cells) for cells in geometry.near)
        near = np.full((geometry.cells, nearest), -1, dtype=np.int64)
        for cell, cells in enumerate(geometry.near):
            near[cell, : len(cells)] = cells
        self.geometry = (
            windows,
            windows_of,
            near,
            np.array(geometry.weights, dtype=np.int64),
            np.array(geometry.keys, dtype=np.uint64),
            geometry.centre,
            k,
        )
        self.state = (
            np.array(position.cells, dtype=np.int64),
            np.array(position.counts, dtype=np.int64),
            np.array(position.near_marks, dtype=np.int64),
            np.array(position.promise, dtype=np.int64),
            np.array([position.value, position.empty], dtype=np.int64),
            np.array([position.hash], dtype=np.uint64),
        )
        self.table = Dict.empty(
            key_type=types.uint64,
            value_type=types.UniTuple(types.int64, 4),  # type: ignore[no-untyped-call]
        )
        self.nodes = 0

    def depth(self, depth: int, node_limit: int = 2**62) -> DepthResult | None:
        """Search one more depth, sharing the table; None if `node_limit` nodes ran out."""
        limits = np.array([0, node_limit], dtype=np.int64)
        value = _negamax(
            self.geometry, self.state, self.table, self.mover, depth,
            -MATE - 1, MATE + 1, 0, self.misere, limits,
        )  # fmt: skip
        self.nodes += int(limits[0])
        if value == ABORTED:
            return None
        move = int(self.table[np.uint64(self.state[5][0])][3])
        return DepthResult(depth, int(value), move, int(limits[0]))


def compiled_within(board: Board, mover: Mark, seconds: float) -> tuple[int, int, float]:
    """Deepen until `seconds` pass; return the depth finished, the nodes and the time."""
    started = time.perf_counter()
    search = CompiledSearch(board, mover)
    finished = 0
    for depth in range(1, len(board.empty_cells()) + 1):
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            break
        # The nodes the remaining time allows at the speed so far (generous before any).
        speed = search.nodes / elapsed if search.nodes else 10_000_000
        found = search.depth(depth, max(1, int((seconds - elapsed) * speed)))
        if found is None:
            break
        finished = depth
        if abs(found.value) > HEURISTIC_LIMIT:
            break
    return finished, search.nodes, time.perf_counter() - started


def python_within(board: Board, mover: Mark, seconds: float) -> tuple[int, int, float]:
    """The pure-Python heuristic search, deepening until `seconds` pass, as the service does."""
    search = Search(board, mover, seconds)
    result = search._iterative_deepening(search.position.empty_cells())
    return result.depth, result.nodes, result.seconds


def measure(rounds: int = 3, budget_ms: int = 250) -> dict[str, dict[str, float]]:
    """Both searches on each position, alternating; the medians of depth and nodes a second."""
    positions = {name: seeded_position(marks) for name, marks in POSITIONS.items()}
    for board, mover in positions.values():
        compiled_within(board, mover, 0.05)  # compiles (or loads the cache) outside the clock
    figures: dict[str, dict[str, list[float]]] = {
        name: {key: [] for key in ("py_depth", "py_nps", "nb_depth", "nb_nps")}
        for name in positions
    }
    for _ in range(rounds):
        for name, (board, mover) in positions.items():
            depth, nodes, seconds = python_within(board, mover, budget_ms / 1000)
            figures[name]["py_depth"].append(depth)
            figures[name]["py_nps"].append(nodes / seconds)
            depth, nodes, seconds = compiled_within(board, mover, budget_ms / 1000)
            figures[name]["nb_depth"].append(depth)
            figures[name]["nb_nps"].append(nodes / seconds)
    return {
        name: {key: statistics.median(values) for key, values in row.items()}
        for name, row in figures.items()
    }


def main() -> None:
    """Measure and print a markdown table."""
    parser = argparse.ArgumentParser(description="The compiled search against the pure one.")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--budget-ms", type=int, default=250)
    arguments = parser.parse_args()
    figures = measure(arguments.rounds, arguments.budget_ms)
    print("| position | pure Python: depth | nodes/s | numba: depth | nodes/s | speed-up |")
    print("|---|---|---|---|---|---|")
    for name, row in figures.items():
        print(
            f"| {name} | {row['py_depth']:.0f} | {row['py_nps']:,.0f} | "
            f"{row['nb_depth']:.0f} | {row['nb_nps']:,.0f} | {row['nb_nps'] / row['py_nps']:.1f}x |"
        )


if __name__ == "__main__":
    main()

"""The engine against the searches it replaces: textbook minimax and alpha-beta.

Everything runs in this one process, one after another, so the ratios compare like with like.
"""

from __future__ import annotations

import gc
import math
import random
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

from service.game.board import Board, GameStatus, Mark
from service.game.engine import WIN_SCORE, Engine


def textbook_minimax(board: Board, mover: Mark) -> int:
    """The textbook recursive minimax: no pruning, no memo; depth-aware scores."""

    def value(position: Board, to_move: Mark, depth: int) -> int:
        status = position.status()
        if status is GameStatus.DRAW:
            return 0
        if status.is_over:
            # The side that just moved won: good for `mover` if that was `mover`.
            return (WIN_SCORE - depth) if status.winner is mover else (depth - WIN_SCORE)
        scores = [
            value(position.play(cell, to_move), to_move.opponent, depth + 1)
            for cell in position.empty_cells()
        ]
        return max(scores) if to_move is mover else min(scores)

    best_score, best_move = -math.inf, -1
    for cell in board.empty_cells():
        score = value(board.play(cell, mover), mover.opponent, 1)
        if score > best_score:
            best_score, best_move = score, cell
    return best_move


def alpha_beta(board: Board, mover: Mark) -> int:
    """Minimax with alpha-beta pruning (no memo), the usual faster search."""

    def value(position: Board, to_move: Mark, depth: int, alpha: float, beta: float) -> float:
        status = position.status()
        if status is GameStatus.DRAW:
            return 0
        if status.is_over:
            return (WIN_SCORE - depth) if status.winner is mover else (depth - WIN_SCORE)
        if to_move is mover:
            best = -math.inf
            for cell in position.empty_cells():
                child = position.play(cell, to_move)
                best = max(best, value(child, to_move.opponent, depth + 1, alpha, beta))
                alpha = max(alpha, best)
                if alpha >= beta:
                    break
            return best
        best = math.inf
        for cell in position.empty_cells():
            child = position.play(cell, to_move)
            best = min(best, value(child, to_move.opponent, depth + 1, alpha, beta))
            beta = min(beta, best)
            if alpha >= beta:
                break
        return best

    best_score, best_move = -math.inf, -1
    for cell in board.empty_cells():
        score = value(board.play(cell, mover), mover.opponent, 1, best_score, math.inf)
        if score > best_score:
            best_score, best_move = score, cell
    return best_move


def seconds(call: Callable[[], object], repeat: int = 3) -> float:
    """The fastest of `repeat` timings of `call`, in seconds."""
    best = math.inf
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best


@dataclass
class EngineFigures:
    """Seconds per best move for each search, and the table's cost."""

    positions: int
    engine_per_move: float
    engine_empty: float
    textbook_empty: float
    alpha_beta_empty: float
    sample_size: int
    engine_sample: float
    textbook_sample: float
    alpha_beta_sample: float
    build_seconds: float
    table_bytes: int


def legal_positions(engine: Engine) -> list[tuple[Board, Mark]]:
    """Every unfinished position either player can reach, with its side to move."""
    found: set[tuple[Board, Mark]] = set()

    def walk(board: Board, mover: Mark) -> None:
        if (board, mover) in found or board.status().is_over:
            return
        found.add((board, mover))
        for cell in board.empty_cells():
            walk(board.play(cell, mover), mover.opponent)

    for first in Mark:
        walk(Board(), first)
    return sorted(found, key=lambda position: (position[0].to_text(), position[1].value))


def measure(sample_size: int = 200, seed: int = 2026) -> EngineFigures:
    """Run every engine benchmark."""
    build_seconds = seconds(Engine.build, repeat=3)
    tracemalloc.start()
    engine = Engine.build()
    table_bytes = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()

    positions = legal_positions(engine)
    every_move = seconds(
        lambda: [engine.advise(engine.position(board, mover)) for board, mover in positions]
    )
    empty = Board()
    engine_empty = (
        seconds(lambda: [engine.advise(engine.position(empty, Mark.X)) for _ in range(10_000)])
        / 10_000
    )
    textbook_empty = seconds(lambda: textbook_minimax(empty, Mark.X), repeat=1)
    alpha_beta_empty = seconds(lambda: alpha_beta(empty, Mark.X))

    sample = random.Random(seed).sample(positions, sample_size)
    engine_sample = seconds(
        lambda: [engine.advise(engine.position(board, mover)) for board, mover in sample]
    )
    textbook_sample = seconds(
        lambda: [textbook_minimax(board, mover) for board, mover in sample], repeat=1
    )
    alpha_beta_sample = seconds(lambda: [alpha_beta(board, mover) for board, mover in sample])
    return EngineFigures(
        positions=len(positions),
        engine_per_move=every_move / len(positions),
        engine_empty=engine_empty,
        textbook_empty=textbook_empty,
        alpha_beta_empty=alpha_beta_empty,
        sample_size=sample_size,
        engine_sample=engine_sample / sample_size,
        textbook_sample=textbook_sample / sample_size,
        alpha_beta_sample=alpha_beta_sample / sample_size,
        build_seconds=build_seconds,
        table_bytes=table_bytes,
    )


if __name__ == "__main__":
    print(measure())

"""The search as a Gomocup brain (`benchmarks.brain`): the protocol's commands answered as a
manager expects, and a game against itself through `benchmarks.gomocup`."""

from __future__ import annotations

import io
import sys
from pathlib import Path

from benchmarks.brain import serve
from benchmarks.gomocup import Brain, play
from service.game.board import Board, Mark
from service.game.renju import forbidden_cells
from service.game.rules import Rules, Variant


def answers(*commands: str) -> list[str]:
    """Return what the brain says to `commands`, one line each."""
    said = io.StringIO()
    serve(io.StringIO("".join(f"{command}\r\n" for command in commands)), said)
    return said.getvalue().splitlines()


def test_it_starts_on_the_boards_it_plays_and_refuses_the_others() -> None:
    assert answers("START 15", "RECTSTART 20,12", "START 30", "END") == [
        "OK",
        "OK",
        "ERROR bestmove plays boards from 5x5 to 20x20",
    ]


def test_each_move_is_an_empty_cell_of_the_board() -> None:
    said = answers("START 9", "INFO timeout_turn 60", "BEGIN", "TURN 0,0", "END")
    moves = [tuple(int(part) for part in move.split(",")) for move in said[1:]]
    assert len(moves) == 2
    assert len({*moves, (0, 0)}) == 3
    assert all(0 <= col < 9 and 0 <= row < 9 for col, row in moves)


def test_from_a_board_it_completes_its_own_four() -> None:
    """Its stones (1) on row 2, x 0 to 3; the opponent's (2) on row 5: it plays 4,2."""
    own = [f"{col},2,1" for col in range(4)]
    theirs = [f"{col},5,2" for col in range(4)]
    stones = [stone for pair in zip(own, theirs, strict=True) for stone in pair]
    said = answers("START 15", "INFO timeout_turn 100", "BOARD", *stones, "DONE", "END")
    assert said == ["OK", "4,2"]


def test_under_renju_black_never_plays_a_forbidden_cell() -> None:
    """Black (the brain, first to move) may make a double three at 7,7 and nowhere better."""
    rules = Rules(15, 15, 5, variant=Variant.RENJU)
    moves = [(7, 5), (0, 0), (5, 7), (14, 0), (7, 6), (0, 14), (6, 7), (14, 14)]
    board, mover = Board.empty(rules), Mark.X
    for col, row in moves:
        board, mover = board.play(row * 15 + col, mover), mover.opponent
    assert 7 * 15 + 7 in forbidden_cells(board)
    stones = [f"{col},{row},{1 if at % 2 == 0 else 2}" for at, (col, row) in enumerate(moves)]
    said = answers("START 15", "INFO rule 4", "INFO timeout_turn 100", "BOARD", *stones, "DONE")
    col, row = (int(part) for part in said[1].split(","))
    assert row * 15 + col not in forbidden_cells(board)
    assert board.cells[row * 15 + col] is None


def test_it_plays_a_whole_game_against_itself_through_the_benchmark() -> None:
    brain = [sys.executable, str(Path(__file__).parents[1] / "benchmarks" / "brain.py")]
    game = play(brain, Rules(9, 9, 5), seed=1, search_first=True, budget_ms=40)
    assert game.result in {"win", "draw", "loss"}
    assert len(set(game.moves)) == game.plies >= 9


def test_a_brain_that_loads_for_longer_than_a_move_may_take_is_waited_for_at_start() -> None:
    """A brain answers START once it has loaded its engine (this project's, the compiled
    search from its cache): on a busy machine that takes longer than the patience a move
    at 40 ms gets (1 s), and the benchmark still waits for it."""
    load_then_answer = "import sys, time; time.sleep(1.5); "  # the load time under test
    loading = load_then_answer + "print('OK', flush=True); sys.stdin.read()"
    with Brain([sys.executable, "-c", loading], Rules(9, 9, 5), budget_ms=40) as brain:
        assert brain.patience < 1.5

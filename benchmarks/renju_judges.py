"""`python -m benchmarks.renju_judges CHECK_FORBID [--rapfi BRAIN]`: our renju fouls
against the public judges'.

Seeded positions on 15x15, made to be full of fouls: black and white stones dropped near
the stones already down (black two stones for white's one, so that black's rows grow), no
five on the board. For every empty cell, whether black may play it, by
`service.game.renju` and by GomocupJudge's `client/check_forbid.py` (fetched beside the
project, never shipped: the judge Gomocup's renju league is played by). With `--rapfi`,
also against Rapfi's `YXSHOWFORBID` (a Gomocup brain, run as its own process), on positions
a game could reach with black to move (the colours alternate, black first), since Rapfi
reads the stones as moves in that order and lists fouls only when black is to move. Prints
the cells judged, the fouls each found, the agreement, and the first disagreements.

    python -m benchmarks.renju_judges ../opponents/GomocupJudge/client/check_forbid.py \
        --rapfi ../opponents/pbrain-rapfi.sh
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import subprocess
from collections.abc import Callable
from pathlib import Path

from service.game.board import Board, Mark
from service.game.renju import forbidden_cells
from service.game.rules import Rules

RENJU_BOARD = Rules(15, 15, 5)
#: check_forbid's board: a list of rows, 0 empty, 1 black, 2 white.
GomocupBoard = list[list[int]]


def load_check_forbid(path: Path) -> Callable[[GomocupBoard, int, int], bool]:
    """Load `check_forbid(board, row, col)` from GomocupJudge's file."""
    spec = importlib.util.spec_from_file_location("check_forbid", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    judge: Callable[[GomocupBoard, int, int], bool] = module.check_forbid
    return judge


def crowded_position(rng: random.Random, *, alternate: bool = False) -> Board:
    """Return a seeded position of 12 to 40 stones near each other, without a five: black
    two stones for white's one, or with `alternate` as a game plays them, black to move."""
    board = Board.empty(RENJU_BOARD)
    centre = RENJU_BOARD.cell_count // 2
    board = board.play(centre, Mark.X)
    for _ in range(rng.randint(11, 39)):
        taken = [cell for cell, mark in enumerate(board.cells) if mark is not None]
        near = sorted(
            {
                row * 15 + col
                for cell in taken
                for row in range(cell // 15 - 2, cell // 15 + 3)
                for col in range(cell % 15 - 2, cell % 15 + 3)
                if 0 <= row < 15 and 0 <= col < 15 and board.cells[row * 15 + col] is None
            }
        )
        if alternate:
            mark = Mark.O if board.count(Mark.X) > board.count(Mark.O) else Mark.X
        else:
            mark = Mark.O if rng.random() < 1 / 3 else Mark.X
        played = board.play(rng.choice(near), mark)
        if not played.completed_lines():
            board = played
    while alternate and board.count(Mark.X) > board.count(Mark.O):  # black to move
        board = board.play(rng.choice(board.empty_cells()), Mark.O)
    return board


def gomocup_board(board: Board) -> GomocupBoard:
    """Return `board` as check_forbid takes it."""
    code = {None: 0, Mark.X: 1, Mark.O: 2}
    return [[code[board.cells[row * 15 + col]] for col in range(15)] for row in range(15)]


class Rapfi:
    """Rapfi as its own process, asked for black's forbidden cells of a position."""

    def __init__(self, command: Path) -> None:
        self.process = subprocess.Popen(
            [str(command)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        if self.process.stdin is None or self.process.stdout is None:
            raise RuntimeError("the brain's pipes did not open")
        self.to_brain, self.from_brain = self.process.stdin, self.process.stdout
        self._send("START 15", "INFO rule 4")
        self._reply("OK")

    def _send(self, *lines: str) -> None:
        self.to_brain.write("".join(f"{line}\n" for line in lines))
        self.to_brain.flush()

    def _reply(self, start: str) -> str:
        while not (line := self.from_brain.readline()).startswith(start):
            if not line:
                raise RuntimeError("Rapfi closed its output")
        return line.strip()

    def forbidden(self, board: Board) -> set[int]:
        """Return black's forbidden cells as Rapfi lists them (`FORBID 0707.`: column, row)."""
        black = [cell for cell, mark in enumerate(board.cells) if mark is Mark.X]
        white = [cell for cell, mark in enumerate(board.cells) if mark is Mark.O]
        # As moves: black, white, black, ... (the positions have black to move).
        order = [cell for pair in zip(black, white, strict=True) for cell in pair]
        stones = [f"{cell % 15},{cell // 15},{1 + index % 2}" for index, cell in enumerate(order)]
        self._send("YXBOARD", *stones, "DONE", "YXSHOWFORBID")
        listed = self._reply("FORBID").removeprefix("FORBID ").rstrip(".")
        return {
            int(listed[at + 2 : at + 4]) * 15 + int(listed[at : at + 2])
            for at in range(0, len(listed), 4)
        }

    def close(self) -> None:
        self._send("END")
        self.process.wait(timeout=10)


def compare(
    judge: Callable[[Board], set[int]], positions: int, seed: int, *, alternate: bool = False
) -> dict[str, object]:
    """Judge every empty cell of `positions` seeded positions both ways; return the counts."""
    rng = random.Random(seed)
    cells = ours_only = theirs_only = both = 0
    disagreements: list[str] = []
    for _ in range(positions):
        board = crowded_position(rng, alternate=alternate)
        ours = set(forbidden_cells(board))
        theirs = judge(board)
        cells += len(board.empty_cells())
        both += len(ours & theirs)
        ours_only += len(ours - theirs)
        theirs_only += len(theirs - ours)
        if ours != theirs and len(disagreements) < 5:
            disagreements.append(
                f"{board.to_text()} ours only {sorted(ours - theirs)} theirs only "
                f"{sorted(theirs - ours)}"
            )
    return {
        "positions": positions,
        "cells judged": cells,
        "fouls found by both": both,
        "fouls found only by service.game.renju": ours_only,
        "fouls found only by the other judge": theirs_only,
        "agreement": round(1 - (ours_only + theirs_only) / cells, 6),
        "first disagreements": disagreements,
    }


def main() -> None:
    """Compare and print the counts as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check_forbid", type=Path, help="GomocupJudge's client/check_forbid.py")
    parser.add_argument("--rapfi", type=Path, help="a Rapfi brain, to compare with it too")
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    arguments = parser.parse_args()
    check_forbid = load_check_forbid(arguments.check_forbid)

    def gomocup_judge(board: Board) -> set[int]:
        grid = gomocup_board(board)
        return {cell for cell in board.empty_cells() if check_forbid(grid, cell // 15, cell % 15)}

    found = {"check_forbid": compare(gomocup_judge, arguments.positions, arguments.seed)}
    if arguments.rapfi:
        rapfi = Rapfi(arguments.rapfi)
        try:
            found["check_forbid, game positions"] = compare(
                gomocup_judge, arguments.positions, arguments.seed, alternate=True
            )
            found["Rapfi YXSHOWFORBID, game positions"] = compare(
                rapfi.forbidden, arguments.positions, arguments.seed, alternate=True
            )
        finally:
            rapfi.close()
    print(json.dumps(found, indent=2))


if __name__ == "__main__":
    main()

"""`python -m benchmarks.brain`: the search as a Gomocup brain, so that one revision of the
engine can play another (or any Gomocup manager can drive it) through `benchmarks.gomocup`.

It speaks the part of the protocol (https://plastovicka.github.io/protocl2en.htm) that
`benchmarks.gomocup` and Gomocup's managers use: START, RECTSTART, INFO (timeout_turn and
rule: 0 freestyle, 1 standard, 4 renju, 9 caro), BEGIN, TURN, BOARD ... DONE, RESTART, ABOUT
and END. Each move is `service.game.search.search` of the position so far with the turn's
time, as `benchmarks.gomocup` runs the service's side: X is the player who moved first, and
under renju black never plays a forbidden cell. The `service` package it plays is the one
in its working directory, so a brain of an earlier revision is a git worktree of it:

    git worktree add /tmp/before HEAD~1
    printf '#!/bin/sh\\ncd /tmp/before && exec %s -m benchmarks.brain\\n' "$(which python)" \\
        > /tmp/brain-before && chmod +x /tmp/brain-before
    python -m benchmarks.gomocup /tmp/brain-before --games 20 --variant standard
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace
from typing import TextIO

from benchmarks.gomocup import search_as_served
from service.game.board import Board, Mark
from service.game.rules import Rules, Variant
from service.game.warmup import prepare

#: What the brain plays until told otherwise: 15x15 freestyle, 5 s a move (the protocol's).
DEFAULT_RULES = Rules(15, 15, 5)
DEFAULT_TURN_MS = 5000
#: Below the turn's time (counted from the command's arrival, the position's setting up
#: included), what the brain keeps for writing its answer.
MARGIN_MS = 5
VARIANTS = {variant.gomocup_rule: variant for variant in Variant}


@dataclass
class Match:
    """What the manager has told the brain: the board, the rule, the time, the moves so far
    (each a cell and whether it is the brain's own)."""

    rules: Rules = DEFAULT_RULES
    turn_ms: int = DEFAULT_TURN_MS
    moves: list[tuple[int, bool]] = field(default_factory=list)

    def reply(self, received: float) -> int:
        """Return the brain's move in the position so far, and record it, within the turn's
        time from `received` (a `time.perf_counter` reading)."""
        board, mover = Board.empty(self.rules), Mark.X
        for cell, _own in self.moves:
            board, mover = board.play(cell, mover), mover.opponent
        seconds = max((self.turn_ms - MARGIN_MS) / 1000 - (time.perf_counter() - received), 0.01)
        cell = search_as_served(board, mover, seconds).move
        self.moves.append((cell, True))
        return cell

    def cell(self, text: str) -> int:
        """Return the cell a protocol's `x,y` names (x the column)."""
        col, row = (int(part) for part in text.split(",")[:2])
        return row * self.rules.cols + col

    def coordinates(self, cell: int) -> str:
        """Return a cell as the protocol writes it, `x,y`."""
        row, col = divmod(cell, self.rules.cols)
        return f"{col},{row}"


def serve(lines: TextIO, out: TextIO) -> None:  # noqa: PLR0912  # one branch per command
    """Answer the manager's commands read from `lines` until END."""
    match = Match()

    def say(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    board_lines: list[str] | None = None
    for raw in lines:
        received = time.perf_counter()
        line = raw.strip()
        if board_lines is not None:
            if line.upper() == "DONE":
                match.moves = [
                    (match.cell(entry), entry.split(",")[2] == "1") for entry in board_lines
                ]
                board_lines = None
                say(match.coordinates(match.reply(received)))
            else:
                board_lines.append(line)
            continue
        command, _, argument = line.partition(" ")
        command = command.upper()
        if command in {"START", "RECTSTART"}:
            sizes = [int(part) for part in argument.replace(",", " ").split()]
            cols, rows = sizes[0], sizes[-1]
            if not (5 <= rows <= 20 and 5 <= cols <= 20):
                say("ERROR bestmove plays boards from 5x5 to 20x20")
                continue
            match = Match(rules=replace(match.rules, rows=rows, cols=cols), turn_ms=match.turn_ms)
            say("OK")
        elif command == "RESTART":
            match.moves = []
            say("OK")
        elif command == "INFO":
            key, _, value = argument.partition(" ")
            if key == "timeout_turn" and int(value) > 0:
                match.turn_ms = int(value)
            elif key == "rule" and int(value) in VARIANTS:
                match.rules = replace(match.rules, variant=VARIANTS[int(value)])
        elif command == "BEGIN":
            say(match.coordinates(match.reply(received)))
        elif command == "TURN":
            match.moves.append((match.cell(argument), False))
            say(match.coordinates(match.reply(received)))
        elif command == "BOARD":
            board_lines = []
        elif command == "ABOUT":
            say('name="bestmove", author="the bestmove engineers", country="-"')
        elif command == "END":
            return
        elif command:
            say(f"UNKNOWN {command}")


def main() -> None:
    """Load the compiled search, then serve the protocol on standard input and output."""
    prepare()
    serve(sys.stdin, sys.stdout)


if __name__ == "__main__":
    main()

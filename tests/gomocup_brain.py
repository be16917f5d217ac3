"""A minimal Gomocup brain for the protocol driver's tests: it plays the first empty cell
in reading order (or, with `--garbage`, answers nonsense; with `--expect-rule N`, answers
nonsense unless told `INFO rule N`, and with `--expect-timeout-turn MS` unless told `INFO
timeout_turn MS`; with `--taken`, answers a move with the cell just played, which is
taken; with `--busy-once`, drops its first TURN and reads the move as a command of its
own, as Rapfi does when a TURN comes while it winds up its search, or with
`--silent-once` drops both and says nothing; with `--eval`, reports
an evaluation as Rapfi does: the sum of col + row + 1 over the stones it was given as its
own; with `--log-starts FILE`, adds a line to FILE when it starts). It knows RESTART. Run
as its own process."""

from __future__ import annotations

import sys


def say(line: str) -> None:
    """Send a line to the manager at once: it waits for it."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def place(line: str, taken: set[tuple[int, int]], own: set[tuple[int, int]]) -> None:
    """Place a stone of a BOARD line (`col,row,who`): among its own if `who` is 1."""
    col, row, who = (int(part) for part in line.split(","))
    taken.add((col, row))
    if who == 1:
        own.add((col, row))


# One loop over the protocol's commands, a branch each, as a brain's reads.
def main() -> None:  # noqa: PLR0912, PLR0915
    """Answer the manager's commands on standard input until END."""
    garbage = "--garbage" in sys.argv
    plays_on_taken = "--taken" in sys.argv
    busy = "--busy-once" in sys.argv  # the first TURN comes while it still thinks
    silent = "--silent-once" in sys.argv  # and its move too
    evaluates = "--eval" in sys.argv
    # What the manager must tell it (`INFO key value`), by the flags given.
    expected = {
        key: sys.argv[sys.argv.index(flag) + 1]
        for key, flag in (("rule", "--expect-rule"), ("timeout_turn", "--expect-timeout-turn"))
        if flag in sys.argv
    }
    if "--log-starts" in sys.argv:
        with open(sys.argv[sys.argv.index("--log-starts") + 1], "a", encoding="utf-8") as log:
            log.write("started\n")
    width = height = 0
    taken: set[tuple[int, int]] = set()
    own: set[tuple[int, int]] = set()  # the stones a BOARD gave it as its own

    def move(last: tuple[int, int] | None = None) -> None:
        if garbage:
            say("MESSAGE thinking\r\nsomewhere")
            return
        if evaluates:
            value = sum(col + row + 1 for col, row in own)
            say(f"MESSAGE Speed 12K | Eval {value} | Time 1ms")
        if plays_on_taken and last is not None:
            say(f"{last[0]},{last[1]}")
            return
        for row in range(height):
            for col in range(width):
                if (col, row) not in taken:
                    taken.add((col, row))
                    say("MESSAGE depth=1 NPS=12k")  # a note as Wine sends it, with its speed
                    say(f"{col},{row}")
                    return

    reading_board = False
    for raw in sys.stdin:
        line = raw.strip()
        command = line.split(" ", 1)[0].upper()
        if reading_board:
            if command == "DONE":
                reading_board = False
                move()
            else:
                place(line, taken, own)
        elif command in ("START", "RECTSTART"):
            sizes = line.split(" ", 1)[1].split(",")
            width, height = int(sizes[0]), int(sizes[-1])
            taken.clear()
            say("OK")
        elif command == "RESTART":  # another game: the board empty, as it was started
            taken, own = set(), set()
            say("OK")
        elif command == "BOARD":  # the whole position, whatever came before
            taken, own = set(), set()
            reading_board = True
        elif command == "TURN" and busy:
            busy = False
            say(f"ERROR Unknown command: {line.split(' ', 1)[1]}")
        elif command == "TURN" and silent:
            silent = False
        elif command == "TURN":
            col, row = (int(part) for part in line.split(" ", 1)[1].split(","))
            taken.add((col, row))
            move(last=(col, row))
        elif command == "BEGIN":
            move()
        elif command == "END":
            return
        elif command == "INFO":
            key, value = [*line.split(" "), "", ""][1:3]
            if key in expected and value != expected[key]:
                garbage = True
        else:
            say(f"UNKNOWN {line}")


if __name__ == "__main__":
    main()

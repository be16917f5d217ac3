"""What the tests share: boards drawn the way people do, one way to ask for a move, a metric
read from a scrape, waiting on an event rather than for a while, and the tools they need.

Test modules import from here (and from the judges: reference, family_reference,
search_reference, strategies), never from one another.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import pytest
from flask import Flask
from flask.testing import FlaskClient
from packaging.markers import Marker

from scripts.servers import RunningServer
from service.api.admission import Release
from service.game.board import Board
from service.game.rules import Rules
from tests import search_reference as brute
from tests.family_reference import Game, move_results, other

#: The rules every answer for a 3x3 board without `rules` names: today's game.
CLASSIC_RULES = {"rows": 3, "cols": 3, "k": 3, "misere": False, "variant": "freestyle"}

#: 15x15, five in a row, one X in the centre: a position only a search answers.
GOMOKU_OPENING = "." * 112 + "X" + "." * 112

#: 6x7, five in a row, X to move: the shortest run of fours wins in seven plies, but 18,
#: which is no four, wins in five (tests/search_reference.py checks both).
FOURS_IN_SEVEN = "..X....OOOX...XXO....OOXXXO.OXXO..OX..OXXO"

#: The browser the page and the TypeScript client are driven in.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
#: Chromium in a closed network: no background calls home, nothing that needs a display.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

#: Builds a service around the session's engine: `make_service(settings, engine=...)`.
ServiceFactory = Callable[..., Flask]

#: Starts `python -m service` on the session's tables: `serve(extra_env, ...)`.
ServerStarter = Callable[..., RunningServer]


def reference_game(rules: Rules) -> Game:
    """Return the independent reference's game for the service's rules."""
    variant = rules.variant
    return Game(
        rules.rows,
        rules.cols,
        rules.k,
        rules.misere,
        exact=variant.exact_length,
        caro=variant.closed_ends_block,
    )


def reference_scores(game: Game, text: str, mover: str) -> dict[int, int]:
    """Return every move's exact score by the independent reference's exhaustive play, in
    the tables' convention (a win in p plies: cells + 1 - p)."""
    top = game.rows * game.cols + 1
    return {
        move: {1: top - plies, 0: 0, -1: plies - top}[result]
        for move, (result, plies) in move_results(game, text, mover).items()
    }


#: Up to this many empty cells, a proven score is checked against exhaustive play.
EXHAUSTIVE_EMPTY_CELLS = 8


def assert_proven_move_holds(rules: Rules, text: str, mover: str, move: int, score: int) -> None:
    """Hold a search's proven claim that `move` scores `score` to the independent brute
    force: exhaustive play with few cells empty; beyond, exact to the ply for wins in one,
    three and five, a four for longer runs, for a loss in two a line the opponent then
    completes, and under misère a loss at once for a move that completes its own line."""
    game = reference_game(rules)
    if len(brute.empties(text)) <= EXHAUSTIVE_EMPTY_CELLS:
        assert reference_scores(game, text, mover)[move] == score, (text, mover, move)
        return
    plies = rules.max_score - abs(score)
    if rules.misere:
        # Beyond the exact search, misère proves only a move that completes its own line.
        assert (score, brute.completes(game, text, move, mover)) == (1 - rules.max_score, True)
        return
    if score < 0:
        assert plies == 2, (text, mover, move, score)
        after = brute.placed(text, move, mover)
        assert brute.wins_at_once(game, after, other(mover)), (text, mover, move)
        return
    assert score > 0, (text, mover, move, score)
    assert brute.completes(game, text, move, mover) == (plies == 1), (text, mover, move)
    if plies == 3:
        assert brute.wins_in_three(game, text, mover, move), (text, mover, move)
    elif plies == 5:
        assert brute.move_wins_within(game, text, mover, move, 5), (text, mover, move)
        assert not brute.wins_in_three(game, text, mover, move), (text, mover, move)
    elif plies > 5:
        assert_makes_a_four(rules, text, mover, move)


def assert_makes_a_four(rules: Rules, text: str, mover: str, move: int) -> None:
    """Assert, by brute force, that `move` leaves the mover a cell that completes a line:
    the first move of a run of fours."""
    after = brute.placed(text, move, mover)
    assert brute.wins_at_once(reference_game(rules), after, mover), (text, mover, move)


def gomoku_board(marks: dict[tuple[int, int], str], rules: Rules | None = None) -> Board:
    """Return a 15x15 board (five in a row unless `rules` say otherwise) with these marks,
    keyed by (row, column)."""
    cells = ["."] * 225
    for (row, col), mark in marks.items():
        cells[row * 15 + col] = mark
    return Board.from_text("".join(cells), rules or Rules(15, 15, 5))


def board(*rows: str) -> Board:
    """Draw a board as three rows of three characters: X, O, or '.' for an empty cell."""
    assert len(rows) == 3, rows
    assert all(len(row) == 3 for row in rows), rows
    return Board.from_text("".join(rows))


def post_move(client: FlaskClient, body: Any, path: str = "/v1/move") -> dict[str, Any]:
    """POST `body` as JSON (to /v1/move unless `path` says otherwise); return the answer,
    failing the test with the problem if it is not a 200."""
    response = client.post(path, json=body)
    assert response.status_code == 200, response.get_json()
    answer: dict[str, Any] = response.get_json()
    return answer


def without_time(answer: Any) -> Any:
    """An answer less the one field that differs from run to run: a search's time."""
    if isinstance(answer, dict) and isinstance(answer.get("search"), dict):
        return {**answer, "search": {**answer["search"], "time_ms": "varies"}}
    return answer


def metric(text: str, name: str, **labels: str) -> float:
    """Return one sample's value from Prometheus text, or 0 when it is absent."""
    wanted = ",".join(f'{key}="{value}"' for key, value in sorted(labels.items()))
    for line in text.splitlines():
        if line.startswith(f"{name}{{") and _labels_of(line) == wanted:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def _labels_of(line: str) -> str:
    inside = line[line.index("{") + 1 : line.index("}")]
    return ",".join(sorted(inside.split(","))) if inside else ""


def wait_for(condition: Callable[[], bool], what: str, within: float = 10) -> None:
    """Return as soon as `condition()` holds; fail the test, naming `what`, after `within` s."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {within} s")
        time.sleep(0.01)  # a poll of the kernel's or the server's own state


#: For the tests that watch the kernel's own tables: Linux has them in /proc, macOS has not.
needs_proc = pytest.mark.skipif(
    not Path("/proc/net/tcp").exists(),
    reason="watches a connection in Linux's /proc/net/tcp, which this system has not",
)


def accepted(connection: socket.socket) -> bool:
    """Return whether a server process has accepted a connection: its end of it has a socket
    file (/proc/net/tcp shows inode 0 while the connection waits in the listen queue)."""
    ours = f"{_hex_port(connection.getpeername()[1])} {_hex_port(connection.getsockname()[1])}"
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if f"{fields[1][-4:]} {fields[2][-4:]}" == ours:
            return fields[9] != "0"
    return False


def never_served(port: int) -> bool:
    """Return whether a new request gets no answer: refused, reset, or left unanswered."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as late:
            late.sendall(b"GET /healthz HTTP/1.1\r\nHost: bestmove\r\n\r\n")
            return late.recv(100) == b""
    except OSError:
        return True


def _hex_port(port: int) -> str:
    return f"{port:04X}"


def held_until_later(slot_file: Path) -> bool:
    """Return whether a search slot's file says its holder's budget ends in the future (a
    holder writes it there on taking the slot; the clock is the system's monotonic one)."""
    try:
        return float(slot_file.read_bytes()) > time.monotonic()
    except (OSError, ValueError):
        return False  # not written yet


def search(pattern: str, text: str) -> re.Match[str]:
    """Return the first match of `pattern` in `text`; raise ValueError, quoting it, if none."""
    found = re.search(pattern, text)
    if found is None:
        raise ValueError(f"no {pattern!r} in {text[:500]!r}")
    return found


def locked_versions(lock: str) -> dict[str, str]:
    """Return the name and exact version of every package a lock in requirements/ pins for
    this Python (a lock may pin another version of a package for another Python)."""
    text = (Path(__file__).resolve().parent.parent / "requirements" / lock).read_text()
    pins = re.findall(
        r"^([a-z0-9][a-z0-9._-]*)==([^\s;]+)(?: ; ([^\\\n]+))?", text, flags=re.MULTILINE
    )
    return {
        name: version
        for name, version, marker in pins
        if not marker or Marker(marker.strip()).evaluate()
    }


def missing_tool(what: str, how_ci_gets_it: str, how_to_install: str) -> NoReturn:
    """Fail under CI, which must have every tool; elsewhere skip, saying how to get it."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must have {what}: {how_ci_gets_it}")
    pytest.skip(f"{what} is missing ({how_to_install})")


def run_short_script(module: str, *arguments: str, tables_dir: Path) -> str:
    """Run one of the repository's load scripts in its short form on the session's tables;
    return what it printed (shown with -s, or on failure)."""
    result = subprocess.run(
        [sys.executable, "-m", module, *arguments, "--short", "--tables-dir", str(tables_dir)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
        timeout=300,
        check=False,
    )
    print(result.stdout)  # noqa: T201 -- the figures
    if result.stderr.strip():
        print(result.stderr[-3000:])  # noqa: T201 -- the reason, when it failed
    return result.stdout


class Heard:
    """A search listener that keeps what it hears."""

    def __init__(self) -> None:
        self.searches: list[tuple[str, float, int, int]] = []
        self.refusals: list[str] = []

    def searched(self, method: str, seconds: float, depth: int, nodes: int) -> None:
        self.searches.append((method, seconds, depth, nodes))

    def refused(self, asked: str) -> None:
        self.refusals.append(asked)


class TakenSlots:
    """Search slots that are all taken, as under load: every search is refused, and the
    soonest slot's search has 7.2 s of its budget left."""

    def try_take(self, seconds: float) -> Release | None:
        return None

    def free_in(self) -> float:
        return 7.2

    def free(self) -> int:
        return 0

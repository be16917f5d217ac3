"""`python -m benchmarks.gomocup BRAIN`: the search against any engine that speaks the
Gomocup protocol, driven as a separate process over its standard input and output.

The protocol (https://plastovicka.github.io/protocl2en.htm) is how Gomocup's manager talks
to its brains: `START 15`, `INFO timeout_turn 250`, then `BOARD` (the position so far,
ending `DONE`; the brain answers its move) and `TURN x,y` (the opponent's move; the brain
answers its own as `x,y`, x the column). Lines the brain sends starting MESSAGE, DEBUG,
SUGGEST or UNKNOWN are notes, not answers. Nothing of the brain is linked or shipped:
bring your own (Gomocup publishes many; dhbloo/rapfi, the 2024 champion, builds on Linux
with CMake).

Both sides get the same time a move, unless `--brain-budget-ms` gives the brain another
(time odds: how much more time the search needs to score what it is asked). Each game
starts from a different opening, three stones (X, O, X) within two cells of the centre
chosen by a seeded generator (deterministic engines would otherwise play one game over and
over), each opening played twice with the colours swapped, and is played to the end; the
service's own board follows every move and decides it: five or more in a row wins
(Gomocup's rule 0, freestyle), or with `--variant standard` exactly five (rule 1: the brain
is told, and an overline does not win), or with `--variant renju` (rule 4) renju's: black's
foul loses, judged by `service.game.renju` before each black move; the search is never to
play one (it gets black's forbidden cells, as the service does, and a foul of its own stops
the benchmark). A brain that plays on a taken cell loses that game, as Gomocup's judge
rules (Wine does, rarely). Beside the results: the search's nodes a second, and the brain's
where it reports them (`MESSAGE ... NPS=` as Wine sends them, `MESSAGE Speed ...` as Rapfi
does), medians over the moves. With `--record FILE` each game is also written to FILE as
a line of JSON, its moves in the order played, for `benchmarks.judge` to replay.

    python -m benchmarks.gomocup ./pbrain-rapfi --games 4 --budget-ms 250
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import queue
import random
import re
import statistics
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from types import TracebackType

from service.api.app_settings import cores
from service.game.board import Board, GameStatus, Mark
from service.game.renju import forbidden_cells, foul
from service.game.rules import Rules, Variant
from service.game.search import SearchResult, search
from service.game.warmup import prepare

GOMOKU = Rules(15, 15, 5)


def add_variant_option(parser: argparse.ArgumentParser) -> None:
    """Add `--variant` to a benchmark's command line: which lines win on its 15x15 board
    (`gomoku_of` reads it)."""
    parser.add_argument(
        "--variant",
        choices=[variant.value for variant in Variant],
        default=Variant.FREESTYLE.value,
        help="which lines win: five or more (freestyle), exactly five (standard), renju's, caro's",
    )


def gomoku_of(arguments: argparse.Namespace) -> Rules:
    """Return the benchmark's 15x15 five in a row under the `--variant` given."""
    return replace(GOMOKU, variant=Variant(arguments.variant))


#: How long a brain's answer to START is waited for: it loads its engine first (this
#: project's brain, the compiled search from its cache: a second or more on a busy machine).
STARTUP_PATIENCE_S = 30.0
#: Lines a brain may send at any time that are not an answer.
NOTES = ("MESSAGE", "DEBUG", "SUGGEST", "UNKNOWN")
#: A brain's report of its speed in a note, as Wine sends it (`NPS=950k`) or Rapfi
#: (`Speed 1088K | Depth ...`).
SPEED = re.compile(r"\b(?:NPS=|Speed )(\d+(?:\.\d+)?)(k?)", re.IGNORECASE)
#: A brain's evaluation of the position it was given, from its own side, as Rapfi sends
#: it: `Eval -112`, or `Eval +M13` for a win in 13 plies (`-M13` a loss).
EVALUATION = re.compile(r"\bEval ([+-]?M?\d+)")


class BrainError(Exception):
    """Raised when a brain answers something the protocol does not allow, or nothing."""


class BrainSilent(BrainError):
    """Raised when a brain sends no answer within its patience (`Brain.patience`)."""


class Brain:
    """A Gomocup brain in its own process, told of each move and asked for its own."""

    def __init__(self, command: list[str], rules: Rules, budget_ms: int) -> None:
        self.rules = rules
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=Path(command[0]).resolve().parent,
        )
        if self.process.stdin is None or self.process.stdout is None:
            raise BrainError("the brain's pipes did not open")
        self.to_brain, self.from_brain = self.process.stdin, self.process.stdout
        #: The brain's lines as they come (None when its output closes), read by a thread
        #: of their own, so that a brain that says nothing is waited for only so long.
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        #: How long an answer is waited for: far beyond any move within the time.
        self.patience = max(1.0, 20 * budget_ms / 1000)
        #: The nodes a second the brain reported in its notes, in order.
        self.speeds: list[float] = []
        #: The evaluations the brain reported in its notes (`EVALUATION`), in order.
        self.evaluations: list[str] = []
        size = f"{rules.cols}" if rules.rows == rules.cols else f"{rules.cols},{rules.rows}"
        command_name = "START" if rules.rows == rules.cols else "RECTSTART"
        self._send(f"{command_name} {size}")
        if self._answer(STARTUP_PATIENCE_S) != "OK":
            raise BrainError(f"the brain cannot play {rules.describe()}")
        rule = rules.variant.gomocup_rule
        for key, value in (("timeout_turn", budget_ms), ("timeout_match", 0), ("rule", rule)):
            self._send(f"INFO {key} {value}")

    def __enter__(self) -> Brain:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def restart(self) -> None:
        """Start another game with the brain as it is (RESTART): the board empty, the rules
        and the time as they were; its notes' speeds and evaluations counted from then on."""
        self._send("RESTART")
        if self._answer(STARTUP_PATIENCE_S) != "OK":
            raise BrainError("the brain cannot start another game (RESTART)")
        self.speeds.clear()
        self.evaluations.clear()

    def board(self, moves: list[tuple[int, bool]]) -> int:
        """Give the brain a position (each move: cell, whether it is the brain's); its move."""
        self._send("BOARD")
        for cell, own in moves:
            row, col = divmod(cell, self.rules.cols)
            self._send(f"{col},{row},{1 if own else 2}")
        self._send("DONE")
        return self._move()

    def turn(self, cell: int) -> int:
        """Tell the brain the opponent played `cell`; return the brain's answer. Rapfi drops
        a command that comes while it still winds up its last search, and then reads the
        move as a command of its own (`ERROR Unknown command: 7,7`; it is idle by then), or
        drops that too and says nothing: either way the same TURN is sent again, once."""
        row, col = divmod(cell, self.rules.cols)
        self._send(f"TURN {col},{row}")
        try:
            answer = self._answer()
        except BrainSilent:
            answer = f"ERROR Unknown command: {col},{row}"
        if answer == f"ERROR Unknown command: {col},{row}":
            self._send(f"TURN {col},{row}")
            answer = self._answer()
        return self._parsed(answer)

    def close(self) -> None:
        """Tell the brain to end, make sure it does, and close the pipes."""
        try:
            if self.process.poll() is None:
                self._send("END")
                self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        finally:
            for pipe in (self.to_brain, self.from_brain):
                with contextlib.suppress(OSError):
                    pipe.close()

    def _send(self, line: str) -> None:
        self.to_brain.write(line + "\r\n")
        self.to_brain.flush()

    def _read(self) -> None:
        with contextlib.suppress(OSError, ValueError):  # its output closed under it
            for line in self.from_brain:
                self.lines.put(line)
        self.lines.put(None)

    def _answer(self, patience: float | None = None) -> str:
        """Return the brain's next line that is not a note, keeping its notes' speeds and
        evaluations; wait at most `patience` seconds (the brain's own by default)."""
        waited = self.patience if patience is None else patience
        while True:
            try:
                line = self.lines.get(timeout=waited)
            except queue.Empty:
                raise BrainSilent(f"no answer in {waited:.0f} s") from None
            if line is None:
                raise BrainError("the brain closed its output")
            line = line.strip()
            if line and not line.upper().startswith(NOTES):
                return line
            evaluated = EVALUATION.search(line)
            if evaluated and "[Pondering]" not in line:  # Rapfi's search of another position
                self.evaluations.append(evaluated.group(1))
            reported = SPEED.search(line)
            if reported and float(reported.group(1)) > 0:
                thousands = reported.group(2).lower() == "k"
                self.speeds.append(float(reported.group(1)) * (1000 if thousands else 1))

    def _move(self) -> int:
        return self._parsed(self._answer())

    def _parsed(self, answer: str) -> int:
        try:
            col, row = (int(part) for part in answer.split(","))
        except ValueError as error:
            raise BrainError(f"not a move: {answer!r}") from error
        if not (0 <= row < self.rules.rows and 0 <= col < self.rules.cols):
            raise BrainError(f"off the board: {answer!r}")
        return row * self.rules.cols + col


@dataclass(frozen=True)
class Game:
    """One finished game, from the search's side."""

    seed: int
    search_first: bool
    result: str
    plies: int
    longest_search_seconds: float
    longest_brain_seconds: float
    #: Medians over the game's moves; the brain's None when it reports no speed.
    search_nodes_per_second: float
    brain_nodes_per_second: float | None
    #: Under renju, the brain's foul that ended the game ("double_three", ...), if any.
    brain_foul: str | None = None
    #: The brain's illegal move that lost it the game (a taken cell), as Gomocup judges one.
    brain_illegal: str | None = None
    #: The cells in the order played, the opening's first: the game to replay or study.
    moves: tuple[int, ...] = ()


#: What a game's result is worth to the search.
SCORES = {"win": 1.0, "draw": 0.5, "loss": 0.0}


@dataclass(frozen=True)
class PairedShare:
    """The search's share over openings each played both ways: its mean over the openings,
    the standard error of that mean (an opening's two games are one sample: what the
    opening gives the first player falls out), and the number of openings."""

    share: float
    standard_error: float
    openings: int

    @property
    def elo(self) -> float:
        """Return the rating difference the share means, where it means one (not 0 or 1)."""
        if not 0 < self.share < 1:
            return math.nan
        return -400 * math.log10(1 / self.share - 1)

    def __str__(self) -> str:
        elo = "no finite Elo (a sweep)" if math.isnan(self.elo) else f"{self.elo:+.0f} Elo"
        return (
            f"by opening ({self.openings}, each both ways): {self.share:.1%} ± "
            f"{self.standard_error:.1%}, {elo}"
        )


def record(game: Game, rules: Rules, path: Path) -> None:
    """Add a game to the file of recorded games at `path`: a line of JSON, with its variant
    (the benchmark plays 15x15 five in a row, so the variant is all the rules it keeps)."""
    if rules != replace(GOMOKU, variant=rules.variant):
        raise ValueError(f"only games on the benchmark's board are recorded, not {rules}")
    with path.open("a", encoding="utf-8") as games:
        games.write(json.dumps({"variant": rules.variant.value, **asdict(game)}) + "\n")


def recorded(path: Path) -> list[tuple[Rules, Game]]:
    """Return the games recorded at `path` (`record`), each with the rules it was played by."""
    games = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = json.loads(line)
        rules = replace(GOMOKU, variant=Variant(fields.pop("variant")))
        games.append((rules, Game(**{**fields, "moves": tuple(fields["moves"])})))
    return games


def search_as_served(board: Board, mover: Mark, seconds: float) -> SearchResult:
    """Return the search's answer as an idle server gives it (SEARCH_THREADS: on every core
    it may use), black's forbidden cells barred under renju, as the service bars them."""
    black_moves = board.rules.variant.has_fouls and mover is Mark.X
    barred = frozenset(forbidden_cells(board)) if black_moves else frozenset()
    return search(board, mover, seconds, barred=barred, threads=cores())


def opening(rules: Rules, seed: int) -> list[int]:
    """Return three seeded cells within two of the centre: X's, O's, then X's again."""
    centre_row, centre_col = rules.rows // 2, rules.cols // 2
    near = [
        row * rules.cols + col
        for row in range(centre_row - 2, centre_row + 3)
        for col in range(centre_col - 2, centre_col + 3)
    ]
    return random.Random(seed).sample(near, 3)


def play(
    command: list[str],
    rules: Rules,
    seed: int,
    search_first: bool,
    budget_ms: int,
    *,
    brain_budget_ms: int | None = None,
) -> Game:
    """Play one game of the search against the brain; return how it ended for the search.

    The brain's time a move is the search's unless `brain_budget_ms` is given. The brain
    learns the position with BOARD the first time it is to move (the opening, and
    the search's first move if it came first), then each of the search's moves with TURN."""
    brain_ms = budget_ms if brain_budget_ms is None else brain_budget_ms
    with Brain(command, rules, brain_ms) as brain:
        return play_with(brain, rules, seed, search_first, budget_ms)


def play_with(brain: Brain, rules: Rules, seed: int, search_first: bool, budget_ms: int) -> Game:
    """Play one game of the search against a running brain with an empty board (just
    started, or restarted), as `play` does; leave it running."""
    ours = Mark.X if search_first else Mark.O
    board, mover = Board.empty(rules), Mark.X
    history: list[tuple[int, Mark]] = []
    brain_knows = False
    longest_search = longest_brain = 0.0
    speeds: list[float] = []
    fouls = rules.variant.has_fouls
    brain_foul = brain_illegal = None
    for cell in opening(rules, seed):
        history.append((cell, mover))
        board, mover = board.play(cell, mover), mover.opponent
    while not board.status().is_over and brain_foul is None and brain_illegal is None:
        black_moves = fouls and mover is Mark.X
        if mover is ours:
            found = search_as_served(board, mover, budget_ms / 1000)
            longest_search = max(longest_search, found.seconds)
            speeds.append(found.nodes / max(found.seconds, 1e-9))
            cell = found.move
        else:
            started = time.perf_counter()
            if brain_knows:
                cell = brain.turn(history[-1][0])  # the search's move, just played
            else:
                cell = brain.board([(played, mark is not ours) for played, mark in history])
                brain_knows = True
            longest_brain = max(longest_brain, time.perf_counter() - started)
            if board.cells[cell] is not None:
                brain_illegal = f"played on a taken cell, {cell}"
                break
        committed = foul(board, cell) if black_moves else None
        if committed is not None and mover is ours:
            raise AssertionError(f"the search played a foul, {committed.value}, on {cell}")
        if committed is not None:
            brain_foul = committed.value
        history.append((cell, mover))
        board, mover = board.play(cell, mover), mover.opponent
    brain_speeds = brain.speeds
    status = GameStatus.O_WON if brain_foul else board.status()
    won = GameStatus.X_WON if ours is Mark.X else GameStatus.O_WON
    result = "draw" if status is GameStatus.DRAW else "win" if status is won else "loss"
    if brain_illegal:
        result = "win"  # an illegal move loses the game (Gomocup's rule)
    plies = rules.cell_count - len(board.empty_cells())
    return Game(
        seed, search_first, result, plies, longest_search, longest_brain,
        statistics.median(speeds) if speeds else 0.0,
        statistics.median(brain_speeds) if brain_speeds else None, brain_foul, brain_illegal,
        tuple(cell for cell, _mark in history),
    )  # fmt: skip


def table(games: list[Game], name: str, budget_ms: int, brain_budget_ms: int | None = None) -> str:
    """Return a markdown table of wins, draws and losses by side, the search's share (a
    win 1, a draw 1/2) and both sides' nodes a second; the brain's time a move beside the
    search's where it differs."""
    time_a_move = f"{budget_ms} ms"
    if brain_budget_ms is not None and brain_budget_ms != budget_ms:
        time_a_move += f" (brain {brain_budget_ms} ms)"
    lines = [
        "| opponent | time a move | search moves | wins | draws | losses | longest search "
        "| longest brain move | share | search nodes/s | brain nodes/s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for first in (True, False):
        chosen = [game for game in games if game.search_first is first]
        if not chosen:
            continue
        counts = Counter(game.result for game in chosen)
        share = (counts["win"] + counts["draw"] / 2) / len(chosen)
        ours = statistics.median(game.search_nodes_per_second for game in chosen)
        theirs = [game.brain_nodes_per_second for game in chosen if game.brain_nodes_per_second]
        reported = f"{statistics.median(theirs):,.0f}" if theirs else "not reported"
        lines.append(
            f"| {name} | {time_a_move} | {'first' if first else 'second'} | {counts['win']} | "
            f"{counts['draw']} | {counts['loss']} | "
            f"{max(game.longest_search_seconds for game in chosen) * 1000:.0f} ms | "
            f"{max(game.longest_brain_seconds for game in chosen) * 1000:.0f} ms | "
            f"{share:.0%} | {ours:,.0f} | {reported} |"
        )
    return "\n".join(lines)


def paired_share(games: Iterable[Game]) -> PairedShare:
    """Return the search's share over the openings played both ways, by opening."""
    by_seed: dict[int, list[float]] = {}
    for game in games:
        by_seed.setdefault(game.seed, []).append(SCORES[game.result])
    shares = [sum(scores) / 2 for scores in by_seed.values() if len(scores) == 2]
    if len(shares) < 2:
        raise ValueError("a share by opening needs two openings played both ways")
    return PairedShare(
        statistics.mean(shares), statistics.stdev(shares) / math.sqrt(len(shares)), len(shares)
    )


def main() -> None:
    """Play the games and print each, then the table."""
    parser = argparse.ArgumentParser(description="The search against a Gomocup brain.")
    parser.add_argument("brain", nargs="+", help="the brain's command line")
    parser.add_argument("--games", type=int, default=10, help="openings, each played as both sides")
    parser.add_argument(
        "--budget-ms",
        type=int,
        default=250,
        help="the search's time a move (the brain's too, unless --brain-budget-ms)",
    )
    parser.add_argument(
        "--brain-budget-ms", type=int, default=None, help="the brain's time a move (time odds)"
    )
    parser.add_argument(
        "--first-seed", type=int, default=0, help="the first opening's seed (more games later)"
    )
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=None,
        help="these openings' seeds instead (benchmarks.openings chooses even ones)",
    )
    add_variant_option(parser)
    parser.add_argument(
        "--record", type=Path, default=None, help="add each game to this file (JSON lines)"
    )
    arguments = parser.parse_args()
    rules = gomoku_of(arguments)
    prepare()
    games = []
    seeds = arguments.seeds or range(arguments.first_seed, arguments.first_seed + arguments.games)
    for search_first in (True, False):
        for seed in seeds:
            finished = play(
                arguments.brain, rules, seed, search_first, arguments.budget_ms,
                brain_budget_ms=arguments.brain_budget_ms,
            )  # fmt: skip
            print(finished, flush=True)
            games.append(finished)
            if arguments.record is not None:
                record(finished, rules, arguments.record)
    name = Path(arguments.brain[0]).name
    print(table(games, name, arguments.budget_ms, arguments.brain_budget_ms))
    if len(set(seeds)) >= 2:  # a standard error needs two openings
        print(paired_share(games))


if __name__ == "__main__":
    main()

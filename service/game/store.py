"""Solved tables kept on disk, so that a process starts by mapping them rather than solving.

One file per game, a plain NumPy array named for the rules and the table format. A table
is written to a temporary file and renamed into place, so a reader never sees half of one;
it is opened read-only and memory-mapped, so every worker of a server shares one copy in
the page cache and only the pages a request touches are read. Preparing holds an exclusive
lock on the directory, so processes starting together (workers without preload, replicas
on a shared volume) solve each game once: the others wait, then open what it wrote.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TextIO

import numpy as np

from service.game.rules import FAMILY, Rules, Variant
from service.game.table import Scores, solve

#: Bumped whenever the layout or meaning of a table changes, so old files are never read.
TABLE_FORMAT = 1

#: Told of each table prepared: its rules and how many seconds the solve took.
Progress = Callable[[Rules, float], None]


class TableStore:
    """A directory of solved tables: opened when present, prepared when not."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, rules: Rules) -> Path:
        """Return where the table of a game lives."""
        kind = "misere" if rules.misere else "normal"
        # Freestyle tables keep the names they had before there were variants.
        variant = "" if rules.variant is Variant.FREESTYLE else f"-{rules.variant.value}"
        name = f"mnk-{rules.rows}x{rules.cols}-k{rules.k}-{kind}{variant}-v{TABLE_FORMAT}.npy"
        return self.directory / name

    def open(self, rules: Rules) -> Scores | None:
        """Return a game's table, mapped read-only, or None when it is missing or damaged."""
        path = self.path(rules)
        try:
            table = np.load(path, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError):
            return None
        if table.dtype != np.int8 or table.shape != (3**rules.cell_count,):
            return None
        found: Scores = table
        return found

    def prepare(self, rules: Rules) -> float:
        """Solve a game and write its table; return the seconds the solve took."""
        started = time.perf_counter()
        table = solve(rules)
        seconds = time.perf_counter() - started
        self.directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".npy.partial")
        try:
            with os.fdopen(handle, "wb") as output:
                np.save(output, table, allow_pickle=False)
            # Readable by every user: a server may run as another user than the one preparing.
            os.chmod(temporary, 0o644)
            os.replace(temporary, self.path(rules))
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return seconds

    def tables(
        self, games: Iterable[Rules], progress: Progress | None = None
    ) -> dict[Rules, Scores]:
        """Return every game's table, preparing (and reporting) those not on disk yet."""
        games = tuple(games)
        found = {rules: table for rules in games if (table := self.open(rules)) is not None}
        missing = [rules for rules in games if rules not in found]
        if missing:
            with self._locked(missing[0]):
                for rules in missing:
                    # Another process may have prepared it while this one waited for the lock.
                    table = self.open(rules)
                    if table is None:
                        seconds = self._prepare_or_explain(rules)
                        if progress is not None:
                            progress(rules, seconds)
                        table = self.open(rules)
                    if table is None:
                        raise OSError(
                            f"the table of {rules.describe()} cannot be read back from "
                            f"{self.path(rules)}"
                        )
                    found[rules] = table
        return {rules: found[rules] for rules in games}

    def _prepare_or_explain(self, rules: Rules) -> float:
        try:
            return self.prepare(rules)
        except OSError as error:
            raise self._cannot_prepare(rules, error) from error

    def _cannot_prepare(self, rules: Rules, error: OSError) -> OSError:
        return OSError(
            f"the table of {rules.describe()} is not in {self.directory}, and it "
            f"cannot be prepared there: {error}"
        )

    @contextlib.contextmanager
    def _locked(self, first_missing: Rules) -> Iterator[None]:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle = (self.directory / ".lock").open("a")
        except OSError as error:
            raise self._cannot_prepare(first_missing, error) from error
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def prepare_tables(
    directory: Path, games: Iterable[Rules] = FAMILY, log: TextIO = sys.stderr
) -> dict[Rules, Scores]:
    """Return every game's table from `directory`, preparing those missing, one line each."""

    def report(rules: Rules, seconds: float) -> None:
        log.write(f"bestmove: solved {rules.describe()} in {seconds:.1f} s, kept in {directory}\n")
        log.flush()

    return TableStore(directory).tables(games, progress=report)


def main(arguments: list[str]) -> int:
    """Prepare every game's table in the directory named by the one argument, saying so.

    The server does the same before it is ready, in its TABLES_DIR. The Docker image runs
    this with nothing but the game package copied in, so that its layer of tables is
    rebuilt only when the game package changes.
    """
    if len(arguments) != 1:
        sys.stderr.write("usage: python -m service.game.store DIRECTORY\n")
        return 2
    prepare_tables(Path(arguments[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

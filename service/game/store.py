"""Solved tables kept on disk, so that a process starts by mapping them rather than solving.

One file per game, a plain NumPy array named for the rules and the table format. A table
is written to a temporary file and renamed into place, so a reader never sees half of one;
it is opened read-only and memory-mapped, so every worker of a server shares one copy in
the page cache and only the pages a request touches are read.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from service.game.rules import Rules
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
        name = f"mnk-{rules.rows}x{rules.cols}-k{rules.k}-{kind}-v{TABLE_FORMAT}.npy"
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
        found = {}
        for rules in games:
            table = self.open(rules)
            if table is None:
                try:
                    seconds = self.prepare(rules)
                except OSError as error:
                    raise OSError(
                        f"the table of {rules.describe()} is not in {self.directory}, and it "
                        f"cannot be prepared there: {error}"
                    ) from error
                if progress is not None:
                    progress(rules, seconds)
                table = self.open(rules)
            if table is None:
                raise OSError(
                    f"the table of {rules.describe()} cannot be read back from {self.path(rules)}"
                )
            found[rules] = table
        return found

"""`python -m service.ops.tables`: prepare every game's solved table on disk, saying so.

The server does the same before it is ready: it opens the tables it finds and solves the
ones it does not (the first start of a fresh install, about 15 s), one log line
each. The Docker image runs this at build time, so a container starts with every table.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from service.game.rules import FAMILY, Rules
from service.game.store import TableStore
from service.game.table import Scores
from service.ops.settings import Settings, SettingsError


def open_tables(
    directory: Path, games: Iterable[Rules] = FAMILY, log: TextIO = sys.stderr
) -> dict[Rules, Scores]:
    """Return every game's table from `directory`, preparing those missing, one line each."""

    def report(rules: Rules, seconds: float) -> None:
        log.write(f"bestmove: solved {rules.describe()} in {seconds:.1f} s, kept in {directory}\n")
        log.flush()

    return TableStore(directory).tables(games, progress=report)


def main() -> int:
    """Prepare every table in the directory the settings name."""
    try:
        settings = Settings.from_environ(os.environ)
    except SettingsError as error:
        sys.exit(f"bestmove: {error}")
    if settings.tables_dir is not None:
        open_tables(settings.tables_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())

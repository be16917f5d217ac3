"""Search slots shared by every worker process of a server, as locked files.

Each slot is a file; a search holds an exclusive `flock` on one while it runs. The kernel
drops a lock when its holder closes the file or dies, so a crashed worker never keeps a
slot. Taking a slot never waits: all taken means the search is refused.
"""

from __future__ import annotations

import fcntl
import functools
import itertools
import os
from pathlib import Path

from service.api.admission import Release


class FileSlots:
    """`count` search slots, files in `directory`, shared by every process that opens them."""

    def __init__(self, directory: Path, count: int) -> None:
        self._paths = [directory / f"search-slot-{index}.lock" for index in range(count)]
        # Where each process starts looking, so that the first slot is not always tried first.
        self._start = itertools.cycle(range(count))

    def try_take(self) -> Release | None:
        """Lock a free slot's file without waiting; return how to unlock it, or None."""
        start = next(self._start)
        for path in self._paths[start:] + self._paths[:start]:
            # One open file a try: a lock belongs to an open file, so threads never share one.
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return functools.partial(os.close, fd)  # closing the file drops the lock
        return None

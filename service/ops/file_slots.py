"""Search slots shared by every worker process of a server, as locked files.

Each slot is a file; a search holds an exclusive `flock` on one while it runs, and writes
in it when its budget ends, so that a refused caller can be told when to come back. The
kernel drops a lock when its holder closes the file or dies, so a crashed worker never
keeps a slot. Taking a slot never waits: all taken means the search is refused.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import itertools
import os
import time
from collections.abc import Iterator
from pathlib import Path

from service.api.admission import Release


class FileSlots:
    """`count` search slots, files in `directory`, shared by every process that opens them."""

    def __init__(self, directory: Path, count: int) -> None:
        self._paths = [directory / f"search-slot-{index}.lock" for index in range(count)]
        # Where each process starts looking, so that the first slot is not always tried first.
        self._start = itertools.cycle(range(count))

    def try_take(self, seconds: float) -> Release | None:
        """Lock a free slot's file without waiting, for a search of at most `seconds`; return
        how to unlock it, or None."""
        start = next(self._start)
        for path in self._paths[start:] + self._paths[:start]:
            # One open file a try: a lock belongs to an open file, so threads never share one.
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            # On the system-wide monotonic clock, which every worker process reads alike,
            # written exactly (repr), so that no reader sees an end later than the holder's.
            os.pwrite(fd, f"{time.monotonic() + seconds!r:<32}".encode(), 0)
            return functools.partial(os.close, fd)  # closing the file drops the lock
        return None

    def free_in(self) -> float:
        """Return when the soonest taken slot's budget ends, by what its holder wrote; 0 if a
        slot is free or no holder's end can be read."""
        ends = []
        for written in self._holders():
            if written is None:
                return 0.0  # freed since the caller was refused
            with contextlib.suppress(ValueError):  # a holder still writing it
                ends.append(float(written))
        return max(0.0, min(ends) - time.monotonic()) if ends else 0.0

    def free(self) -> int:
        """Return how many slots' files no search holds locked now."""
        return sum(written is None for written in self._holders())

    def _holders(self) -> Iterator[bytes | None]:
        """Yield, slot by slot, what its holder wrote if a search holds it, else None."""
        for path in self._paths:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                # A shared lock is refused only while a search holds the exclusive one.
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                yield os.pread(fd, 64, 0)
            else:
                yield None
            finally:
                os.close(fd)

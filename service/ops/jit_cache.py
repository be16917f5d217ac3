"""Where numba keeps the compiled search, so that a read-only container starts without a
compiler run: a writable copy of the cache the image prepared at build time."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from service.ops.directories import WorkingDirectory


def writable(directory: Path) -> bool:
    """Return whether this process may write in a directory."""
    return os.access(directory, os.W_OK)


def prepare_jit_cache(
    prepared: Path | None, *, may_write: Callable[[Path], bool] = writable
) -> WorkingDirectory | None:
    """Return a cache numba can use: the one named (NUMBA_CACHE_DIR) if writable, else a copy.

    numba opens a cache only where it can write a file, even to read from it, and gives up
    caching otherwise (and then compiles the search, about two minutes, at start). The image's
    cache is read-only, so it is copied (about 20 MB, tens of milliseconds) under the
    temporary directory. numba must be handed it before the search is imported: it picks
    its cache on import (`environment.hand_over`). Without one named, numba keeps its cache
    next to the source, as in a checkout.
    """
    if prepared is None:
        return None
    if prepared.is_dir() and may_write(prepared):
        return WorkingDirectory(prepared, temporary=False)
    copy = WorkingDirectory.make_temporary("jit")
    if prepared.is_dir():
        shutil.copytree(prepared, copy.path, dirs_exist_ok=True)
    return copy

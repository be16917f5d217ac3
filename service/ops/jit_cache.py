"""Where numba keeps the compiled search, so that a read-only container starts without a
compiler run: a writable copy of the cache the image prepared at build time."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, MutableMapping
from pathlib import Path

from service.ops.directories import WorkingDirectory

#: numba's own variable: the directory of its cache of compiled functions.
JIT_CACHE_VARIABLE = "NUMBA_CACHE_DIR"


def writable(directory: Path) -> bool:
    """Return whether this process may write in a directory."""
    return os.access(directory, os.W_OK)


def prepare_jit_cache(
    environ: MutableMapping[str, str], *, may_write: Callable[[Path], bool] = writable
) -> WorkingDirectory | None:
    """Point numba at a cache it can use: the one named if writable, else a copy of it.

    numba opens a cache only where it can write a file, even to read from it, and gives up
    caching otherwise (and then compiles the search, about 10 s, at start). The image's
    cache is read-only, so it is copied (a few MB, milliseconds) under the temporary
    directory. Must run before the search is imported: numba picks its cache on import.
    Without the variable, numba keeps its cache next to the source, as in a checkout.
    """
    given = environ.get(JIT_CACHE_VARIABLE, "").strip()
    if not given:
        return None
    prepared = Path(given)
    if prepared.is_dir() and may_write(prepared):
        return WorkingDirectory(prepared, temporary=False)
    copy = WorkingDirectory.make_temporary("jit")
    if prepared.is_dir():
        shutil.copytree(prepared, copy.path, dirs_exist_ok=True)
    environ[JIT_CACHE_VARIABLE] = str(copy.path)
    return copy

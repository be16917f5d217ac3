"""The search, compiled by numba: the alpha-beta tree (heuristic and exact) and the threat
search. `service.game.search` and `service.game.analysis` decide at the root in Python and
call these for the rest. A module each, lowest first:

- `kernel`: how the functions are compiled, a search's arrays (`Kernel`) and its clock;
- `shapes`: what a move makes of its line in each direction, kept per cell and move;
- `state`: the position, played and undone in place, and a new search's arrays;
- `evaluation`: what a position is worth at the leaves;
- `fouls`: renju's fouls read from the shapes, and the trap they set;
- `candidates`: which moves a node tries, in its order;
- `tree`: the alpha-beta tree and its entry points from Python;
- `threat_search`: runs of fours, and wins by fours and threes.

The tests hold them to judges that share none of their code: brute force and the exact
tables (docs/SEARCH.md). A compiled function with a leading underscore is called only from
compiled code (and the tests); the others are called from Python too.

A position lives in a few NumPy arrays (a `Kernel`), changed in place by `_play` and
`_undo`. Every function releases the interpreter lock while it runs (`nogil`), so that a
search leaves the other threads of its worker free to answer, and two searches in one
worker each use a core. The functions that allocate no array and return none are compiled
without reference counts (numba's `_nrt=False`): they only borrow the arrays their callers
hold, and numba could not prune the counts of the position's tuples at each call (an
atomic add and subtract per array per call, about 45% of a node's time). The tree is one
of them: its nodes write their candidates into a row per ply of work allocated once a
search (`_work`). The functions a node calls are inlined into it by numba (`_inlined`):
a compiled call passes the position's arrays by value, and LLVM leaves the larger ones
called.

The machine code is cached on disk (`cache=True`): next to these files, or under
`NUMBA_CACHE_DIR`, where the Docker image prepares it at build time (`python -m
service.game.warmup`). `service.game.warmup.prepare` loads it, or compiles it once (about
two minutes), before any request needs it. numba checks a function's cache against its own
file only, while a function's machine code holds the functions it calls from the other
files: so the package keeps a stamp of all its sources beside the cache, and where the
stamp differs (a file changed since the cache was written) every function's cached machine
code is removed before any is loaded (`forget_stale_machine_code`). A process still running the
older files may write its machine code again after that: after an edit, restart the
processes that share the cache.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from numba.core.registry import CPUDispatcher

from service.game.compiled import (
    candidates,
    evaluation,
    fouls,
    kernel,
    shapes,
    state,
    threat_search,
    tree,
)  # fmt: skip

_MODULES = (kernel, shapes, state, evaluation, fouls, candidates, tree, threat_search)

#: The file beside the cache that names the sources the cache was written from.
_STAMP = "bestmove-sources.sha256"


def compilations() -> int:
    """Return how many of the functions called from Python were compiled in this process,
    rather than loaded from the cache."""
    called = (
        kernel.monotonic_ns,
        kernel.out_of_time,
        state.new_state,
        tree.root_value,
        tree.value_after,
        tree.expected_line,
        candidates.likeliest_moves,
        tree.node_moves,
        tree.node_value,
        tree.move_value,
        tree.decided,
        tree.settled_value,
        tree.store_node,
        tree.reduction,
        state.play_move,
        state.undo_move,
        candidates.unbarred,
        threat_search.shortest_run_of_fours,
        threat_search.win_by_threes,
        threat_search.threat_win_after,
        shapes.shape_table,
    )
    return sum(sum(function.stats.cache_misses.values()) for function in called)


def forget_stale_machine_code(modules: Sequence[ModuleType]) -> bool:
    """Remove the cached machine code of `modules` unless it was written from these
    modules' sources (a stamp beside it, then written); return whether it was removed."""
    digest = hashlib.sha256()
    for module in modules:
        digest.update(Path(str(module.__file__)).read_bytes())
    sources = digest.hexdigest()
    folders = {
        # numba's own cache of each function (`_cache`): it offers no public way to find
        # it. numba is pinned by the lock, and the tests fail loudly if this changes.
        Path(value._cache.cache_path)  # type: ignore[attr-defined]
        for module in modules
        for value in vars(module).values()
        if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__
    }
    stamps = {folder / _STAMP for folder in folders}  # one a cache directory
    if all(stamp.is_file() and stamp.read_text() == sources for stamp in stamps):
        return False  # also where nothing is cached (NUMBA_DISABLE_JIT: no functions)
    for folder in folders:
        for module in modules:
            # Every index and data file of the module's functions, as numba names them
            # (the file's name, the function's, its line): those of functions since moved
            # too, which numba itself never removes. A process reading one meanwhile finds
            # it gone and compiles (numba's own rule for a removed file).
            for cached in folder.glob(f"{Path(str(module.__file__)).stem}.*.nb[ic]"):
                cached.unlink(missing_ok=True)
    for stamp in stamps:
        # Written whole or not at all (as numba writes its index), so that a process that
        # starts meanwhile never reads half a stamp.
        written = stamp.with_name(f"{stamp.name}.{os.getpid()}")
        written.write_text(sources)
        written.replace(stamp)
    return True


forget_stale_machine_code(_MODULES)

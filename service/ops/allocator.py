"""The C allocator's arenas: how many pools of memory the threads of a process share."""

from __future__ import annotations

import ctypes

#: mallopt's parameter for the most arenas (glibc's malloc.h).
M_ARENA_MAX = -8


def limit_arenas(most: int) -> bool:
    """Let the threads of this process, and of those it forks, share at most `most` of
    glibc's malloc arenas; return whether the C library took it (only glibc does)."""
    # glibc gives each new thread an arena of its own, up to 8 a core, and a thread's freed
    # memory stays in its arena for it: the searching and serving threads of a worker each
    # kept their peak. glibc reads MALLOC_ARENA_MAX only as a process starts; this sets it
    # for everything after.
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False  # no mallopt (macOS): nothing to limit
    return bool(mallopt(M_ARENA_MAX, most) == 1)


def give_back_freed() -> bool:
    """Give the C allocator's free pages, in every arena, back to the system; return whether
    any went back (False where the C library has no malloc_trim)."""
    # A batch of big boards or a long search frees most of what it took, but glibc keeps the
    # freed pages for the process: a worker would keep every peak for good.
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return False
    return bool(trim(0))

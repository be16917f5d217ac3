"""The transposition table: what a search learnt of the positions it searched, in a number
of bytes fixed before it starts.

A table is a NumPy array of `ENTRY` records, a power of two of them. A position's entry
lives in the slot its hash names (the hash modulo the slots) and is always replaced by the
next position stored there: the newest knowledge is the likeliest to be asked for again,
and the root of a search, stored last, is always found. A record with depth 0 is empty,
as every stored depth is at least 1.

The search (`service.game.compiled.tree`) reads and writes the records, compiled (`_probe`,
`_store`); this module makes the tables and sizes them.
"""

from __future__ import annotations

import mmap

import numpy as np
import numpy.typing as npt

#: One entry: the position's full hash (to tell it from another in its slot), the value,
#: the best move found, the depth searched, and the value's bound (-1 at most, 0 exact, 1 at
#: least). 24 bytes.
ENTRY = np.dtype(
    [
        ("key", np.uint64),
        ("value", np.int32),
        ("move", np.int16),
        ("depth", np.int16),
        ("bound", np.int8),
    ],
    align=True,
)

#: The most one search's table holds, in bytes: a search of the longest budget fills about
#: this much, and the searches that may run at once (`SEARCH_SLOTS`) at most that many times.
TABLE_BYTES = 24 * 1024 * 1024

#: The fewest slots a table has: what a search of a few milliseconds stores.
FEWEST_SLOTS = 2**12

#: Slots a table gets per second of budget: about the positions a second the compiled search
#: stores (0.1 to 0.4 million), rounded up, so that a short search does not map memory a long
#: one needs.
SLOTS_PER_SECOND = 2**19

#: From this size a table has a memory mapping of its own (`new_table`).
MAPPED_FROM_BYTES = 1024 * 1024

Table = npt.NDArray[np.void]


def most_slots(table_bytes: int = TABLE_BYTES) -> int:
    """Return the slots of the largest table that fits in `table_bytes`: a power of two."""
    return 1 << ((table_bytes // ENTRY.itemsize).bit_length() - 1)


def slots_for(seconds: float) -> int:
    """Return how many slots a search of `seconds` gets: a power of two, between FEWEST_SLOTS
    and what TABLE_BYTES holds."""
    wanted = max(FEWEST_SLOTS, int(seconds * SLOTS_PER_SECOND))
    return min(most_slots(), 1 << (wanted - 1).bit_length())


def new_table(slots: int) -> Table:
    """Return an empty table of `slots` entries (a power of two); a large one in memory of
    its own."""
    if slots < 1 or slots & (slots - 1):
        raise ValueError(f"a table has a power of two of slots, not {slots}")
    size = slots * ENTRY.itemsize
    if size < MAPPED_FROM_BYTES:
        # From the allocator's heap, which hands the same memory to the next search: a
        # short search's table costs microseconds, not a page fault a page.
        return np.zeros(slots, dtype=ENTRY)
    # An anonymous mapping, not the heap: its pages are zero until written, and they go
    # back to the system when the table goes. From the heap (malloc keeps what a thread
    # freed for that thread's next allocation), four searches at once left a worker 98 MB
    # bigger for good.
    return np.frombuffer(mmap.mmap(-1, size), dtype=ENTRY)

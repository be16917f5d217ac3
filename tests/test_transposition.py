"""The transposition table: a fixed number of bytes, whatever the budget, in which a
position's entry is found by its hash and replaced by the next position of its slot."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from service.game import compiled
from service.game.transposition import (
    ENTRY,
    FEWEST_SLOTS,
    TABLE_BYTES,
    Table,
    most_slots,
    new_table,
    slots_for,
)

#: The longest budget a request may ask for (environment.LONGEST_BUDGET_MS), in seconds.
LONGEST_BUDGET_SECONDS = 20.0


def probe(table: Table, key: int) -> tuple[int, int, int, int] | None:
    """Return (depth, value, bound, move) the compiled search reads for a hash, or None."""
    depth, value, bound, move = compiled.tree._probe(table, np.uint64(key))
    return None if depth == 0 else (int(depth), int(value), int(bound), int(move))


def store(table: Table, key: int, *, depth: int, value: int, bound: int, move: int) -> None:
    """Store an entry as the compiled search does."""
    compiled.tree._store(table, np.uint64(key), depth, value, bound, move)


def test_an_empty_table_holds_nothing() -> None:
    table = new_table(16)
    assert probe(table, 0) is None  # the empty board's hash is 0: an empty slot is not its entry
    assert probe(table, 2**64 - 1) is None


def test_an_entry_is_found_by_its_full_hash() -> None:
    table = new_table(16)
    key = 2**64 - 3  # every bit of the hash is kept, the highest included
    store(table, key, depth=7, value=-999_990, bound=1, move=224)
    assert probe(table, key) == (7, -999_990, 1, 224)
    assert probe(table, key ^ 2**40) is None  # same slot, another position


def test_the_next_position_of_a_slot_replaces_the_last() -> None:
    table = new_table(16)
    store(table, 5, depth=9, value=10, bound=0, move=1)
    store(table, 5 + 16, depth=1, value=-3, bound=-1, move=2)  # shallower, same slot: stored
    assert probe(table, 5) is None
    assert probe(table, 5 + 16) == (1, -3, -1, 2)
    store(table, 6, depth=2, value=0, bound=0, move=3)  # another slot leaves it alone
    assert probe(table, 5 + 16) == (1, -3, -1, 2)


@pytest.mark.parametrize("slots", [0, 3, 48])
def test_a_table_has_a_power_of_two_of_slots(slots: int) -> None:
    with pytest.raises(ValueError, match="power of two"):
        new_table(slots)


@pytest.mark.parametrize("seconds", [0.0, 0.001, 0.005, 0.25, 1.0, 5.0, LONGEST_BUDGET_SECONDS])
def test_a_search_table_grows_with_its_budget_up_to_its_bytes(seconds: float) -> None:
    slots = slots_for(seconds)
    assert slots & (slots - 1) == 0
    assert FEWEST_SLOTS <= slots <= most_slots()
    assert new_table(slots).nbytes <= TABLE_BYTES


def test_the_longest_budgets_get_every_byte_of_the_table() -> None:
    assert slots_for(5.0) == slots_for(LONGEST_BUDGET_SECONDS) == most_slots()
    assert most_slots() * ENTRY.itemsize == TABLE_BYTES
    assert slots_for(0.005) == FEWEST_SLOTS < slots_for(0.25) < most_slots()


#: A search of two million positions in a fresh process, kept alive: how much more memory
#: the process holds than before it. A table that grew with the positions stored (a dict
#: did) takes about 72 MiB here.
TWO_MILLION_POSITIONS = """
from service.game.board import Board, Mark
from service.game.rules import Rules
from service.game.search import Search
from service.game.warmup import prepare

def resident_kib():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))

prepare()
before = resident_kib()
search = Search(Board.empty(Rules(5, 5, 4)).play(12, Mark.X), Mark.O, 600.0, max_nodes=2_000_000)
found = search.run()
print(found.nodes, resident_kib() - before)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="reads Linux's /proc/self/status")
def test_a_search_of_millions_of_positions_holds_no_more_than_its_table() -> None:
    ran = subprocess.run(
        [sys.executable, "-c", TWO_MILLION_POSITIONS],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    nodes, grown_kib = map(int, ran.stdout.split())
    assert nodes > most_slots()  # more positions than the table has slots
    assert grown_kib * 1024 <= TABLE_BYTES + 8 * 1024 * 1024  # the table, and change

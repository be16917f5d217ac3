"""The C allocator: `python -m service` limits how many arenas its threads share, and a worker
gives freed pages back after long work, so that a worker does not keep each peak for good."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from service.ops.environment import Environment

#: Eight threads allocate at once, then glibc reports its arenas (malloc_info's heaps). With
#: no limit, glibc gives each thread one of its own.
EIGHT_THREADS = """
import ctypes, sys, tempfile, threading
from pathlib import Path
from service.ops.allocator import limit_arenas

if sys.argv[1] != "unlimited":
    assert limit_arenas(int(sys.argv[1]))
together = threading.Barrier(8)
held = []

def allocate():
    together.wait()
    held.append([bytes(4096) for _ in range(100)])

threads = [threading.Thread(target=allocate) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
with tempfile.TemporaryDirectory() as directory:
    report = Path(directory, "malloc_info.xml")
    stream = ctypes.c_void_p(libc.fopen(str(report).encode(), b"w"))
    libc.malloc_info(0, stream)
    libc.fclose(stream)
    print(report.read_text().count("<heap nr="))
"""

needs_glibc = pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc", reason="arenas and malloc_info are glibc's"
)


def arenas_after_eight_threads(limit: str) -> int:
    ran = subprocess.run(
        [sys.executable, "-c", EIGHT_THREADS, limit],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    return int(ran.stdout)


@needs_glibc
def test_without_a_limit_each_thread_gets_an_arena_of_its_own() -> None:
    assert arenas_after_eight_threads("unlimited") > 2


@needs_glibc
@pytest.mark.parametrize("most", [1, 2])
def test_a_limit_makes_the_threads_share_that_many_arenas(most: int) -> None:
    assert arenas_after_eight_threads(str(most)) == most


def test_the_service_shares_two_arenas_unless_told_otherwise() -> None:
    assert Environment.read({}).malloc_arena_max == 2


def test_the_server_module_limits_the_arenas_before_numpy_starts_its_threads() -> None:
    """NumPy's BLAS starts threads as it is imported, each taking an arena before any
    limit: `python -m service` must not import it before `main` has limited them."""
    script = "import sys, service.__main__; print('numpy' in sys.modules)"
    ran = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert ran.stdout.strip() == "False"


#: Frees 64 MB of blocks that smaller, live ones keep apart (so that glibc cannot shrink its
#: heap by itself), then prints the resident KB before and after giving the free pages back.
FREED_BETWEEN_LIVE_BLOCKS = """
import ctypes
from service.ops.allocator import give_back_freed

def resident_kb():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))

libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
big, live = [], []
for _ in range(1024):
    block = libc.malloc(64 * 1024)
    ctypes.memset(block, 1, 64 * 1024)
    big.append(block)
    live.append(libc.malloc(64))
for block in big:
    libc.free(block)
before = resident_kb()
assert give_back_freed()
print(before, resident_kb())
"""


@needs_glibc
def test_freed_memory_goes_back_to_the_system_when_asked() -> None:
    """What a worker does after long work: without it the 64 MB would stay resident."""
    ran = subprocess.run(
        [sys.executable, "-c", FREED_BETWEEN_LIVE_BLOCKS],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    before, after = map(int, ran.stdout.split())
    assert before - after > 48 * 1024

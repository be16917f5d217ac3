"""Search slots shared across processes: a bounded number of searches at once, the rest
refused at once with 503 busy, while tables and probes keep answering."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

from service.ops.directories import WorkingDirectory
from service.ops.file_slots import FileSlots
from tests.helpers import GOMOKU_OPENING, ServerStarter, held_until_later, metric, wait_for

HOLD_A_SLOT = """
import sys, time
from pathlib import Path
from service.ops.file_slots import FileSlots
release = FileSlots(Path(sys.argv[1]), 1).try_take(60.0)
print("held" if release else "refused", flush=True)
time.sleep(60)  # holding the slot is the point: the test kills this process
"""


def test_each_slot_is_held_by_one_taker_at_a_time(tmp_path: Path) -> None:
    first, second = FileSlots(tmp_path, 2), FileSlots(tmp_path, 2)
    one, two = first.try_take(1.0), second.try_take(1.0)
    assert one is not None
    assert two is not None
    assert first.try_take(1.0) is None
    assert second.try_take(1.0) is None
    one()
    three = second.try_take(1.0)
    assert three is not None
    three()
    two()


def test_the_free_slots_are_counted_across_takers(tmp_path: Path) -> None:
    first, second = FileSlots(tmp_path, 3), FileSlots(tmp_path, 3)
    assert first.free() == 3
    one = first.try_take(1.0)
    assert one is not None
    two = second.try_take(1.0)
    assert two is not None
    assert (first.free(), second.free()) == (1, 1)
    one()
    assert second.free() == 2
    two()
    assert first.free() == 3


def test_a_slot_held_by_another_process_is_taken_and_freed_by_its_death(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_A_SLOT, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        assert FileSlots(tmp_path, 1).try_take(1.0) is None
    finally:
        holder.kill()  # SIGKILL: no clean-up runs, the kernel drops the lock
        holder.communicate()
    release = FileSlots(tmp_path, 1).try_take(1.0)
    assert release is not None
    release()


def test_a_temporary_working_directory_is_made_fresh_and_removed() -> None:
    directory = WorkingDirectory.make_temporary("search-slots")
    assert directory.path.is_dir()
    assert list(directory.path.iterdir()) == []
    release = FileSlots(directory.path, 1).try_take(1.0)
    assert release is not None
    release()
    directory.remove_if_temporary()
    assert not directory.path.exists()


def test_the_server_runs_one_search_per_slot_across_workers(
    tmp_path: Path, serve: ServerStarter
) -> None:
    """One slot, two workers: a second search is refused whichever worker gets it, while
    tables and probes answer; the refusal is counted."""
    # The server makes its slots' directory under TMPDIR: here, where the test can see it.
    server = serve({"SEARCH_SLOTS": "1", "WEB_CONCURRENCY": "2", "TMPDIR": str(tmp_path)})

    def slot_taken() -> bool:
        slot_files = tmp_path.glob("bestmove-search-slots-*/search-slot-*.lock")
        return any(map(held_until_later, slot_files))

    long_search = json.dumps({"board": GOMOKU_OPENING, "budget_ms": 3000}).encode()
    answers: list[int] = []
    searching = threading.Thread(
        target=lambda: answers.append(server.request("POST", "/v1/move", long_search)[0])
    )
    try:
        searching.start()
        wait_for(slot_taken, "the long search takes the slot")
        refused = [
            server.request("POST", "/v1/move", json.dumps({"board": GOMOKU_OPENING}).encode())
            for _ in range(4)
        ]
        table = server.request("POST", "/v1/move", b'{"board": "X...O...."}')
        health = server.request("GET", "/healthz")
        searching.join()
        _, _, text = server.request("GET", "/metrics")
    finally:
        assert server.stop() == 0
    assert answers == [200]
    for status, headers, body in refused:
        assert status == 503
        # The long search took its slot for 3 s moments ago: come back when it is spent.
        assert headers["Retry-After"] in {"2", "3"}
        assert json.loads(body)["code"] == "busy"
    assert table[0] == 200
    assert health[0] == 200
    scraped = text.decode()
    assert metric(scraped, "bestmove_search_refusals_total", request="move") == 4
    assert metric(scraped, "bestmove_search_duration_seconds_count", method="heuristic") == 1


def test_a_refused_caller_learns_when_the_soonest_slot_in_any_process_is_spent(
    tmp_path: Path,
) -> None:
    holder, other = FileSlots(tmp_path, 2), FileSlots(tmp_path, 2)
    assert other.free_in() == 0.0  # every slot free
    long, short = holder.try_take(30.0), holder.try_take(12.0)
    assert long is not None
    assert short is not None
    assert other.try_take(1.0) is None
    assert 11.0 < other.free_in() <= 12.0  # read from what the holder wrote
    short()
    assert other.free_in() == 0.0  # freed since
    long()

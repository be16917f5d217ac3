"""Solved tables on disk: prepared once, then opened read-only and shared."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import numpy as np
import pytest

from service.game.rules import Rules
from service.game.store import TableStore
from service.game.table import solve

GAME = Rules(3, 4, 3, misere=True)


def test_a_missing_table_is_prepared_reported_and_then_opened_mapped(tmp_path: Path) -> None:
    store = TableStore(tmp_path / "tables")
    assert store.open(GAME) is None
    reported: list[tuple[Rules, float]] = []
    tables = store.tables([GAME], progress=lambda rules, seconds: reported.append((rules, seconds)))
    assert [rules for rules, _ in reported] == [GAME]
    assert isinstance(tables[GAME], np.memmap)
    assert not tables[GAME].flags.writeable
    assert np.array_equal(tables[GAME], solve(GAME))
    assert [path.name for path in (tmp_path / "tables").glob("*.npy")] == [store.path(GAME).name]
    assert not list((tmp_path / "tables").glob("*.partial"))


def test_a_present_table_is_opened_without_solving(tmp_path: Path) -> None:
    store = TableStore(tmp_path)
    store.prepare(GAME)
    reported: list[Rules] = []
    store.tables([GAME], progress=lambda rules, _: reported.append(rules))
    assert reported == []


def test_a_damaged_or_foreign_file_is_never_used(tmp_path: Path) -> None:
    store = TableStore(tmp_path)
    store.path(GAME).write_bytes(b"not a table")
    assert store.open(GAME) is None
    np.save(store.path(GAME), np.zeros(7, dtype=np.int8))
    assert store.open(GAME) is None
    assert np.array_equal(store.tables([GAME])[GAME], solve(GAME))


def test_each_game_has_its_own_file_named_for_its_rules_and_the_format(tmp_path: Path) -> None:
    store = TableStore(tmp_path)
    assert store.path(GAME).name == "mnk-3x4-k3-misere-v1.npy"
    assert store.path(Rules(4, 4, 4)).name == "mnk-4x4-k4-normal-v1.npy"


def test_a_prepared_table_is_readable_by_every_user(tmp_path: Path) -> None:
    """The image prepares tables as root; the server reads them as another user."""
    store = TableStore(tmp_path)
    store.prepare(GAME)
    assert store.path(GAME).stat().st_mode & 0o777 == 0o644


def test_a_table_that_cannot_be_prepared_says_where_and_why(tmp_path: Path) -> None:
    (tmp_path / "tables").write_text("a file where the directory should be")
    with pytest.raises(OSError, match=r"the table of 3x4, 3 in a row, misère is not in .*tables"):
        TableStore(tmp_path / "tables").tables([GAME])


def _prepare_in_another_process(directory: str, reports: multiprocessing.Queue[str]) -> None:
    TableStore(Path(directory)).tables([GAME], progress=lambda rules, _: reports.put(str(rules)))


def test_processes_preparing_together_solve_each_game_once(tmp_path: Path) -> None:
    """Workers without preload, or replicas on one volume: one solves, the others wait and open."""
    context = multiprocessing.get_context("spawn")
    reports: multiprocessing.Queue[str] = context.Queue()
    processes = [
        context.Process(target=_prepare_in_another_process, args=(str(tmp_path), reports))
        for _ in range(3)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
    assert [process.exitcode for process in processes] == [0, 0, 0]
    assert reports.get(timeout=5) == str(GAME)
    assert reports.empty()
    assert np.array_equal(TableStore(tmp_path).tables([GAME])[GAME], solve(GAME))

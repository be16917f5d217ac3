"""Helpers that let tests draw boards the way people do."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import pytest
from flask import Flask
from packaging.markers import Marker

from service.game.board import Board
from tests.servers import RunningServer

#: The rules every answer for a 3x3 board without `rules` names: today's game.
CLASSIC_RULES = {"rows": 3, "cols": 3, "k": 3, "misere": False}

#: Builds a service around the session's engine: `make_service(settings, engine=...)`.
ServiceFactory = Callable[..., Flask]

#: Starts `python -m service` on the session's tables: `serve(extra_env, ...)`.
ServerStarter = Callable[..., RunningServer]


def board(*rows: str) -> Board:
    """Draw a board as three rows of three characters: X, O, or '.' for an empty cell."""
    assert len(rows) == 3, rows
    assert all(len(row) == 3 for row in rows), rows
    return Board.from_text("".join(rows))


def search(pattern: str, text: str) -> re.Match[str]:
    """Return the first match of `pattern` in `text`; raise ValueError, quoting it, if none."""
    found = re.search(pattern, text)
    if found is None:
        raise ValueError(f"no {pattern!r} in {text[:500]!r}")
    return found


def locked_versions(lock: str) -> dict[str, str]:
    """Return the name and exact version of every package a lock in requirements/ pins for
    this Python (a lock may pin another version of a package for another Python)."""
    text = (Path(__file__).resolve().parent.parent / "requirements" / lock).read_text()
    pins = re.findall(
        r"^([a-z0-9][a-z0-9._-]*)==([^\s;]+)(?: ; ([^\\\n]+))?", text, flags=re.MULTILINE
    )
    return {
        name: version
        for name, version, marker in pins
        if not marker or Marker(marker.strip()).evaluate()
    }


def missing_tool(what: str, how_ci_gets_it: str, how_to_install: str) -> NoReturn:
    """Fail under CI, which must have every tool; elsewhere skip, saying how to get it."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must have {what}: {how_ci_gets_it}")
    pytest.skip(f"{what} is missing ({how_to_install})")


def run_short_script(module: str, *arguments: str, tables_dir: Path) -> str:
    """Run one of the repository's load scripts in its short form on the session's tables;
    return what it printed (shown with -s, or on failure)."""
    result = subprocess.run(
        [sys.executable, "-m", module, *arguments, "--short", "--tables-dir", str(tables_dir)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
        timeout=300,
        check=False,
    )
    print(result.stdout)  # noqa: T201 -- the figures
    if result.stderr.strip():
        print(result.stderr[-3000:])  # noqa: T201 -- the reason, when it failed
    return result.stdout

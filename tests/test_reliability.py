"""The short versions of the load and fault scripts, as real tests: a few seconds each."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import missing_tool

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def hey() -> str:
    found = shutil.which("hey")
    if found is None:
        missing_tool("hey", ".ci/run installs it", "apt-get install hey")
    return found


@pytest.mark.parametrize("check", ["load", "kill-worker", "sigterm"])
def test_the_service_survives(hey: str, check: str, tables_dir: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "scripts.reliability",
            check,
            "--short",
            "--tables-dir",
            str(tables_dir),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    print(result.stdout)  # noqa: T201 -- the figures, shown with -s or on failure
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    assert result.stdout.startswith("PASS")

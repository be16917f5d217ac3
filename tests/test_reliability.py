"""The short versions of the load and fault scripts, as real tests: a few seconds each."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers import missing_tool, run_short_script


@pytest.fixture(scope="module")
def hey() -> str:
    found = shutil.which("hey")
    if found is None:
        missing_tool("hey", ".ci/run installs it", "apt-get install hey")
    return found


@pytest.mark.parametrize("check", ["load", "kill-worker", "sigterm"])
def test_the_service_survives(hey: str, check: str, tables_dir: Path) -> None:
    output = run_short_script("scripts.reliability", check, tables_dir=tables_dir)
    assert output.startswith("PASS"), output

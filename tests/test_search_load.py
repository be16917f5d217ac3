"""The short version of the search load script, as a real test: what it must never see.

Its latency verdicts are figures for docs/SEARCH.md, measured against a baseline of the same
run; a shared machine makes them no test. What is asserted here holds on any machine: every
probe and table answer is 200 while searches fill the slots, searches beyond the slots are
refused with 503 busy and Retry-After, and nothing else fails.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_searches_under_load_never_fail_a_probe(tables_dir: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "scripts.search_load", "--short", "--tables-dir", str(tables_dir)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    print(result.stdout)  # noqa: T201 -- the figures, shown with -s or on failure
    checks = {line["check"]: line for line in map(json.loads, result.stdout.splitlines())}
    assert len(checks) == 4, result.stderr[-3000:]
    baseline, alone, loaded, refusals = checks.values()
    assert baseline["probe_failures"] == 0
    assert alone["searches"] > 0
    assert loaded["probes"] > 0
    assert loaded["probe_failures"] == 0
    assert refusals["verdict"] == "PASS", refusals
    assert refusals["other_failures"] == 0

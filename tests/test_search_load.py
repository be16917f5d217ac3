"""The short version of the search load script, as a real test: what it must never see.

Its latency verdicts are figures for docs/SEARCH.md, measured against a baseline of the same
run; a shared machine makes them no test. What is asserted here holds on any machine: every
probe and table answer is 200 while searches fill the slots, searches beyond the slots are
refused with 503 busy and Retry-After, and nothing else fails.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_short_script


def test_searches_under_load_never_fail_a_probe(tables_dir: Path) -> None:
    output = run_short_script("scripts.search_load", tables_dir=tables_dir)
    checks = {line["check"]: line for line in map(json.loads, output.splitlines())}
    assert len(checks) == 4, output
    baseline, alone, loaded, refusals = checks.values()
    assert baseline["probe_failures"] == 0
    assert alone["searches"] > 0
    assert loaded["probes"] > 0
    assert loaded["probe_failures"] == 0
    assert refusals["verdict"] == "PASS", refusals
    assert refusals["other_failures"] == 0

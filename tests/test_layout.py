"""The tests and the tools stand on their own: no test module imports another (what they share
is in tests/helpers.py, the fixtures in conftest.py), the benchmarks and scripts import the
product and one another but never the tests, and every sleep says why it is not a wait."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = sorted([*(ROOT / "benchmarks").glob("*.py"), *(ROOT / "scripts").glob("*.py")])
TEST_PACKAGE = sorted((ROOT / "tests").glob("*.py"))


def imported_modules(path: Path, root: Path = ROOT) -> set[str]:
    """Return every module a file imports, with the names taken from it as modules too
    (`from tests import test_x` imports tests.test_x) and relative imports made absolute."""
    package = list(path.relative_to(root).parent.parts)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def imported_test_modules(path: Path, root: Path = ROOT) -> set[str]:
    """Return the test modules (tests.test_*) a file imports."""
    return {name for name in imported_modules(path, root) if re.match(r"tests\.test_\w+", name)}


def name(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize(
    "source",
    [
        "from tests.test_contract import without_time",
        "import tests.test_contract",
        "from tests import test_contract",
        "from . import test_contract",
        "from .test_contract import without_time",
    ],
)
def test_the_scan_sees_every_way_to_import_a_test_module(tmp_path: Path, source: str) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_sneaky.py").write_text(source + "\n")
    found = imported_test_modules(tmp_path / "tests" / "test_sneaky.py", root=tmp_path)
    assert {module.split(".")[1] for module in found} == {"test_contract"}


@pytest.mark.parametrize("path", TEST_PACKAGE, ids=name)
def test_no_module_of_the_tests_imports_a_test_module(path: Path) -> None:
    assert imported_test_modules(path) == set()


@pytest.mark.parametrize("path", TOOLS, ids=name)
def test_benchmarks_and_scripts_never_import_the_tests(path: Path) -> None:
    imported = imported_modules(path)
    assert {module for module in imported if module.split(".")[0] == "tests"} == set()


@pytest.mark.parametrize("path", TEST_PACKAGE + TOOLS, ids=name)
def test_every_sleep_says_why_it_is_not_a_wait(path: Path) -> None:
    """A fixed pause hoping something has happened by now is a race: wait on the event with a
    deadline. A pause that is the behaviour (a client's pace, a lock held) or a poll with a
    deadline stays, with a comment on its line saying so."""
    silent = [
        line.strip()
        for line in path.read_text().splitlines()
        if re.search(r"\bsleep\(", line) and "#" not in line
    ]
    assert silent == []

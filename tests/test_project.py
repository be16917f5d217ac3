"""The project as a newcomer meets it: the README's commands, the package, the image's files."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.helpers import locked_versions

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def test_the_quick_start_is_two_commands_one_to_serve_one_to_test() -> None:
    assert quick_start_commands() == [
        "pip install -r requirements/runtime.txt && pip install --no-deps . && python -m service",
        "pip install -r requirements/test.txt && pip install --no-deps --no-build-isolation -e ."
        " && pytest",
    ]


@pytest.mark.parametrize("lock", ["runtime.txt", "test.txt"])
def test_every_locked_package_is_pinned_with_hashes(lock: str) -> None:
    text = (ROOT / "requirements" / lock).read_text()
    requirements = re.split(r"\n(?=[a-z0-9])", text.split("\n", 2)[2].strip())
    names = {requirement.split("==", 1)[0] for requirement in requirements}
    # Some are pinned for other platforms or Pythons only (colorama on Windows).
    assert set(locked_versions(lock)) <= names
    assert len(names) > 10
    for requirement in requirements:
        assert "==" in requirement.splitlines()[0], requirement
        assert "--hash=sha256:" in requirement, requirement


def test_the_runtime_lock_is_the_test_locks_subset_and_covers_every_dependency() -> None:
    runtime, test = locked_versions("runtime.txt"), locked_versions("test.txt")
    assert runtime.items() <= test.items()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for group, lock in [(project["project"]["dependencies"], runtime), (
        project["project"]["optional-dependencies"]["test"], test)]:  # fmt: skip
        names = {re.split(r"[<>=\[ ]", spec, maxsplit=1)[0].lower() for spec in group}
        assert names <= set(lock)


def test_the_build_backend_is_pinned_to_the_locked_version() -> None:
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    assert build == [f"hatchling=={locked_versions('test.txt')['hatchling']}"]


def test_ci_runs_the_readmes_test_command_exactly() -> None:
    test_command = quick_start_commands()[1]
    ci_script = (ROOT / ".ci" / "run").read_text()
    ci_lines = [line.strip() for line in ci_script.splitlines()]
    assert test_command in ci_lines
    # set -e would let a failed install inside the && list pass: CI checks the list's status.
    assert "readme_test_command || fail" in ci_script


def test_the_wheel_carries_the_contract_it_serves(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
    )
    (wheel,) = tmp_path.glob("bestmove-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert archive.read("service/api/openapi.yaml") == (ROOT / "openapi.yaml").read_bytes()
    assert {
        "service/__main__.py",
        "service/game/engine.py",
        "service/api/app.py",
        "service/api/static/index.html",
        "service/ops/server.py",
    } <= names
    assert not any(name.startswith("tests/") for name in names)


def imported_modules(package: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Return, for every module of a service package, the modules it imports, relative
    imports resolved to absolute names (`from ..api import views` in service/game/x.py is
    service.api.views)."""
    found = {}
    for path in sorted((root / "service" / package).rglob("*.py")):
        # The package a relative import starts from: the module's own, for __init__ too.
        here = list(path.relative_to(root).parent.parts)
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names.add(str(node.module))
            elif isinstance(node, ast.ImportFrom):
                base = here[: len(here) - (node.level - 1)]
                if node.module:
                    names.add(".".join([*base, node.module]))
                else:
                    names |= {".".join([*base, alias.name]) for alias in node.names}
        found[str(path.relative_to(root))] = names
    return found


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from ..api import views", "service.api"),
        ("from ..ops.metrics import Metrics", "service.ops.metrics"),
        ("from .. import api", "service.api"),
        ("from . import rules", "service.game.rules"),
        ("import service.api.views", "service.api.views"),
    ],
)
def test_the_import_scan_sees_relative_imports_too(
    tmp_path: Path, source: str, expected: str
) -> None:
    (tmp_path / "service" / "game").mkdir(parents=True)
    (tmp_path / "service" / "game" / "sneaky.py").write_text(source + "\n")
    assert expected in imported_modules("game", root=tmp_path)["service/game/sneaky.py"]


def test_the_game_imports_only_the_standard_library_and_itself() -> None:
    """No Flask, Werkzeug or Pydantic in the rules and solvers: whatever files the folder holds.
    NumPy holds the tables; numba (with its code generator, llvmlite) compiles the search."""
    allowed = set(sys.stdlib_module_names) | {"numpy", "numba", "llvmlite"}
    for module, names in imported_modules("game").items():
        outside = {name for name in names if not name.startswith("service.game")}
        assert {name.split(".")[0] for name in outside} <= allowed, module


@pytest.mark.parametrize(
    ("package", "forbidden"), [("game", ("service.api", "service.ops")), ("api", ("service.ops",))]
)
def test_imports_run_one_way_ops_to_api_to_game(package: str, forbidden: tuple[str, ...]) -> None:
    for module, names in imported_modules(package).items():
        assert not {name for name in names if name.startswith(forbidden)}, module


def test_every_module_of_the_package_lives_in_a_layer() -> None:
    top_level = {path.name for path in (ROOT / "service").glob("*.py")}
    assert top_level == {"__init__.py", "__main__.py"}


def test_what_test_runs_leave_behind_is_ignored_by_git() -> None:
    """Screenshots, caches and CI's environment never show up as changes to commit."""
    left_behind = [
        "artifacts/phone.png",
        ".schemathesis/default/cache",
        ".venv-ci/bin/python",
        "clients/typescript/node_modules/vitest/package.json",
        "clients/typescript/dist/index.js",
    ]
    ignored = subprocess.run(
        ["git", "check-ignore", *left_behind], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert ignored.stdout.split() == left_behind


def test_every_name_the_package_docstring_gives_exists() -> None:
    """`service.api.app.create_app` and its kind: each dotted name imports, or is an attribute."""
    import service  # noqa: PLC0415 -- the package under test, for its docstring

    named = set(re.findall(r"`(service(?:\.\w+)+)`", service.__doc__ or ""))
    assert "service.api.app.create_app" in named
    for name in named:
        module_name, _, attribute = name.rpartition(".")
        try:
            importlib.import_module(name)
        except ModuleNotFoundError:
            assert hasattr(importlib.import_module(module_name), attribute), name

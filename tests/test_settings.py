"""The environment's declaration: every variable the service reads, declared once, read once
where the process starts, and shown as the table of docs/OPERATIONS.md."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.api.app import create_app
from service.api.app_settings import AppSettings, cores
from service.game.engine import Engine
from service.ops.environment import (
    JIT_CACHE_VARIABLE,
    METRICS_DIR_VARIABLE,
    Environment,
    Settings,
    SettingsError,
    declaration,
    hand_over,
    main,
    markdown_table,
    variables,
)
from service.ops.server import gunicorn_settings, prepare_metrics_dir

ROOT = Path(__file__).resolve().parent.parent

Outcome = Callable[[Environment], object]


def server(name: str) -> Outcome:
    """Where a variable lands in gunicorn's settings."""
    return lambda environment: gunicorn_settings(environment)[name]


def app(name: str) -> Outcome:
    """Where a variable lands in the app's settings."""
    return lambda environment: getattr(environment.settings().app, name)


def tables_dir(environment: Environment) -> object:
    return environment.settings().tables_dir


#: Each variable, a value an operator might set, and what the process then does with it.
WHERE_EACH_VARIABLE_LANDS: list[tuple[str, str, Outcome, object]] = [
    ("PORT", "9001", server("bind"), "0.0.0.0:9001"),
    ("HOST", "::1", server("bind"), "[::1]:8000"),
    ("WEB_CONCURRENCY", "4", server("workers"), 4),
    ("GUNICORN_WORKER_CLASS", "gthread", server("worker_class"), "gthread"),
    ("GUNICORN_THREADS", "8", server("threads"), 8),
    ("GUNICORN_TIMEOUT", "60", server("timeout"), 60),
    ("GUNICORN_GRACEFUL_TIMEOUT", "5", server("graceful_timeout"), 5),
    ("GUNICORN_KEEPALIVE", "75", server("keepalive"), 75),
    ("GUNICORN_MAX_REQUESTS", "0", server("max_requests"), 0),
    ("GUNICORN_MAX_REQUESTS_JITTER", "50", server("max_requests_jitter"), 50),
    ("GUNICORN_PRELOAD", "false", server("preload_app"), False),
    ("LOG_LEVEL", "warning", server("loglevel"), "warning"),
    ("ACCESS_LOG", "off", lambda environment: environment.settings().access_log, False),
    ("MAX_BODY_BYTES", "1000", app("max_body_bytes"), 1000),
    (
        "CORS_ORIGINS",
        "https://a.example, http://b.example:8080",
        app("cors_origins"),
        ("https://a.example", "http://b.example:8080"),
    ),
    ("SEARCH_MAX_BUDGET_MS", "8000", app("max_budget_ms"), 8000),
    ("SEARCH_BUDGET_MS", "100", app("default_budget_ms"), 100),
    ("SEARCH_SLOTS", "97", app("search_slots"), 97),
    ("SEARCH_THREADS", "1", app("search_threads"), 1),
    ("ANSWER_CACHE_MB", "5", app("answer_cache_bytes"), 5 * 2**20),
    # python -m service hands these to prepare_metrics_dir and prepare_jit_cache.
    (
        "PROMETHEUS_MULTIPROC_DIR",
        "/srv/metrics",
        lambda environment: environment.prometheus_multiproc_dir,
        Path("/srv/metrics"),
    ),
    ("TABLES_DIR", "/srv/tables", tables_dir, Path("/srv/tables")),
    (
        "NUMBA_CACHE_DIR",
        "/srv/jit",
        lambda environment: environment.numba_cache_dir,
        Path("/srv/jit"),
    ),
    # Read by numba itself: declared so that the image sets nothing undeclared.
    ("NUMBA_CPU_NAME", "generic", lambda environment: environment.numba_cpu_name, "generic"),
    # Applied by python -m service as it starts (tests/test_allocator.py).
    ("MALLOC_ARENA_MAX", "4", lambda environment: environment.malloc_arena_max, 4),
    ("XDG_CACHE_HOME", "/srv/cache", tables_dir, Path("/srv/cache/bestmove/tables")),
]


@pytest.mark.parametrize(("variable", "value", "outcome", "expected"), WHERE_EACH_VARIABLE_LANDS)
def test_each_variable_reaches_what_it_sets(
    variable: str, value: str, outcome: Outcome, expected: object
) -> None:
    assert outcome(Environment()) != expected
    assert outcome(Environment.read({variable: value})) == expected


def test_every_declared_variable_is_specified_above_in_the_declarations_order() -> None:
    assert [row[0] for row in WHERE_EACH_VARIABLE_LANDS] == variables()


def test_unset_the_service_runs_with_its_shipped_defaults() -> None:
    shipped = replace(Settings(), tables_dir=Path.home() / ".cache" / "bestmove" / "tables")
    assert Environment.read({}).settings() == shipped


def test_a_blank_value_is_unset_and_spaces_around_a_value_do_not_count() -> None:
    assert Environment.read({"PORT": "", "HOST": "  ", "CORS_ORIGINS": " "}) == Environment()
    assert Environment.read({"PORT": " 9001 "}).port == 9001


def test_only_the_declared_names_are_read_exactly_as_spelled() -> None:
    assert Environment.read({"port": "9001", "PATH": "/bin", "SEARCH_SLOT": "9"}) == Environment()


def test_the_longest_budget_is_allowed_with_a_drain_longer_than_it() -> None:
    environ = {"SEARCH_MAX_BUDGET_MS": "20000", "GUNICORN_GRACEFUL_TIMEOUT": "21"}
    assert Environment.read(environ).settings().app.max_budget_ms == 20_000


def test_the_default_budget_stays_within_a_lower_most() -> None:
    budgets = Environment.read({"SEARCH_MAX_BUDGET_MS": "100"}).settings().app
    assert (budgets.default_budget_ms, budgets.max_budget_ms) == (100, 100)


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"PORT": "http"}, "PORT must be a whole number, not 'http'"),
        ({"PORT": "0"}, "PORT must be between 1 and 65535, not 0"),
        ({"PORT": "70000"}, "PORT must be between 1 and 65535, not 70000"),
        ({"WEB_CONCURRENCY": "-2"}, "WEB_CONCURRENCY must be at least 1, not -2"),
        ({"GUNICORN_THREADS": "2.5"}, "GUNICORN_THREADS must be a whole number, not '2.5'"),
        (
            {"GUNICORN_WORKER_CLASS": "sync"},
            "GUNICORN_WORKER_CLASS must be one of gthread, handoff, not 'sync'",
        ),
        ({"GUNICORN_PRELOAD": "maybe"}, "GUNICORN_PRELOAD must be true or false, not 'maybe'"),
        ({"GUNICORN_MAX_REQUESTS": "-1"}, "GUNICORN_MAX_REQUESTS must be at least 0, not -1"),
        (
            {"LOG_LEVEL": "loud"},
            "LOG_LEVEL must be one of critical, debug, error, info, warning, not 'loud'",
        ),
        ({"ACCESS_LOG": "sometimes"}, "ACCESS_LOG must be true or false, not 'sometimes'"),
        (
            {"MAX_BODY_BYTES": "2000000"},
            "MAX_BODY_BYTES must be between 1 and 1048576, not 2000000",
        ),
        (
            {"CORS_ORIGINS": "https://a.example,b.example"},
            "CORS_ORIGINS lists origins like https://example.com, not 'b.example'",
        ),
        (
            {"SEARCH_MAX_BUDGET_MS": "20001"},
            "SEARCH_MAX_BUDGET_MS must be between 1 and 20000, not 20001",
        ),
        (
            {"SEARCH_MAX_BUDGET_MS": "20000"},
            "SEARCH_MAX_BUDGET_MS must be under GUNICORN_GRACEFUL_TIMEOUT (20 s), not 20000: "
            "a search in flight at SIGTERM would be cut short",
        ),
        (
            {"SEARCH_MAX_BUDGET_MS": "9000", "GUNICORN_GRACEFUL_TIMEOUT": "9"},
            "SEARCH_MAX_BUDGET_MS must be under GUNICORN_GRACEFUL_TIMEOUT (9 s), not 9000: "
            "a search in flight at SIGTERM would be cut short",
        ),
        ({"SEARCH_BUDGET_MS": "5001"}, "SEARCH_BUDGET_MS must be between 1 and 5000, not 5001"),
        (
            {"SEARCH_BUDGET_MS": "900", "SEARCH_MAX_BUDGET_MS": "800"},
            "SEARCH_BUDGET_MS must be between 1 and 800, not 900",
        ),
        ({"SEARCH_BUDGET_MS": "0"}, "SEARCH_BUDGET_MS must be at least 1, not 0"),
        ({"SEARCH_SLOTS": "0"}, "SEARCH_SLOTS must be at least 1, not 0"),
        ({"SEARCH_THREADS": "65"}, "SEARCH_THREADS must be between 1 and 64, not 65"),
        ({"ANSWER_CACHE_MB": "-5"}, "ANSWER_CACHE_MB must be at least 0, not -5"),
        (
            {"PORT": "0", "LOG_LEVEL": "loud"},
            "PORT must be between 1 and 65535, not 0; "
            "LOG_LEVEL must be one of critical, debug, error, info, warning, not 'loud'",
        ),
    ],
)
def test_a_bad_value_is_refused_in_one_line_naming_the_variable(
    environ: dict[str, str], message: str
) -> None:
    with pytest.raises(SettingsError) as refused:
        Environment.read(environ)
    assert str(refused.value) == message


def just_outside_the_declared_bounds() -> list[tuple[str, int]]:
    """Return each bounded variable with each value next to its bounds, outside them."""
    return [
        (name, value)
        for name, schema in declaration().items()
        for value in (
            schema["minimum"] - 1 if "minimum" in schema else None,
            schema["maximum"] + 1 if "maximum" in schema else None,
        )
        if value is not None
    ]


@pytest.mark.parametrize(("variable", "value"), just_outside_the_declared_bounds())
def test_every_declared_bound_is_enforced(variable: str, value: int) -> None:
    with pytest.raises(SettingsError, match=rf"^{variable} must be (at least|between) .*{value}$"):
        Environment.read({variable: str(value)})


def test_without_sched_getaffinity_the_service_counts_every_cpu(
    monkeypatch: pytest.MonkeyPatch, engine: Engine
) -> None:
    """macOS has no sched_getaffinity: the search slots default to the CPUs there are."""
    monkeypatch.delattr(os, "sched_getaffinity")
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    assert cores() == 3
    assert AppSettings().search_slots == 3
    assert Environment.read({}).settings().app.search_slots == 3
    assert create_app(engine=engine).test_client().get("/healthz").status_code == 200


def test_the_variables_the_libraries_read_are_declared_too() -> None:
    assert (JIT_CACHE_VARIABLE, METRICS_DIR_VARIABLE) == (
        "NUMBA_CACHE_DIR",
        "PROMETHEUS_MULTIPROC_DIR",
    )
    assert {JIT_CACHE_VARIABLE, METRICS_DIR_VARIABLE} <= set(variables())


def test_a_library_is_handed_the_directory_the_process_prepared(tmp_path: Path) -> None:
    environ: dict[str, str] = {METRICS_DIR_VARIABLE: "/the/operator's"}
    hand_over(METRICS_DIR_VARIABLE, tmp_path, environ)
    assert environ == {METRICS_DIR_VARIABLE: str(tmp_path)}


def test_an_operators_metrics_directory_is_emptied_and_kept(tmp_path: Path) -> None:
    (tmp_path / "counter_123.db").write_bytes(b"stale")
    directory = prepare_metrics_dir(tmp_path)
    assert (directory.path, directory.temporary) == (tmp_path, False)
    assert list(tmp_path.iterdir()) == []
    fresh = prepare_metrics_dir(None)
    assert fresh.temporary
    fresh.remove_if_temporary()
    assert not fresh.path.exists()


def test_nothing_but_the_declaration_reads_the_environment() -> None:
    readers = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "service").rglob("*.py")
        if re.search(r"\bos\.(environ|getenv|putenv)\b|\bfrom os import\b", path.read_text())
    }
    assert readers == {"service/ops/environment.py"}


def test_the_deployment_sets_only_declared_variables() -> None:
    manifest = yaml.safe_load((ROOT / "deploy" / "kubernetes" / "deployment.yaml").read_text())
    containers: list[dict[str, Any]] = manifest["spec"]["template"]["spec"]["containers"]
    assert {variable["name"] for container in containers for variable in container["env"]} <= set(
        variables()
    )


def test_the_image_sets_only_declared_variables_beside_pythons_and_pips_own() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    names = {
        name
        for line in dockerfile.splitlines()
        if line.startswith("ENV ")
        for name in re.findall(r"([A-Z_][A-Z0-9_]*)=", line)
    }
    assert "NUMBA_CPU_NAME" in names
    assert {
        name for name in names if name != "PATH" and not name.startswith(("PYTHON", "PIP_"))
    } <= set(variables())


def test_the_operations_guide_shows_the_declaration() -> None:
    guide = (ROOT / "docs" / "OPERATIONS.md").read_text()
    shown = guide.split("<!-- settings:begin -->\n", 1)[1].split("<!-- settings:end -->", 1)[0]
    assert shown == markdown_table(), "regenerate it: python -m service.ops.environment --markdown"


def test_the_table_has_a_row_a_variable_in_the_declarations_order() -> None:
    rows = markdown_table().splitlines()[2:]
    assert [row.split("`")[1] for row in rows] == variables()


def test_the_command_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--markdown"]) == 0
    assert capsys.readouterr().out == markdown_table()


def test_the_command_checks_an_environment_in_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "service.ops.environment"],
        env={**os.environ, "SEARCH_SLOTS": "none"},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert (result.returncode, result.stderr) == (
        1,
        "bestmove: SEARCH_SLOTS must be a whole number, not 'none'\n",
    )

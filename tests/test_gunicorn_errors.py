"""The one adapter to gunicorn's inside: it fails loudly, never silently, when gunicorn changes.

The raw-HTTP entries of the hostile corpus show it working through a real server; these
tests pin what it relies on.
"""

from __future__ import annotations

import inspect
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from gunicorn import util as gunicorn_util
from gunicorn.workers import base

from service.ops import gunicorn_errors
from tests.helpers import search

ROOT = Path(__file__).resolve().parent.parent


def test_gunicorn_still_writes_its_own_errors_through_the_replaced_function() -> None:
    """The worker's error handler calls util.write_error with the four arguments replaced."""
    source = inspect.getsource(base.Worker.handle_error)
    assert "util.write_error(client, status_int, reason, mesg)" in source


def test_the_replaced_function_has_the_signature_the_adapter_was_written_for() -> None:
    original = inspect.signature(gunicorn_errors.write_problem)
    assert str(original) == "(sock: 'Any', status_int: 'int', reason: 'str', mesg: 'str') -> 'None'"
    assert list(original.parameters) == ["sock", "status_int", "reason", "mesg"]
    assert gunicorn_errors.REPLACED_SIGNATURE == "(sock, status_int, reason, mesg)"


def test_install_refuses_a_gunicorn_whose_error_writer_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def write_error(sock: object, status: int, reason: str, mesg: str, headers: object) -> None:
        """A future gunicorn's error writer, with another signature."""

    monkeypatch.setattr(gunicorn_util, "write_error", write_error)
    with pytest.raises(gunicorn_errors.UnsupportedGunicorn, match="check the adapter"):
        gunicorn_errors.install()
    assert gunicorn_util.write_error is write_error


def test_install_replaces_the_writer_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gunicorn_util, "write_error", gunicorn_util.write_error)
    gunicorn_errors.install()
    assert gunicorn_util.write_error is gunicorn_errors.write_problem
    gunicorn_errors.install()
    assert gunicorn_util.write_error is gunicorn_errors.write_problem


def test_the_installed_gunicorn_is_in_the_pinned_tested_range() -> None:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (pin,) = [spec for spec in dependencies if spec.startswith("gunicorn")]
    lowest, below = search(r"^gunicorn>=([\d.]+),<([\d.]+)$", pin).groups()
    installed = tuple(int(part) for part in version("gunicorn").split("."))
    assert tuple(int(part) for part in lowest.split(".")) <= installed
    assert installed < tuple(int(part) for part in below.split("."))

"""The service's settings, read from the environment once, where the process starts."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from service.api.settings import (
    DEFAULT_ANSWER_CACHE_BYTES,
    DEFAULT_BUDGET_MS,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_BUDGET_MS,
    AppSettings,
    cores,
)

DEFAULT_PORT = 8000
MEBIBYTE = 1024 * 1024
#: The most an operator may let one search take: well inside gunicorn's worker timeout.
LONGEST_BUDGET_MS = 20_000
#: Where gunicorn's workers share their metrics; prometheus_client reads it on import.
METRICS_DIR_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


class SettingsError(ValueError):
    """Raised for an environment variable that does not hold a usable value."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What an operator tunes without changing code: the app's settings and the process's."""

    app: AppSettings = field(default_factory=AppSettings)
    access_log: bool = True
    #: Set (by `python -m service`) when gunicorn's workers share metrics through files.
    metrics_dir: Path | None = None
    #: Where the solved tables are kept (prepared on the first start, then only opened);
    #: None solves every game in memory when the service is created, for development.
    tables_dir: Path | None = None
    #: Set (by `python -m service`) when gunicorn's workers share their search slots there.
    search_slots_dir: Path | None = None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Settings:
        """Read the settings from environment variables, falling back to the defaults."""
        max_budget_ms = whole_number(
            environ, "SEARCH_MAX_BUDGET_MS", DEFAULT_MAX_BUDGET_MS, maximum=LONGEST_BUDGET_MS
        )
        return cls(
            app=AppSettings(
                max_body_bytes=whole_number(
                    environ,
                    "MAX_BODY_BYTES",
                    DEFAULT_MAX_BODY_BYTES,
                    maximum=DEFAULT_MAX_BODY_BYTES,
                ),
                cors_origins=origins(environ, "CORS_ORIGINS"),
                answer_cache_bytes=whole_number(
                    environ, "ANSWER_CACHE_MB", DEFAULT_ANSWER_CACHE_BYTES // MEBIBYTE, minimum=0
                )
                * MEBIBYTE,
                default_budget_ms=whole_number(
                    environ,
                    "SEARCH_BUDGET_MS",
                    min(DEFAULT_BUDGET_MS, max_budget_ms),
                    maximum=max_budget_ms,
                ),
                max_budget_ms=max_budget_ms,
                search_slots=whole_number(environ, "SEARCH_SLOTS", cores()),
            ),
            access_log=boolean(environ, "ACCESS_LOG", default=True),
            metrics_dir=Path(directory)
            if (directory := _text(environ, METRICS_DIR_VARIABLE))
            else None,
            tables_dir=Path(tables)
            if (tables := _text(environ, "TABLES_DIR"))
            else (default_tables_dir(environ)),
        )


def default_tables_dir(environ: Mapping[str, str]) -> Path:
    """Return the user's cache directory for the tables: $XDG_CACHE_HOME, else ~/.cache."""
    cache = environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(cache) if cache else Path.home() / ".cache") / "bestmove" / "tables"


def _text(environ: Mapping[str, str], name: str) -> str:
    return environ.get(name, "").strip()


def whole_number(
    environ: Mapping[str, str],
    name: str,
    default: int,
    *,
    minimum: int = 1,
    maximum: int | None = None,
) -> int:
    """Return the environment variable `name` as a whole number, or `default` when unset."""
    text = _text(environ, name)
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise SettingsError(f"{name} must be a whole number, not {text!r}") from None
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
        raise SettingsError(f"{name} must be {bound}, not {value}")
    return value


def boolean(environ: Mapping[str, str], name: str, *, default: bool) -> bool:
    """Return the environment variable `name` as true or false, or `default` when unset."""
    text = _text(environ, name).lower()
    if not text:
        return default
    if text in TRUE_WORDS | FALSE_WORDS:
        return text in TRUE_WORDS
    raise SettingsError(f"{name} must be true or false, not {text!r}")


def choice(environ: Mapping[str, str], name: str, default: str, choices: Collection[str]) -> str:
    """Return the environment variable `name` if it is one of `choices`, or `default` when unset."""
    text = _text(environ, name)
    if not text:
        return default
    if text not in choices:
        raise SettingsError(f"{name} must be one of {', '.join(sorted(choices))}, not {text!r}")
    return text


def origins(environ: Mapping[str, str], name: str) -> tuple[str, ...]:
    """Return a comma-separated list of browser origins, or ("*",) when unset."""
    listed = tuple(origin.strip() for origin in _text(environ, name).split(",") if origin.strip())
    for origin in listed:
        if origin != "*" and not origin.startswith(("http://", "https://")):
            raise SettingsError(f"{name} lists origins like https://example.com, not {origin!r}")
    return listed or ("*",)

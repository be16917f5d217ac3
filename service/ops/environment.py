"""Every environment variable the service reads, declared once and read once, where the
process starts (`python -m service`, its health probe).

`Environment` is the declaration: a field per variable, with its type, default, bounds and
what it does. Nothing else in the service reads the process's environment; the variables
its libraries read themselves (numba's cache, prometheus_client's directory) are declared
here too, and `hand_over` gives them back the directories the process prepared.
`python -m service.ops.environment --markdown` prints the declaration as the table of
docs/OPERATIONS.md; without arguments it prints what this environment sets.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import ErrorDetails, PydanticCustomError

from service.api.app_settings import (
    DEFAULT_ANSWER_CACHE_BYTES,
    DEFAULT_BUDGET_MS,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_BUDGET_MS,
    AppSettings,
    cores,
)

MEBIBYTE = 1024 * 1024
#: The most an operator may let one search take (and the drain after SIGTERM must be longer).
LONGEST_BUDGET_MS = 20_000
#: The most threads one search may be given: past the cores of any machine it would run on.
MOST_SEARCH_THREADS = 64
#: Variables the service's libraries read themselves, on import: numba and prometheus_client.
JIT_CACHE_VARIABLE = "NUMBA_CACHE_DIR"
METRICS_DIR_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"


class SettingsError(ValueError):
    """Raised for an environment variable that does not hold a usable value."""


class Environment(BaseModel):
    """The environment variables the service reads: what each does, its default and bounds.

    A field's `shown_default` and `allowed` say in words, for the table, what its type and
    default cannot say.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    port: int = Field(
        default=8000, alias="PORT", ge=1, le=65535, description="the port to listen on"
    )
    host: str = Field(
        default="0.0.0.0",
        alias="HOST",
        description="the address to listen on (`::` for IPv6)",
        json_schema_extra={"allowed": "a host name or address"},
    )
    web_concurrency: int = Field(
        default=2,
        alias="WEB_CONCURRENCY",
        ge=1,
        description="gunicorn worker processes (gunicorn's own convention); about one per CPU",
    )
    gunicorn_worker_class: Literal["handoff", "gthread"] = Field(
        default="handoff",
        alias="GUNICORN_WORKER_CLASS",
        description="gunicorn's kind of worker. `handoff`: the thread that accepts a "
        "connection answers it, as a sync worker does, and hands the accepting to another "
        "thread while a request searches or answers a batch; like a sync worker it reads one "
        "request at a time, so serve it behind a proxy that buffers requests (any ingress "
        "does). `gthread`: every request is handed to a thread, so a slow client holds no "
        "other up; tables answer more slowly. Both keep health checks answered while "
        "searches run",
    )
    gunicorn_threads: int = Field(
        default=4,
        alias="GUNICORN_THREADS",
        ge=1,
        description="threads per worker: while one searches or answers a batch, the others "
        "answer tables and probes",
    )
    gunicorn_timeout: int = Field(
        default=30,
        alias="GUNICORN_TIMEOUT",
        ge=1,
        description="seconds a worker may be silent before it is restarted",
    )
    gunicorn_graceful_timeout: int = Field(
        default=20,
        alias="GUNICORN_GRACEFUL_TIMEOUT",
        ge=1,
        description="seconds to finish requests in flight after SIGTERM",
    )
    gunicorn_keepalive: int = Field(
        default=0,
        alias="GUNICORN_KEEPALIVE",
        ge=0,
        description="seconds to wait for the next request on a connection (`gthread`); `0` "
        "closes it after each answer, so every request may go to any worker (a kept-alive "
        "connection stays with one worker for good, and a burst of clients can crowd one "
        "worker while the other idles)",
    )
    gunicorn_max_requests: int = Field(
        default=100_000,
        alias="GUNICORN_MAX_REQUESTS",
        ge=0,
        description="requests after which a worker is replaced (`0`: never)",
    )
    gunicorn_max_requests_jitter: int = Field(
        default=10_000,
        alias="GUNICORN_MAX_REQUESTS_JITTER",
        ge=0,
        description="a random extra for each worker, so that they are not all replaced at once",
    )
    gunicorn_preload: bool = Field(
        default=True,
        alias="GUNICORN_PRELOAD",
        description="build the app once in the master before forking (the tables are prepared "
        "in the master either way)",
    )
    log_level: Literal["debug", "info", "warning", "error", "critical"] = Field(
        default="info", alias="LOG_LEVEL", description="gunicorn's own log on stderr"
    )
    access_log: bool = Field(
        default=True,
        alias="ACCESS_LOG",
        description="one JSON line per request on stdout",
    )
    max_body_bytes: int = Field(
        default=DEFAULT_MAX_BODY_BYTES,
        alias="MAX_BODY_BYTES",
        ge=1,
        le=DEFAULT_MAX_BODY_BYTES,
        description="the largest request body accepted, at most 1 MiB",
    )
    cors_origins: tuple[str, ...] = Field(
        default=("*",),
        alias="CORS_ORIGINS",
        description="the browser origins allowed to call the API",
        json_schema_extra={
            "shown_default": "`*`",
            "allowed": "origins, comma-separated (`https://a.example,https://b.example`)",
        },
    )
    # Before SEARCH_BUDGET_MS, which is checked against it.
    search_max_budget_ms: int = Field(
        default=DEFAULT_MAX_BUDGET_MS,
        alias="SEARCH_MAX_BUDGET_MS",
        ge=1,
        le=LONGEST_BUDGET_MS,
        description="the most `budget_ms` a request may ask for, and a batch's total; under "
        "`GUNICORN_GRACEFUL_TIMEOUT`, so that a search in flight at SIGTERM finishes",
    )
    search_budget_ms: int | None = Field(
        default=None,
        alias="SEARCH_BUDGET_MS",
        ge=1,
        description="a search's budget when a request names none",
        json_schema_extra={
            "shown_default": f"`{DEFAULT_BUDGET_MS}`, or `SEARCH_MAX_BUDGET_MS` if lower",
            "allowed": "1 to `SEARCH_MAX_BUDGET_MS`",
        },
    )
    search_slots: int = Field(
        default_factory=cores,
        alias="SEARCH_SLOTS",
        ge=1,
        description="how many searches run at once, across all workers; one more is refused "
        "with 503 `busy`. In a container limited to fewer CPUs than the node has, set it to "
        "the limit",
        json_schema_extra={"shown_default": "the CPUs this process may use"},
    )
    search_threads: int = Field(
        default_factory=cores,
        alias="SEARCH_THREADS",
        ge=1,
        le=MOST_SEARCH_THREADS,
        description="the most threads one search uses: a search that starts while other slots "
        "are free also searches on their cores, up to this many threads in all (without "
        "holding those slots: a search that starts later still runs)",
        json_schema_extra={"shown_default": "the CPUs this process may use"},
    )
    answer_cache_mb: int = Field(
        default=DEFAULT_ANSWER_CACHE_BYTES // MEBIBYTE,
        alias="ANSWER_CACHE_MB",
        ge=0,
        description="what each worker's cache of perfect answers and analyses may hold, in MiB "
        "(`0`: no cache); least recently used answers go first",
    )
    prometheus_multiproc_dir: Path | None = Field(
        default=None,
        alias="PROMETHEUS_MULTIPROC_DIR",
        description="where the workers share their metrics; emptied at start. The temporary "
        "directory is removed when the server stops; one you name is kept",
        json_schema_extra={
            "shown_default": "a new temporary directory",
            "allowed": "a directory",
        },
    )
    tables_dir: Path | None = Field(
        default=None,
        alias="TABLES_DIR",
        description="where the solved tables of the 100 games are kept: opened read-only at "
        "start. The first start of a fresh install solves and writes those missing, in the "
        "master process before any worker starts (about 15 s, one log line each); processes "
        "sharing the directory take a lock, so each game is solved once. "
        "`python -m service.game.store DIRECTORY` does it ahead of time; the image ships them "
        "prepared",
        json_schema_extra={
            "shown_default": "`$XDG_CACHE_HOME/bestmove/tables`",
            "allowed": "a directory",
        },
    )
    numba_cache_dir: Path | None = Field(
        default=None,
        alias="NUMBA_CACHE_DIR",
        description="numba's own variable: where the compiled search is cached. Without a "
        "cache the first search of a process compiles it (about two minutes, before the server "
        "is ready, one log line). If the directory is not writable (numba opens a cache only "
        "where it may write) `python -m service` uses a copy of it under the temporary "
        "directory, removed when it stops. The image ships it prepared "
        "(`python -m service.game.warmup` does it ahead of time)",
        json_schema_extra={
            "shown_default": "next to the source (`service/game/compiled/__pycache__`)",
            "allowed": "a directory",
        },
    )
    numba_cpu_name: str | None = Field(
        default=None,
        alias="NUMBA_CPU_NAME",
        description="numba's own variable: the processor the search is compiled for, and so "
        "which cached compilation fits. The image sets `generic`, measured as fast as the "
        "host's own model, so that the cache it prepared at build serves any x86-64 machine",
        json_schema_extra={"shown_default": "this machine's processor", "allowed": "a name"},
    )
    malloc_arena_max: int = Field(
        default=2,
        alias="MALLOC_ARENA_MAX",
        ge=1,
        description="glibc's own variable: how many memory pools (arenas) the threads of a "
        "process share; `python -m service` applies it as it starts (a C library other than "
        "glibc ignores it). glibc's default, 8 a core, lets each thread keep the memory it "
        "freed: three large batches and four long searches left the server 59 MB bigger for "
        "good, 40 MB with 2. Besides, a `handoff` worker's thread gives the allocator's free "
        "pages back to the system after each search or batch, before it waits its turn (on "
        "boards to 20x20 that took the growth from 96-128 MB to 51-58 MB, with fewer games' "
        "geometries kept)",
    )
    xdg_cache_home: Path | None = Field(
        default=None,
        alias="XDG_CACHE_HOME",
        description="the user's cache directory, under which `TABLES_DIR` defaults",
        json_schema_extra={"shown_default": "`~/.cache`", "allowed": "a directory"},
    )

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        listed = tuple(origin.strip() for origin in value.split(",") if origin.strip())
        for origin in listed:
            if origin != "*" and not origin.startswith(("http://", "https://")):
                raise PydanticCustomError(
                    "origin",
                    "lists origins like https://example.com, not {origin}",
                    {"origin": repr(origin)},
                )
        return listed or ("*",)

    @field_validator("search_max_budget_ms")
    @classmethod
    def _within_the_drain(cls, value: int, info: ValidationInfo) -> int:
        # The worker's heartbeat goes on while a search runs, so GUNICORN_TIMEOUT never cuts
        # one short; the drain after SIGTERM does, if a search may outlast it.
        drain_seconds = info.data.get("gunicorn_graceful_timeout")
        if drain_seconds is not None and value >= drain_seconds * 1000:
            raise PydanticCustomError(
                "outlasts_the_drain",
                "must be under GUNICORN_GRACEFUL_TIMEOUT ({seconds} s), not {value}: a search "
                "in flight at SIGTERM would be cut short",
                {"seconds": drain_seconds, "value": value},
            )
        return value

    @field_validator("search_budget_ms")
    @classmethod
    def _within_the_most(cls, value: int | None, info: ValidationInfo) -> int | None:
        most = info.data.get("search_max_budget_ms")
        if value is not None and most is not None and value > most:
            raise PydanticCustomError(
                "less_than_equal", "Input should be less than or equal to {le}", {"le": most}
            )
        return value

    @classmethod
    def read(cls, environ: Mapping[str, str]) -> Environment:
        """Read the declared variables from `environ`; an unset or blank one keeps its default.

        A value that is not usable raises SettingsError, in one line naming each such
        variable and what it must be.
        """
        given = {name: text for name in variables() if (text := environ.get(name, "").strip())}
        try:
            return cls.model_validate(given)
        except ValidationError as error:
            raise SettingsError("; ".join(_sentence(detail) for detail in error.errors())) from None

    @classmethod
    def of_process(cls) -> Environment:
        """Read this process's environment: once, where the process starts."""
        return cls.read(os.environ)

    def settings(
        self, *, metrics_dir: Path | None = None, search_slots_dir: Path | None = None
    ) -> Settings:
        """Return the service's settings, with the directories the server prepared for it."""
        default_budget_ms = (
            self.search_budget_ms
            if self.search_budget_ms is not None
            else min(DEFAULT_BUDGET_MS, self.search_max_budget_ms)
        )
        return Settings(
            app=AppSettings(
                max_body_bytes=self.max_body_bytes,
                cors_origins=self.cors_origins,
                answer_cache_bytes=self.answer_cache_mb * MEBIBYTE,
                default_budget_ms=default_budget_ms,
                max_budget_ms=self.search_max_budget_ms,
                search_slots=self.search_slots,
                search_threads=self.search_threads,
            ),
            access_log=self.access_log,
            metrics_dir=metrics_dir,
            tables_dir=self.tables_dir or self.cache_home() / "bestmove" / "tables",
            search_slots_dir=search_slots_dir,
        )

    def cache_home(self) -> Path:
        """Return the user's cache directory: $XDG_CACHE_HOME, else ~/.cache."""
        return self.xdg_cache_home or Path.home() / ".cache"


@dataclass(frozen=True, slots=True)
class Settings:
    """The whole service's settings, as `create_service` takes them: the app's and the process's."""

    app: AppSettings = field(default_factory=AppSettings)
    access_log: bool = True
    #: Set (by `python -m service`) when gunicorn's workers share metrics through files.
    metrics_dir: Path | None = None
    #: Where the solved tables are kept (prepared on the first start, then only opened);
    #: None solves every game in memory when the service is created, for development.
    tables_dir: Path | None = None
    #: Set (by `python -m service`) when gunicorn's workers share their search slots there.
    search_slots_dir: Path | None = None


def hand_over(
    variable: str, directory: Path, environ: MutableMapping[str, str] = os.environ
) -> None:
    """Give a library, through its own variable, the directory the process prepared for it.

    Must run before the library is imported: numba and prometheus_client read it then.
    """
    environ[variable] = str(directory)


@functools.cache
def declaration() -> dict[str, dict[str, Any]]:
    """Return each variable's declaration, by name, in order: its JSON Schema with a description."""
    properties: dict[str, dict[str, Any]] = Environment.model_json_schema()["properties"]
    return properties


def variables() -> list[str]:
    """Return the names of the declared variables, in the declaration's order."""
    return list(declaration())


def markdown_table() -> str:
    """Return the declaration as a Markdown table: variable, default, allowed values, meaning."""
    rows = ["| variable | default | allowed | meaning |", "|---|---|---|---|"]
    rows += [
        f"| `{name}` | {_shown_default(schema)} | {_allowed(schema)} | {schema['description']} |"
        for name, schema in declaration().items()
    ]
    return "\n".join(rows) + "\n"


def _facet(schema: dict[str, Any], key: str) -> Any:
    """Return a facet of a variable's schema, or of the value it takes when it is set."""
    for alternative in [schema, *schema.get("anyOf", [])]:
        if key in alternative:
            return alternative[key]
    return None


def _shown_default(schema: dict[str, Any]) -> str:
    if "shown_default" in schema:
        return str(schema["shown_default"])
    default = schema["default"]
    return f"`{json.dumps(default) if isinstance(default, bool) else default}`"


def _allowed(schema: dict[str, Any]) -> str:
    if "allowed" in schema:
        return str(schema["allowed"])
    if _facet(schema, "type") == "boolean":
        return "`true` or `false`"
    if choices := _facet(schema, "enum"):
        quoted = [f"`{choice}`" for choice in choices]
        return ", ".join(quoted[:-1]) + " or " + quoted[-1]
    least, most = _facet(schema, "minimum"), _facet(schema, "maximum")
    return f"{least} to {most}" if most is not None else f"at least {least}"


def _sentence(error: ErrorDetails) -> str:
    """Say in one sentence which variable is wrong and what it must be."""
    name = str(error["loc"][0])
    schema = declaration()[name]
    given, kind = error["input"], error["type"]
    if kind in {"int_parsing", "int_from_float"}:
        return f"{name} must be a whole number, not {given!r}"
    if kind in {"greater_than_equal", "less_than_equal"}:
        least = _facet(schema, "minimum")
        # A bound set by another variable (SEARCH_MAX_BUDGET_MS) comes with the error.
        most = error.get("ctx", {}).get("le", _facet(schema, "maximum"))
        bound = f"between {least} and {most}" if most is not None else f"at least {least}"
        return f"{name} must be {bound}, not {given}"
    if kind == "bool_parsing":
        return f"{name} must be true or false, not {given!r}"
    if kind == "literal_error":
        return f"{name} must be one of {', '.join(sorted(_facet(schema, 'enum')))}, not {given!r}"
    return f"{name} {error['msg']}"


def main(arguments: Sequence[str] | None = None) -> int:
    """Print the declaration as a Markdown table, or the settings this environment gives."""
    parser = argparse.ArgumentParser(
        prog="python -m service.ops.environment",
        description="The environment variables the service reads.",
    )
    parser.add_argument(
        "--markdown", action="store_true", help="print the table of docs/OPERATIONS.md"
    )
    if parser.parse_args(arguments).markdown:
        sys.stdout.write(markdown_table())
        return 0
    try:
        environment = Environment.of_process()
    except SettingsError as error:
        sys.stderr.write(f"bestmove: {error}\n")
        return 1
    shown = environment.model_dump(mode="json", by_alias=True)
    sys.stdout.write(json.dumps(shown, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

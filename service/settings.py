"""The service's settings, read from the environment once, at start-up."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: The documented upper bound on a request body: far above any real request, far below harm.
DEFAULT_MAX_BODY_BYTES = 1024 * 1024


class SettingsError(ValueError):
    """Raised for an environment variable that does not hold a usable value."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What can be tuned without changing code."""

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Settings:
        """Read the settings from environment variables, falling back to the defaults."""
        return cls(
            max_body_bytes=positive_int(
                environ, "MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES, maximum=DEFAULT_MAX_BODY_BYTES
            )
        )


def positive_int(
    environ: Mapping[str, str], name: str, default: int, *, maximum: int | None = None
) -> int:
    """Return the environment variable `name` as a positive integer, or `default` when unset."""
    text = environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise SettingsError(f"{name} must be a whole number, not {text!r}") from None
    if value < 1 or (maximum is not None and value > maximum):
        bound = f"between 1 and {maximum}" if maximum is not None else "at least 1"
        raise SettingsError(f"{name} must be {bound}, not {value}")
    return value

"""Why the game refuses something: a stable code for programs, a sentence for people."""

from __future__ import annotations

import enum


class Reason(enum.Enum):
    """A closed set of reasons; each member's value is its stable machine-readable code."""

    @property
    def code(self) -> str:
        """Return the stable machine-readable code."""
        return str(self.value)


class Refusal(ValueError):
    """Raised with a reason and a sentence that says what is wrong."""

    def __init__(self, reason: Reason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail

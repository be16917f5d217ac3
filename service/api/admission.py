"""Searches cost CPU for their whole budget: how long each may take, and how many at once.

A game beyond the tables is searched within a budget the request may set, up to a bound
the operator sets. Only a bounded number of searches run at once (by default one per
core, across every worker process); a search beyond that is refused at once with a 503
and Retry-After, never queued, so table answers and health probes are never stuck behind
searches.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Protocol

from service.api.app_settings import DEFAULT_BUDGET_MS, DEFAULT_MAX_BUDGET_MS, cores
from service.api.problems import Problem

#: How long a refused caller should wait: longer than a default search, and a whole second.
RETRY_AFTER_SECONDS = 1

#: Gives back a slot taken by `SearchSlots.try_take`.
Release = Callable[[], None]


class SearchSlots(Protocol):
    """Places for searches running at once; a search takes one or does not run."""

    def try_take(self) -> Release | None:
        """Take a free slot without waiting; return how to give it back, or None if none is."""


class ThreadSlots:
    """Slots for the threads of one process (the development server; one worker)."""

    def __init__(self, count: int) -> None:
        self._free = threading.BoundedSemaphore(count)

    def try_take(self) -> Release | None:
        """Take a slot if one is free."""
        return self._free.release if self._free.acquire(blocking=False) else None


class SearchListener(Protocol):
    """Hears of every search made and every one refused (the metrics)."""

    def searched(self, method: str, seconds: float, depth: int, nodes: int) -> None:
        """Count one search: how it decided, its time, the depth it finished, its nodes."""

    def refused(self, asked: str) -> None:
        """Count one search refused for want of a slot, by what was asked (Asked)."""


class Searching:
    """The budgets a search may have and the slots it runs in, with the listener told."""

    def __init__(
        self,
        default_budget_ms: int,
        max_budget_ms: int,
        slots: SearchSlots,
        listener: SearchListener | None = None,
    ) -> None:
        self.default_budget_ms = default_budget_ms
        self.max_budget_ms = max_budget_ms
        self._slots = slots
        self._listener = listener

    @classmethod
    def with_defaults(cls) -> Searching:
        """Return the shipped budgets, with one slot per core in this process, and no listener."""
        return cls(DEFAULT_BUDGET_MS, DEFAULT_MAX_BUDGET_MS, ThreadSlots(cores()))

    def budget_ms(self, requested: int | None, loc: tuple[str, ...] = ("budget_ms",)) -> int:
        """Return the budget a request asks for, or the default; a Problem if out of range."""
        if requested is None:
            return self.default_budget_ms
        if not 1 <= requested <= self.max_budget_ms:
            detail = f"budget_ms is {requested}, but a search may take 1 to {self.max_budget_ms} ms"
            raise Problem(
                422, "budget_out_of_range", detail, errors=[{"loc": list(loc), "msg": detail}]
            )
        return requested

    def take(self, asked: Asked) -> Release:
        """Take a search slot; raise the 503 Busy problem at once if none is free."""
        release = self._slots.try_take()
        if release is None:
            if self._listener is not None:
                self._listener.refused(asked.value)
            raise busy()
        return release

    def heard(self, method: str, seconds: float, depth: int, nodes: int) -> None:
        """Tell the listener of a search made."""
        if self._listener is not None:
            self._listener.searched(method, seconds, depth, nodes)


class Asked(enum.Enum):
    """What a request that searches asks for."""

    MOVE = "move"
    ANALYSIS = "analysis"
    BATCH = "batch"


class HeldSlot:
    """At most one search slot, taken when first needed, given back when the block ends."""

    def __init__(self, searching: Searching, asked: Asked) -> None:
        self._searching = searching
        self._asked = asked
        self._release: Release | None = None

    def take(self) -> None:
        """Take a slot unless one is held; raise Busy if none is free."""
        if self._release is None:
            self._release = self._searching.take(self._asked)

    def __enter__(self) -> HeldSlot:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._release is not None:
            self._release()
            self._release = None


class Busy(Problem):
    """A search refused because every slot is taken: the whole request is refused."""


def busy() -> Busy:
    """Return the problem for a search refused because every slot is taken."""
    return Busy(
        503,
        "busy",
        "every search slot is taken: answers from the tables go on, but this board needs a "
        f"search; try again in {RETRY_AFTER_SECONDS} s",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )

"""Searches cost CPU for their whole budget: how long each may take, and how many at once.

A game beyond the tables is searched within a budget the request may set, up to a bound
the operator sets. Only a bounded number of searches run at once (by default one per
core, across every worker process); a search beyond that is refused at once with a 503
and a Retry-After of when the soonest slot's search will have spent its budget, never
queued, so table answers and health probes are never stuck behind searches.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import itertools
import math
import threading
import time
from collections.abc import Callable, Iterator
from typing import Protocol

from service.api.app_settings import DEFAULT_BUDGET_MS, DEFAULT_MAX_BUDGET_MS, cores
from service.api.problems import Problem
from service.game.analysis import SearchAnalysis
from service.game.search import SearchResult

#: The least a refused caller is told to wait: Retry-After counts whole seconds.
SHORTEST_RETRY_SECONDS = 1

#: Gives back a slot taken by `SearchSlots.try_take`.
Release = Callable[[], None]


class SearchSlots(Protocol):
    """Places for searches running at once; a search takes one or does not run."""

    def try_take(self, seconds: float) -> Release | None:
        """Take a free slot without waiting, for a search of at most `seconds`; return how to
        give it back, or None if none is free."""

    def free_in(self) -> float:
        """Return in how many seconds the soonest taken slot's search will have spent its budget."""

    def free(self) -> int:
        """Return how many slots are free now."""


class ThreadSlots:
    """Slots for the threads of one process (the development server; one worker)."""

    def __init__(self, count: int) -> None:
        self._count = count
        self._lock = threading.Lock()
        #: Each taken slot's token and when its search's budget ends (time.monotonic).
        self._until: dict[int, float] = {}
        self._tokens = itertools.count()

    def try_take(self, seconds: float) -> Release | None:
        """Take a slot if one is free."""
        with self._lock:
            if len(self._until) >= self._count:
                return None
            token = next(self._tokens)
            self._until[token] = time.monotonic() + seconds
        return functools.partial(self._give_back, token)

    def free_in(self) -> float:
        """Return when the soonest taken slot's budget ends; 0 if a slot is free."""
        with self._lock:
            if len(self._until) < self._count:
                return 0.0
            return max(0.0, min(self._until.values()) - time.monotonic())

    def free(self) -> int:
        """Return how many slots no search holds."""
        with self._lock:
            return self._count - len(self._until)

    def _give_back(self, token: int) -> None:
        with self._lock:
            del self._until[token]


class SearchListener(Protocol):
    """Hears of every search made and every one refused (the metrics)."""

    def searched(self, method: str, seconds: float, depth: int, nodes: int) -> None:
        """Count one search: how it decided, its time, the depth it finished, its nodes."""

    def refused(self, asked: str) -> None:
        """Count one search refused for want of a slot, by what was asked (Asked)."""


class Admission:
    """What a search may take: its budget, within the operator's bound, a slot, taken
    before any work or refused at once, and the threads it may search with (the cores of
    the slots free as it starts, up to `search_threads`); the listener told of searches
    made and refused, and `before_search` called once a slot is taken (the server's
    step-aside: a search takes long)."""

    def __init__(
        self,
        default_budget_ms: int,
        max_budget_ms: int,
        slots: SearchSlots,
        listener: SearchListener | None = None,
        before_search: Callable[[], None] | None = None,
        *,
        search_threads: int = 1,
    ) -> None:
        self.default_budget_ms = default_budget_ms
        self.max_budget_ms = max_budget_ms
        self.search_threads = search_threads
        self._slots = slots
        self._listener = listener
        self._before_search = before_search

    @classmethod
    def with_defaults(cls) -> Admission:
        """Return the shipped budgets, with one slot per core in this process, and no listener."""
        return cls(
            DEFAULT_BUDGET_MS, DEFAULT_MAX_BUDGET_MS, ThreadSlots(cores()), search_threads=cores()
        )

    def budget_ms(self, requested: int | None) -> int:
        """Return the budget a request asks for, or the default; a Problem if out of range."""
        if requested is None:
            return self.default_budget_ms
        if not 1 <= requested <= self.max_budget_ms:
            detail = f"budget_ms is {requested}, but a search may take 1 to {self.max_budget_ms} ms"
            raise Problem(
                422, "budget_out_of_range", detail, errors=[{"loc": ["budget_ms"], "msg": detail}]
            )
        return requested

    def slot(
        self, asked: Asked, budget_ms: int, *, searching: bool = True
    ) -> contextlib.AbstractContextManager[int]:
        """Hold a search slot for searches of `budget_ms` in all, if answering searches, and
        give the threads they may search with: this slot's and the other free slots', up to
        `search_threads` (1 if not searching). Raise the 503 Busy problem at once if no slot
        is free, saying when the soonest should be."""
        return self._held(asked, budget_ms) if searching else contextlib.nullcontext(1)

    @contextlib.contextmanager
    def _held(self, asked: Asked, budget_ms: int) -> Iterator[int]:
        release = self._slots.try_take(budget_ms / 1000)
        if release is None:
            if self._listener is not None:
                self._listener.refused(asked.value)
            raise busy(self._slots.free_in())
        try:
            if self._before_search is not None:
                self._before_search()
            # The other free slots' cores are idle: the search uses them without holding
            # them, so a search that starts meanwhile is not refused (they share the cores
            # until this one's budget ends). One thread asks nothing of the slots.
            threads = self.search_threads
            yield 1 if threads == 1 else min(threads, 1 + self._slots.free())
        finally:
            release()

    def heard(self, found: SearchResult | SearchAnalysis | None) -> None:
        """Tell the listener of the search an answer made, if it made one."""
        if found is not None and self._listener is not None:
            self._listener.searched(found.method.value, found.seconds, found.depth, found.nodes)


class Asked(enum.Enum):
    """What a request that searches asks for."""

    MOVE = "move"
    ANALYSIS = "analysis"
    BATCH = "batch"
    SWAP2 = "swap2"


class Busy(Problem):
    """A search refused because every slot is taken: the whole request is refused."""


def busy(free_in: float) -> Busy:
    """Return the problem for a search refused because every slot is taken; the soonest
    should be free in `free_in` seconds."""
    retry_after = max(SHORTEST_RETRY_SECONDS, math.ceil(free_in))
    return Busy(
        503,
        "busy",
        "every search slot is taken: answers from the tables go on, but this board needs a "
        f"search; try again in {retry_after} s",
        headers={"Retry-After": str(retry_after)},
    )


class BatchBudget:
    """What a batch's searches may take together: at most the maximum budget of one search,
    and one deadline they all share, counted from when the batch's checking began."""

    def __init__(self, total_ms: int) -> None:
        self._total_ms = total_ms
        self._spent_ms = 0
        # Checking a thousand items takes a tenth of a second: it counts against the budgets.
        self._begun = time.monotonic()
        self._deadline = 0.0
        self._searches_left = 0

    @property
    def spent_ms(self) -> int:
        """Return what the batch's searches take together, in milliseconds."""
        return self._spent_ms

    def start(self) -> None:
        """Fix the batch's deadline: its searches end within what they take together, from
        when its checking began."""
        self._deadline = self._begun + self._spent_ms / 1000

    def left_for(self, budget_ms: int) -> int:
        """Return the next search's budget: what it asked for, cut to what is left before the
        deadline less a millisecond for each search after it (at least 1 ms: a search always
        answers a move)."""
        # The searches after this one are kept their shortest search, so that the batch's
        # last items do not each take a millisecond past the deadline.
        self._searches_left = max(0, self._searches_left - 1)
        left_ms = int((self._deadline - time.monotonic()) * 1000) - self._searches_left
        return max(1, min(budget_ms, left_ms))

    def spend(self, budget_ms: int) -> None:
        """Count an item's budget; raise the `batch_budget_exceeded` problem if it would not fit."""
        if self._spent_ms + budget_ms > self._total_ms:
            detail = (
                f"this item's search would take the batch's searches to "
                f"{self._spent_ms + budget_ms} ms, over the {self._total_ms} ms a batch may "
                "search for: send it in another batch"
            )
            raise Problem(
                422,
                "batch_budget_exceeded",
                detail,
                errors=[{"loc": ["budget_ms"], "msg": detail}],
            )
        self._spent_ms += budget_ms
        self._searches_left += 1

"""Prometheus metrics, correct across gunicorn's worker processes."""

from __future__ import annotations

from pathlib import Path

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

EXPOSITION_MEDIA_TYPE = CONTENT_TYPE_LATEST

#: Answers take well under a millisecond; the buckets resolve that and still catch a stall.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 2.5)
#: A search takes up to its budget: 250 ms by default, at most 5 s unless an operator says.
SEARCH_SECONDS_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.3, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0)
#: The plies a search finishes, and the positions it visits.
SEARCH_DEPTH_BUCKETS = (0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24)
SEARCH_NODES_BUCKETS = (10, 100, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000)


class Metrics:
    """The service's metrics, in a registry of their own so that apps never share state.

    The latency histogram's `_count` is the request count, so there is no separate counter.
    With `multiprocess_dir` (gunicorn's workers), prometheus_client keeps the values in
    files there, as it decided on import from PROMETHEUS_MULTIPROC_DIR.
    """

    def __init__(self, multiprocess_dir: Path | None = None) -> None:
        self.multiprocess_dir = multiprocess_dir
        self.registry = CollectorRegistry()
        self.latency = Histogram(
            "bestmove_http_request_duration_seconds",
            "Time to answer an HTTP request, by endpoint, method and status; _count counts them.",
            ["endpoint", "method", "status"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.moves = Counter(
            "bestmove_moves",
            "Answers to move requests, by the mover's outcome under perfect play after the move "
            "(game_over: the board was already finished; unknown: a search did not prove it).",
            ["outcome"],
            registry=self.registry,
        )
        self.search_seconds = Histogram(
            "bestmove_search_duration_seconds",
            "Time a search took, by the method that decided its answer; _count counts searches.",
            ["method"],
            buckets=SEARCH_SECONDS_BUCKETS,
            registry=self.registry,
        )
        self.search_depth = Histogram(
            "bestmove_search_depth_plies",
            "The plies of the last depth a search finished, by method.",
            ["method"],
            buckets=SEARCH_DEPTH_BUCKETS,
            registry=self.registry,
        )
        self.search_nodes = Histogram(
            "bestmove_search_nodes",
            "The positions a search visited, by method.",
            ["method"],
            buckets=SEARCH_NODES_BUCKETS,
            registry=self.registry,
        )
        self.search_refusals = Counter(
            "bestmove_search_refusals",
            "Searches refused with 503 busy because every search slot was taken, by what was "
            "asked: a move, an analysis, a batch or a Swap2 decision.",
            ["request"],
            registry=self.registry,
        )
        # Looking a labelled series up costs more than updating it, so each is kept at hand
        # once used; made on first use, in the worker, so the master writes no metrics file.
        self._latency_series: dict[tuple[str, str, int], Histogram] = {}
        self._move_series: dict[str, Counter] = {}

    def observe_request(self, endpoint: str, method: str, status: int, seconds: float) -> None:
        """Count one answered request and its duration."""
        key = (endpoint, method, status)
        series = self._latency_series.get(key)
        if series is None:
            series = self._latency_series[key] = self.latency.labels(endpoint, method, str(status))
        series.observe(seconds)

    def count_move(self, outcome: str) -> None:
        """Count one answer by the mover's outcome: win, draw, loss, unknown or game_over."""
        series = self._move_series.get(outcome)
        if series is None:
            series = self._move_series[outcome] = self.moves.labels(outcome)
        series.inc()

    def searched(self, method: str, seconds: float, depth: int, nodes: int) -> None:
        """Count one search: how it decided, its time, the depth it finished, its nodes."""
        self.search_seconds.labels(method).observe(seconds)
        self.search_depth.labels(method).observe(depth)
        self.search_nodes.labels(method).observe(nodes)

    def refused(self, asked: str) -> None:
        """Count one search refused for want of a slot, by what was asked."""
        self.search_refusals.labels(asked).inc()

    def exposition(self) -> bytes:
        """Return every metric in Prometheus text format, summed over all worker processes."""
        if self.multiprocess_dir is None:
            return generate_latest(self.registry)
        # Each worker writes its own file; a fresh registry reads them all at scrape time.
        combined = CollectorRegistry()
        MultiProcessCollector(  # type: ignore[no-untyped-call]  # prometheus_client: unannotated
            combined, path=str(self.multiprocess_dir)
        )
        return generate_latest(combined)

"""The worker: a sync worker's speed for tables, and threads for the requests that take long.

gunicorn's sync worker answers each connection in the thread that accepted it: no hand-over
between threads and no event loop, the cheapest way to answer from a table. But a sync
worker that searches answers nothing else, health probes included, and gthread pays a
hand-over between threads on every request to avoid that (measured: 0.65 to 0.88 of the
floor's 3x3 throughput, p99 2.4 times the floor's; docs/performance-analysis.md).

This worker is a sync worker whose few threads take turns (the leader/followers pattern):
one thread, the leader, accepts a connection and answers it itself; a request that will
take long (a search, a batch) calls the step-aside hook the worker puts in its environ
(service.api.long_work), and a waiting thread becomes the leader while this one finishes
its request, then waits for its turn. So the table path costs what a sync worker's does,
and a search never stops the worker from answering. With no thread waiting, the request
goes on in the leader, which accepts nothing meanwhile (the other workers do), as a sync
worker would. The main thread serves nothing: it is where Python runs signal handlers, so it
stays free to run them at once.
"""

from __future__ import annotations

import errno
import os
import select
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from gunicorn import util
from gunicorn.workers.sync import StopWaiting, SyncWorker

from service.api.long_work import STEP_ASIDE
from service.ops.allocator import give_back_freed

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

#: Accept errors that only mean another worker took the connection, or its client left.
NOTHING_TO_ACCEPT = frozenset({errno.EAGAIN, errno.EWOULDBLOCK, errno.ECONNABORTED})

#: How often a waiting thread, and the main thread, look whether the worker is stopping.
WAITING_POLL_SECONDS = 1.0


class HandoffWorker(SyncWorker):  # type: ignore[misc]  # gunicorn is untyped
    """A sync worker with `threads` threads taking turns to accept; a long request hands the
    turn on (gunicorn's `worker_class`)."""

    # Set by gunicorn's Worker, which is untyped; this class sets them too.
    wsgi: Callable[[WSGIEnvironment, StartResponse], Iterable[bytes]]
    alive: bool

    def run(self) -> None:
        """Serve until told to stop, then let the requests in flight finish within the grace."""
        for listener in self.sockets:
            listener.setblocking(False)
        self._turns = threading.Condition()
        self._waiting = 0  # threads waiting for a turn
        self._handed = 0  # turns handed on and not yet taken
        self._thread = threading.local()
        app = self.wsgi

        def with_step_aside(environ: WSGIEnvironment, start_response: StartResponse) -> Any:
            environ[STEP_ASIDE] = self.step_aside
            return app(environ, start_response)

        self.wsgi = with_step_aside
        # The main thread serves nothing: Python runs signal handlers only there, and a
        # search in compiled code would hold SIGTERM's (readiness failing, accepting
        # stopping) for its whole budget. It watches for signals and the parent instead.
        serving = [
            threading.Thread(
                target=self._serve, args=(number == 0,), name=f"bestmove-{number}", daemon=True
            )
            for number in range(self.cfg.threads)
        ]
        for thread in serving:
            thread.start()
        while self.alive:
            self._watch()
        # Told to stop: the requests in flight finish within the grace, the heartbeat going
        # on meanwhile so the arbiter does not take a draining worker for a stuck one.
        deadline = time.monotonic() + self.cfg.graceful_timeout
        for thread in serving:
            while thread.is_alive() and time.monotonic() < deadline:
                self.notify()
                thread.join(min(WAITING_POLL_SECONDS, max(0.0, deadline - time.monotonic())))

    def _watch(self) -> None:
        """Wait up to a second for a signal (its handler runs here) or the parent's death."""
        try:
            readable, _, _ = select.select([self.PIPE[0]], [], [], WAITING_POLL_SECONDS)
            if readable:
                os.read(self.PIPE[0], 1)
        except BlockingIOError:
            pass  # the leader read the signal's byte first; the handler has run all the same
        if not self.is_parent_alive():
            self.alive = False

    def step_aside(self) -> None:
        """Hand the turn to accept to a waiting thread, if one waits; this thread finishes
        its request and then waits for a turn."""
        with self._turns:
            if not getattr(self._thread, "leading", False) or self._waiting <= self._handed:
                return
            self._thread.leading = False
            self._handed += 1
            self._turns.notify()

    def _serve(self, leading: bool) -> None:
        """Lead when it is this thread's turn, until the worker stops."""
        try:
            while self.alive:
                if not leading and not self._wait_for_turn():
                    return
                leading = False
                self._lead()
        except Exception:
            # A thread that dies leading would leave nobody accepting: stop the worker, and
            # the arbiter starts another.
            self.log.exception("bestmove: a worker thread failed; stopping the worker")
            self.alive = False

    def _wait_for_turn(self) -> bool:
        """Wait until a turn is handed to this thread; False if the worker stops first."""
        with self._turns:
            self._waiting += 1
            try:
                while self._handed == 0:
                    if not self.alive:
                        return False
                    self._turns.wait(WAITING_POLL_SECONDS)
                self._handed -= 1
                return True
            finally:
                self._waiting -= 1

    def _lead(self) -> None:
        """Accept and answer connections until this thread steps aside or the worker stops."""
        self._thread.leading = True
        while self.alive and self._thread.leading:
            self.notify()
            if self._accept_one():
                continue
            if not self.is_parent_alive():
                self.alive = False
                return
            try:
                self.wait(min(self.timeout or 0.5, WAITING_POLL_SECONDS))
            except StopWaiting:
                self.alive = False
                return
        if self.alive:
            # It stepped aside for long work (a search, a batch): the memory that work freed
            # goes back to the system before this thread waits its turn, off every request's
            # path, so that a worker does not keep each peak for good.
            give_back_freed()

    def _accept_one(self) -> bool:
        """Accept and answer one connection, if one waits; return whether one did."""
        for listener in self.sockets:
            try:
                client, address = listener.accept()
            except OSError as error:
                if error.errno not in NOTHING_TO_ACCEPT:
                    raise
                continue
            client.setblocking(True)
            util.close_on_exec(client)
            self.handle(listener, client, address)
            return True
        return False

"""The watchdog: stops a run that outlasts `--timeout` or outgrows `--max-memory`, from another thread.

A program runs in the thread that called Session.run: the main thread of `dg`, a worker thread of
a notebook kernel or of a grader. While it runs, a watchdog thread waits for the deadline and
reads the process's memory every few milliseconds (memory.py). When either runs out it
raises OutOfTime or OutOfMemory *in the program's thread*, through CPython's
PyThreadState_SetAsyncExc: the exception appears at the next bytecode that thread runs, as Ctrl-C
does, so the statement running is the one the error points at. No signal is involved, so this
works on Windows and in any thread; it fires at most once per run.

What no exception can interrupt is one long call into C: NumPy's matrix product of two 8192×8192
matrices runs 20 seconds without returning to Python. The host's guards split products that
large (guards.py), so no single NumPy call holds on for long, and the rest of DG's ops are
bounded by the size of a tensor. For the `dg` command there is a last resort besides: a host may
pass `overrun`, which the watchdog calls when the program has not stopped GRACE seconds after it
was told to (the CLI prints the located error and exits).

Time at a breakpoint is not the program's: `pause()` stops the clock and `resume()` starts it
again, and they nest (a breakpoint hit by a cell typed at another breakpoint).

A stop can also arrive while the program's thread runs a finalizer (a `__del__`, a weakref
callback, the collector's callbacks): Python reports an exception raised there as "ignored" and
goes on, so the stop would be lost and the run would never end. While it watches, the watchdog
takes those reports (`sys.unraisablehook`), and raises a lost stop again.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from dglang.interpreter.semantics.interrupts import OutOfMemory, OutOfTime, Stopped

from .memory import resident_bytes

# How often the memory is read: as often as the headroom left could fill at FILL_RATE (the rate
# at which a fast machine faults in fresh memory), between these bounds. Far from the limit that
# is ten times a second; each look takes the GIL from the program for a moment (docs/performance.md).
FILL_RATE = 4 << 30  # bytes a second
PERIOD = (0.005, 0.1)  # seconds: the shortest and the longest wait between two looks
GRACE = 1.0  # seconds a program has to stop once told to, before `overrun` is called
AGAIN = 0.05  # seconds between a stop lost in a finalizer and the next one
OVER_THE_LIMIT = 64 << 20  # bytes a run that starts over the memory limit may grow before it is stopped


class Watchdog:
    """Watches one run in the calling thread: `start()` before it, `stop()` after it."""

    def __init__(
        self,
        seconds: float | None,
        max_memory: int | None,
        overrun: Callable[[type[Stopped]], None] | None = None,
    ) -> None:
        self.seconds = seconds
        self.max_memory = max_memory
        self.overrun = overrun
        self.target = threading.get_ident()  # the program's thread
        self.out_of_time = type("OutOfTime", (OutOfTime,), {"seconds": seconds or 0.0})
        self.out_of_memory = type("OutOfMemory", (OutOfMemory,), {"limit": max_memory or 0})
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.running = False
        self.deadline: float | None = None  # time.monotonic() at which the time runs out
        self.left = seconds  # the time left, while the clock is stopped
        self.pauses = 0
        self.ceiling = max_memory or 0  # the memory at which the run is stopped
        self.fired: type[Stopped] | None = None
        self.fired_at = 0.0
        self.lost = False  # the stop was raised inside a finalizer, which ignored it
        self.hook = self._ignored  # one bound method, to know our hook when setting it back
        self.previous_hook: Callable[[Any], Any] | None = None

    # ---- the program's thread -----------------------------------------------------------------
    def start(self) -> None:
        with self.lock:
            self.running = True
            if self.seconds is not None:
                self.deadline = time.monotonic() + self.seconds
            if self.max_memory is not None:
                # A session already over the limit (the variables of an earlier cell) may still
                # run what frees memory or needs little; it is stopped when it grows.
                held = resident_bytes() or 0
                self.ceiling = max(self.max_memory, held + OVER_THE_LIMIT)
            self.previous_hook, sys.unraisablehook = sys.unraisablehook, self.hook
        threading.Thread(target=self._watch, name="dg-watchdog", daemon=True).start()

    def stop(self) -> None:
        """End the watch. A stop sent but not yet raised is taken back, so nothing arrives later."""
        with self.lock:
            if not self.running:
                return
            self.running = False
            if self.fired is not None:
                raise_in(self.target, None)
            self.changed.notify()
            if sys.unraisablehook is self.hook and self.previous_hook is not None:
                sys.unraisablehook = self.previous_hook

    def pause(self) -> None:
        """Stop the clock and the memory checks (a person at a breakpoint's prompt takes their time)."""
        with self.lock:
            fired = self.fired if self.running else None
            if fired is None:
                self.pauses += 1
                if self.pauses == 1 and self.deadline is not None:
                    self.left, self.deadline = max(self.deadline - time.monotonic(), 0.0), None
                return
            raise_in(self.target, None)  # it ran out just now: raise it here, not in the debugger's prompt
            self.running = False
            self.changed.notify()
        raise fired

    def resume(self) -> None:
        with self.lock:
            self.pauses -= 1
            if self.pauses == 0 and self.left is not None and self.seconds is not None:
                self.deadline = time.monotonic() + self.left
            self.changed.notify()

    def _ignored(self, unraisable: Any) -> None:
        """sys.unraisablehook while watching: a stop of this run ignored by a finalizer is raised
        again (by the watchdog's thread, which looks at `lost`); anything else is reported as before."""
        kind = unraisable.exc_type
        if kind is not None and issubclass(kind, (self.out_of_time, self.out_of_memory)):
            self.lost = True
        elif self.previous_hook is not None:
            self.previous_hook(unraisable)

    # ---- the watchdog's thread ----------------------------------------------------------------
    def _watch(self) -> None:
        with self.lock:
            while self.running:
                now = time.monotonic()
                if self.fired is not None:
                    if self.overrun is not None and now - self.fired_at >= GRACE:
                        break
                    if self.lost:
                        self.lost = False
                        raise_in(self.target, self.fired)
                    self.changed.wait(AGAIN)
                    continue
                headroom = None
                if not self.pauses:
                    if self.deadline is not None and now >= self.deadline:
                        self._fire(self.out_of_time, now)
                        continue
                    if self.max_memory is not None:
                        headroom = self.ceiling - (resident_bytes() or 0)
                        if headroom < 0:
                            self._fire(self.out_of_memory, now)
                            continue
                self.changed.wait(self._sleep(now, headroom))
            else:
                return
        if self.overrun is not None and self.fired is not None:
            self.overrun(self.fired)  # the program did not stop: one call into C still runs

    def _sleep(self, now: float, headroom: int | None) -> float | None:
        """How long to wait before the next look (None: until something changes)."""
        if self.pauses:
            return None  # until resumed
        until_deadline = None if self.deadline is None else self.deadline - now
        if headroom is None:
            return until_deadline
        shortest, longest = PERIOD
        period = min(max(headroom / FILL_RATE, shortest), longest)
        return period if until_deadline is None else min(period, until_deadline)

    def _fire(self, stop: type[Stopped], now: float) -> None:
        self.fired, self.fired_at = stop, now
        raise_in(self.target, stop)


def raise_in(thread_id: int, exception: type[BaseException] | None) -> None:
    """Raise `exception` in another thread at its next bytecode (None: take back one not yet raised)."""
    import ctypes  # NumPy has loaded it already

    set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    set_async_exc(ctypes.c_ulong(thread_id), None if exception is None else ctypes.py_object(exception))

"""Running one worker process: start it in a submission's folder, hand it its request, read what it
says (at most so much), and kill it when its wall clock runs out.

Each worker has a process group of its own (on POSIX), so killing it kills anything it started;
its standard output and error are read by threads, so a worker that writes without end can
neither fill the grader's memory (it is killed past the cap) nor block on a full pipe.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from .isolation import Folders, SystemLimits, environment, kill, own_process_group
from .worker import Request

WORKER = [sys.executable, "-P", "-m", "dglang.interpreter.frontends.grading.worker"]
POLL = 0.1  # seconds between looks at a running worker
MAX_ERRORS = 20_000  # bytes of a worker's standard error kept (Python's last words, if it crashes)


class Workers:
    """The worker processes running now, so that Ctrl-C in the grader stops them all, and no new one
    starts after it."""

    def __init__(self) -> None:
        self.running: set[subprocess.Popen[bytes]] = set()
        self.lock = threading.Lock()
        self.stopped = False

    def start(self, command: list[str], **options: Any) -> subprocess.Popen[bytes] | None:
        with self.lock:
            if self.stopped:
                return None
            process = subprocess.Popen(command, **options)
            self.running.add(process)
            return process

    def done(self, process: subprocess.Popen[bytes]) -> None:
        with self.lock:
            self.running.discard(process)

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
            for process in self.running:
                kill(process)


@dataclass
class WorkerRun:
    """What a worker process left: its events, and how it ended."""

    events: list[dict[str, Any]] = field(default_factory=list)
    returncode: int | None = None
    timed_out: bool = False  # the submission's wall clock ran out
    stalled: bool = False  # a step took far longer than its --timeout allows
    flooded: bool = False
    cancelled: bool = False  # never started: the grader was stopping
    errors: str = ""

    @property
    def finished(self) -> bool:
        return any(e["event"] == "done" for e in self.events)

    def stage(self, name: str) -> dict[str, Any] | None:
        return next((e for e in self.events if e["event"] == name), None)

    def tests(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] == "test"]


def run_worker(
    request: Request, folders: Folders, limits: WorkerLimits, user: str | None, workers: Workers
) -> WorkerRun:
    """Run a worker on `request` in the submission's folder until it ends, its wall clock runs out,
    or it goes `limits.stall_seconds` without finishing a step (a run its own --timeout did not stop)."""
    run = WorkerRun()
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    options = own_process_group(user)
    process = workers.start(WORKER, cwd=folders.submission, env=environment(folders), **pipes, **options)
    if process is None:  # the grader is stopping
        run.cancelled = True
        return run
    out, err = Received(), Received()

    def flood() -> None:
        run.flooded = True
        kill(process)

    threads = [
        threading.Thread(target=feed, args=(process.stdin, request.to_json().encode()), daemon=True),
        threading.Thread(target=drain, args=(process.stdout, out, limits.output_cap, flood), daemon=True),
        threading.Thread(target=drain, args=(process.stderr, err, MAX_ERRORS, None), daemon=True),
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + limits.wall_seconds
    try:
        while run.returncode is None:
            now = time.monotonic()
            if now > deadline or now - out.last > limits.stall_seconds:
                run.timed_out, run.stalled = now > deadline, now <= deadline
                kill(process)
                run.returncode = process.wait()
                break
            with contextlib.suppress(subprocess.TimeoutExpired):  # returns as soon as the worker ends
                run.returncode = process.wait(timeout=POLL)
    finally:
        workers.done(process)
    for thread in threads:
        thread.join(timeout=5)
    run.events = parse_events(bytes(out.data))
    run.errors = bytes(err.data).decode("utf-8", "replace")
    return run


@dataclass(frozen=True)
class WorkerLimits:
    wall_seconds: float  # what is left of the submission's wall clock
    stall_seconds: float  # longest wait for the next step's result
    output_cap: int  # bytes of results read


class Received:
    """Bytes read from a pipe, and when the last line ended (a step's result arrived)."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.last = time.monotonic()


def feed(pipe: IO[bytes] | None, data: bytes) -> None:
    try:
        if pipe is not None:
            pipe.write(data)
            pipe.close()
    except OSError:  # the worker died before reading its request: how it died says why
        pass


def drain(pipe: IO[bytes] | None, into: Received, cap: int, over: Callable[[], None] | None) -> None:
    """Read a pipe to its end, keeping at most `cap` bytes; past them call `over` (or drop the rest)."""
    if pipe is None:
        return
    while chunk := pipe.read1(65536):  # type: ignore[attr-defined]
        if len(into.data) + len(chunk) > cap:
            if over is not None:
                over()
                return
            continue
        into.data.extend(chunk)
        if b"\n" in chunk:
            into.last = time.monotonic()


def parse_events(data: bytes) -> list[dict[str, Any]]:
    events = []
    for line in data.split(b"\n"):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and isinstance(event.get("event"), str):
            events.append(event)
    return events


def why_it_ended(run: WorkerRun, limits: WorkerLimits, total_seconds: float, system: SystemLimits) -> str:
    """Why a worker ended before it finished, in a sentence for the student."""
    if run.timed_out:
        return f"the submission ran longer than {total_seconds:g} seconds in all, the grader's limit"
    if run.stalled:
        return f"it went on for {limits.stall_seconds:g} seconds, far past its time limit"
    if run.flooded:
        return "it sent more output than the grader reads"
    memory, cpu_seconds = system.memory_bytes, system.cpu_seconds
    if "MemoryError" in run.errors and memory is not None:
        return f"it ran out of memory (the limit is {memory // 1024**2:,} MB)"
    code = run.returncode
    cpu = getattr(signal, "SIGXCPU", None)
    if code is not None and cpu is not None and code == -cpu and cpu_seconds is not None:
        return f"it used more than {cpu_seconds:g} seconds of CPU time"
    if code == -getattr(signal, "SIGKILL", 9):
        return "the operating system killed it (out of memory or CPU time)"
    if code is not None and code < 0:
        known = -code in {s.value for s in signal.Signals}
        return f"DG crashed ({signal.Signals(-code).name if known else f'signal {-code}'}); this is a bug in DG"
    last = run.errors.strip().splitlines()[-1:] or [""]
    return f"DG stopped unexpectedly (exit code {code}); this is a bug in DG. {last[0]}".strip()


def status_of(run: WorkerRun) -> str:
    if run.timed_out or run.stalled:
        return "timed out"
    if run.flooded:
        return "flooded output"
    return "killed" if run.returncode is not None and run.returncode < 0 else "crashed"

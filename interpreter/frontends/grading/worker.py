"""The process that grades one submission: `python -P -m dglang.interpreter.frontends.grading.worker`.

The grader starts it in the submission's private folder (isolation.py) and writes one request to
its standard input: where the program is, the teacher's tests (their text: the process is never
told where the tests file lives), and the limits. The worker limits itself, then runs the
program, the tests file and each test, and writes one JSON line per step to its standard output
as soon as the step is done, so a process killed halfway still leaves the results of the tests
it finished:

    {"event": "program", "report": null, "output": "...", "seconds": 0.01}
    {"event": "tests_file", "report": null, "output": "", "seconds": 0.0}
    {"event": "test", "name": "test_relu", "passed": true, "report": null, "output": "", "seconds": 0.02}
    {"event": "done"}

`-P` keeps the submission's folder off Python's import path: a `numpy.py` a student ships is never
imported.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from . import isolation

MAX_REQUEST = 100_000_000  # bytes: the tests file and a few numbers


@dataclass(frozen=True)
class Request:
    program: str  # the program's path, relative to the submission's folder (the working folder)
    tests_name: str
    tests_text: str
    tests: list[tuple[str, float, int]]  # name, points, line
    library: list[str] = field(default_factory=list)  # folders of modules the tests and the program may import
    run_limits: dict[str, Any] = field(default_factory=dict)  # max_depth, max_steps, timeout, max_output, max_memory
    system_limits: dict[str, Any] = field(default_factory=dict)  # cpu_seconds, memory_bytes

    def to_json(self) -> str:
        return json.dumps(self.__dict__)

    @staticmethod
    def from_json(text: str) -> Request:
        data = json.loads(text)
        data["tests"] = [tuple(t) for t in data["tests"]]
        return Request(**data)


def main() -> int:
    channel = sys.stdout
    sys.stdout = sys.stderr  # whatever else prints (a warning) must not mix with the results
    request = Request.from_json(sys.stdin.read(MAX_REQUEST))
    isolation.apply(isolation.SystemLimits(**request.system_limits))
    grade(request, channel)
    return 0


def grade(request: Request, channel: TextIO) -> None:
    # Imported after the limits are set: from here on, a student's code is running.
    from dglang.interpreter.host.limits import Limits, default_max_memory

    def run_limits(given: dict[str, Any]) -> Limits:
        memory = given.get("max_memory")  # None: DG's default; 0: none
        return Limits(
            given.get("max_steps"),
            given.get("timeout"),
            given.get("max_output"),
            default_max_memory() if memory is None else memory or None,
        )

    from dglang.interpreter.frontends.sessions import new_session

    from .collecting import Case
    from .running import Runner

    def send(event: str, **fields: Any) -> None:
        channel.write(json.dumps({"event": event, **fields}, ensure_ascii=False) + "\n")
        channel.flush()

    limits = request.run_limits
    program = Path(request.program)
    runner = Runner(
        new_session(
            base_dir=program.resolve().parent,
            max_depth=limits.get("max_depth", 10_000),
            limits=run_limits(limits),
            library=request.library,
            library_variable=False,  # the grader's own environment does not reach the submission
        )
    )
    for event, stage in (
        ("program", lambda: runner.run_submission(program)),
        ("tests_file", lambda: runner.run_tests_file(request.tests_text, request.tests_name)),
    ):
        ran = stage()
        syntax = ran.error is not None and ran.error.is_syntax
        send(event, report=ran.report, output=ran.output, seconds=ran.seconds, syntax=syntax)
        if ran.error is not None:  # the tests cannot run on a program that stopped halfway
            send("done")
            return
    for outcome in runner.run_tests([Case(*test) for test in request.tests]):
        send(
            "test",
            name=outcome.test.name,
            passed=outcome.passed,
            report=outcome.report,
            output=outcome.output,
            seconds=outcome.seconds,
        )
    send("done")


if __name__ == "__main__":
    sys.exit(main())

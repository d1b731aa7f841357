"""How the benchmarks measure: run a DG program's measured part, read peak memory, run in a fresh process.

Every implementation of a workload is a function `f(**sizes) -> Result` in `bench/<workload>.py`.
bench/run.py calls it in a fresh Python process through this file's `main`:

    python bench/measure.py mlp_moons:torch '{"steps": 3000}' 5

which calls `mlp_moons.torch(steps=3000)` five times and prints the results as JSON on the last
line of standard output, or `{"missing": "torch"}` when the reference package is not installed.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
# The line in a bench/*.dg program that splits the untimed setup from the measured part.
MEASURED_FROM_HERE = "# ---- measured from here ----"
# Packages whose absence makes a row say "not installed" instead of failing.
OPTIONAL = ("torch", "micrograd")


@dataclass(frozen=True)
class Result:
    """One run of one implementation: the number the table shows, and values to compare across them."""

    value: float  # seconds, seconds per step, MiB or bytes per node: each workload says which
    check: tuple[float, ...] = ()  # e.g. the final loss: implementations of a workload must agree
    note: str = ""  # shown under the table
    # The processor seconds the value's work took in this process, where the workload measures them
    # (on a shared machine the clock also counts the time other work ran): shown under the table.
    processor: float | None = None


# ---- DG programs ----------------------------------------------------------------------------
def dg_program(name: str, **sizes: int) -> tuple[str, str]:
    """bench/NAME.dg with each `size = N` line set to the given size, split into (setup, measured)."""
    text = (BENCH / f"{name}.dg").read_text(encoding="utf-8")
    for size, value in sizes.items():
        text, count = re.subn(rf"^{size} = \d+", f"{size} = {int(value)}", text, flags=re.MULTILINE)
        if count != 1:
            raise ValueError(f"bench/{name}.dg must have exactly one line `{size} = N`, found {count}")
    setup, marker, measured = text.partition(MEASURED_FROM_HERE)
    if not marker:
        raise ValueError(f"bench/{name}.dg has no line '{MEASURED_FROM_HERE}'")
    # Blank lines for the setup keep the measured part's line numbers those of the file, for errors.
    return setup, "\n" * setup.count("\n") + measured


def run_dg(name: str, static: bool = False, **sizes: int) -> tuple[float, Any]:
    """Run bench/NAME.dg in a fresh Session: the setup untimed, then Session.run of the measured part.
    `static`: the session has the `static` builtin (interpreter/static/).

    Returns the seconds the measured part took and the session (to read its variables).
    """
    seconds, _, session = run_dg_timed(name, static, **sizes)
    return seconds, session


def run_dg_timed(name: str, static: bool = False, **sizes: int) -> tuple[float, float, Any]:
    """run_dg, also returning the processor seconds of the measured part (this process's, which on
    a shared machine are what the work cost; the clock's seconds include the time others ran)."""
    from dglang.interpreter.host.allocator import keep_freed_memory
    from dglang.interpreter.host.session import Session

    keep_freed_memory()  # as `dg` does at start-up (frontends/sessions.py)
    setup, measured = dg_program(name, **sizes)
    session = Session(out=io.StringIO(), base_dir=BENCH)
    if static:
        from dglang.interpreter.static import static_builtins

        static_builtins.install(session)
    session.run(setup, f"bench/{name}.dg")
    start, processor = time.perf_counter(), time.process_time()
    session.run(measured, f"bench/{name}.dg")
    return time.perf_counter() - start, time.process_time() - processor, session


def replayed_steps(session: Any, name: str, seconds: float, processor: float, steps: int) -> tuple[float, float]:
    """Seconds and processor seconds per step of the steps a static function replayed: the time of
    its traces (whose steps ran as the function does, with a tracer listening) left out."""
    from dglang.interpreter.static.static_builtins import static_function

    fn = static_function(session.globals.vars[name])
    replays = max(steps - fn.traces, 1)
    return (seconds - fn.tracing_time) / replays, (processor - fn.tracing_processor) / replays


def item(value: Any) -> float:
    """A one-element tensor of any of the engines (or a plain number) as a float."""
    return float(value.item() if hasattr(value, "item") else value)


# ---- memory -----------------------------------------------------------------------------------
def peak_rss_mib() -> float:
    """The peak resident memory of this process so far, where Python has `resource` (Linux, macOS):
    on Windows the memory rows say so and fail, while the timing rows run."""
    try:
        import resource
    except ModuleNotFoundError:
        raise RuntimeError("peak memory is measured with Python's resource module, which Windows lacks") from None
    # ru_maxrss counts KiB on Linux and bytes on macOS
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)


def current_rss_mib() -> float:
    """The resident memory of this process now (Linux); elsewhere the peak so far stands in for it."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return peak_rss_mib()


# ---- running in a fresh process ---------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """What a fresh process running one implementation reported."""

    results: list[Result]
    missing: str | None = None  # the optional package that is not installed
    error: str | None = None  # the end of its standard error, when it failed


def in_subprocess(
    target: str,
    sizes: dict[str, int],
    repeats: int = 1,
    timeout: float = 1800,
    python: str | None = None,
    env: dict[str, str] | None = None,
) -> Outcome:
    """Run `module:function` from bench/ `repeats` times in a fresh Python process.

    `python`: the interpreter to run it with (a reference's own environment, holding PyTorch);
    by default this one. DG need not be installed there: see `importable_dglang`. `env`: variables
    added to this process's environment (one BLAS thread)."""
    command = [python or sys.executable, str(BENCH / "measure.py"), target, json.dumps(sizes), str(repeats)]
    environment = {**os.environ, **env} if env else None
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, cwd=BENCH.parent, env=environment
        )
    except subprocess.TimeoutExpired:
        return Outcome([], error=f"timed out after {timeout:.0f} s")
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = " | ".join(done.stderr.strip().splitlines()[-3:]) or f"exit code {done.returncode}"
        return Outcome([], error=tail)
    report = json.loads(lines[-1])
    if "missing" in report:
        return Outcome([], missing=report["missing"])
    return Outcome([Result(r["value"], tuple(r["check"]), r["note"], r.get("processor")) for r in report["results"]])


def importable_dglang() -> None:
    """Make `import dglang` find this repository in a Python where DG is not installed (a scratch
    environment holding PyTorch): the references read DG's data and initial weights from the
    engine, which needs only NumPy."""
    if importlib.util.find_spec("dglang") is not None:
        return
    root = BENCH.parent
    spec = importlib.util.spec_from_file_location(
        "dglang", root / "__init__.py", submodule_search_locations=[str(root)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["dglang"] = module
    spec.loader.exec_module(module)


def main(argv: list[str]) -> int:
    target, sizes, repeats = argv[0], json.loads(argv[1]), int(argv[2])
    module_name, function_name = target.split(":")
    sys.path.insert(0, str(BENCH))
    importable_dglang()
    try:
        function = getattr(importlib.import_module(module_name), function_name)
        results = []
        for _ in range(repeats):
            gc.collect()
            results.append(function(**sizes))
    except ModuleNotFoundError as e:
        if e.name not in OPTIONAL:
            raise
        print(json.dumps({"missing": e.name}))
        return 0
    report = [{"value": r.value, "check": list(r.check), "note": r.note, "processor": r.processor} for r in results]
    print(json.dumps({"results": report}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

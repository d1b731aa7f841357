"""Run DG's benchmark suite and print one table: each workload, DG against its references, the targets.

    uv run python bench/run.py                 # everything, 5 repeats, full sizes (a few minutes)
    uv run python bench/run.py --quick         # tiny sizes, one repeat: checks that the suite runs
    uv run python bench/run.py --only mlp-moons --repeats 9

Each repeat of each implementation runs in a fresh Python process (see measure.py), the
implementations of a workload in turn (DG, its references, DG again...); a timing is the median
of the repeats. PyTorch and micrograd rows say "not installed" where those packages do not import.
The exit code is 0 when every row ran and the implementations of each workload agreed on their
results (whether targets are met does not change it), 1 otherwise.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from measure import Outcome, in_subprocess


# ---- the workloads ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Implementation:
    label: str  # as the table shows it
    target: str  # module:function in bench/
    # For a total time that fails at full size (micrograd's recursion): the size to halve until it
    # runs; the time is then scaled up linearly and a note says so.
    shrink: str | None = None
    # Needs a package DG does not depend on (PyTorch, micrograd): runs with --reference-python.
    reference: bool = False


@dataclass(frozen=True)
class Target:
    reference: str | None  # the label of the implementation DG is divided by; None: DG's own value
    at_most: float | None  # None: the ratio is shown, with no target (a floor to compare with)
    stretch: float | None = None


@dataclass(frozen=True)
class Workload:
    name: str
    unit: str  # "s", "MiB" or "B": how values are shown
    size: Callable[[dict[str, int]], str]  # the size column, from the sizes
    full: dict[str, int]
    quick: dict[str, int]
    implementations: list[Implementation]  # DG first
    targets: list[Target]
    repeated: bool = True  # memory is measured once: a repeat in the same process would not start clean
    # NumPy's BLAS and PyTorch both on one thread (OMP_NUM_THREADS=1 in every implementation's
    # process): the references set torch.set_num_threads(1), and on a shared machine BLAS threads
    # wait on each other over small products.
    one_thread: bool = False


DG = "DG"


def dg_pytorch_numpy(module: str) -> list[Implementation]:
    """DG, PyTorch eager and NumPy by hand: `module`'s dg, pytorch and hand_numpy."""
    return [Implementation(DG, f"{module}:dg"), Implementation("PyTorch", f"{module}:pytorch", reference=True),
            Implementation("NumPy by hand", f"{module}:hand_numpy")]  # fmt: skip


ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
WORKLOADS = [
    Workload(
        "mlp-moons", "s", lambda s: f"{s['steps']:,} steps, time per step",
        {"steps": 3000}, {"steps": 20}, dg_pytorch_numpy("mlp_moons"),
        [Target("PyTorch", 0.5), Target("NumPy by hand", 2.5)],
    ),
    Workload(
        "mlp-moons-static", "s", lambda s: f"{s['steps']:,} steps, time per step, tracing included",
        {"steps": 3000}, {"steps": 20},
        [Implementation(DG, "mlp_moons:dg_static"), Implementation("PyTorch", "mlp_moons:pytorch", reference=True),
         Implementation("NumPy by hand", "mlp_moons:hand_numpy")],
        [Target("PyTorch", 0.5), Target("NumPy by hand", 1.5)],
    ),
    Workload(
        "mlp-moons-column", "s", lambda s: f"{s['steps']:,} steps, time per step",
        {"steps": 3000}, {"steps": 20},
        [Implementation(DG, "mlp_moons_column:dg"),
         Implementation("PyTorch", "mlp_moons_column:pytorch", reference=True)],
        [Target("PyTorch", 0.6)],
    ),
    Workload(
        "scalar-chain", "s", lambda s: f"{s['iterations']:,} iterations, forward+backward",
        {"iterations": 100_000}, {"iterations": 200},
        [Implementation(DG, "scalar_chain:dg"), Implementation("PyTorch", "scalar_chain:pytorch", reference=True),
         Implementation("micrograd", "scalar_chain:micrograd_value", shrink="iterations", reference=True)],
        [Target("PyTorch", 0.35), Target("micrograd", 0.5)],
    ),
    Workload(
        "char-rnn", "s", lambda s: f"{s['epochs']:,} epochs of programs/12_char_rnn.dg, time per epoch",
        {"epochs": 101}, {"epochs": 2},
        [Implementation(DG, "char_rnn:dg"), Implementation("PyTorch", "char_rnn:pytorch", reference=True)],
        [Target("PyTorch", 0.6)],
    ),
    Workload(
        "digits-cnn", "s", lambda s: f"{s['steps']:,} steps of programs/20_digits_cnn.dg's CNN, time per step",
        {"steps": 200}, {"steps": 2}, dg_pytorch_numpy("digits_cnn"),
        [Target("PyTorch", 1.0), Target("NumPy by hand", 1.5)], one_thread=True,
    ),
    Workload(
        "tiny-gpt", "s", lambda s: f"{s['steps']:,} steps of programs/18_tiny_gpt.dg's GPT, time per step",
        {"steps": 50, "characters": 200_000}, {"steps": 2, "characters": 5000},
        [Implementation(DG, "tiny_gpt:dg"), Implementation("PyTorch", "tiny_gpt:pytorch", reference=True)],
        [Target("PyTorch", 1.0)], one_thread=True,
    ),
    Workload(
        "digits-cnn-adam", "s",
        lambda s: f"{s['steps']:,} steps of the same CNN, batch {s['batch']}, the lesson's Adam, time per step",
        {"steps": 200, "batch": 32, "adam": 1}, {"steps": 2, "batch": 32, "adam": 1}, dg_pytorch_numpy("digits_cnn"),
        [Target("PyTorch", 1.2), Target("NumPy by hand", None)], one_thread=True,
    ),
    Workload(
        "tiny-gpt-adam", "s", lambda s: f"{s['steps']:,} steps of the same GPT, the lesson's Adam, time per step",
        {"steps": 30, "characters": 200_000, "adam": 1}, {"steps": 2, "characters": 5000, "adam": 1},
        dg_pytorch_numpy("tiny_gpt"), [Target("PyTorch", 1.0), Target("NumPy by hand", None)], one_thread=True,
    ),
    Workload(
        "digits-cnn-adam-static", "s",
        lambda s: f"{s['steps']:,} steps of the same CNN, batch {s['batch']}, Adam, static: time per replayed step",
        {"steps": 200, "batch": 32, "adam": 1}, {"steps": 3, "batch": 32, "adam": 1},
        [Implementation(DG, "digits_cnn:dg_static"), Implementation("PyTorch", "digits_cnn:pytorch", reference=True),
         Implementation("NumPy by hand", "digits_cnn:hand_numpy")],
        [Target("PyTorch", 0.9), Target("NumPy by hand", 1.3)], one_thread=True,
    ),
    Workload(
        "tiny-gpt-adam-static", "s",
        lambda s: f"{s['steps']:,} steps of the same GPT, Adam, static: time per replayed step",
        {"steps": 30, "characters": 200_000, "adam": 1}, {"steps": 3, "characters": 5000, "adam": 1},
        [Implementation(DG, "tiny_gpt:dg_static"), Implementation("PyTorch", "tiny_gpt:pytorch", reference=True),
         Implementation("NumPy by hand", "tiny_gpt:hand_numpy")],
        [Target("PyTorch", 0.75), Target("NumPy by hand", 1.3)], one_thread=True,
    ),
    Workload(
        "big-matmul", "s", lambda s: f"{s['n']}x{s['n']}, 3 products, forward+backward",
        {"n": 1024}, {"n": 64},
        [Implementation(DG, "big_matmul:dg"), Implementation("NumPy by hand", "big_matmul:hand_numpy")],
        [Target("NumPy by hand", 1.1)],
    ),
    Workload(
        "plain-loop", "s", lambda s: f"{s['iterations']:,} iterations, no tensors",
        {"iterations": 1_000_000}, {"iterations": 2000},
        [Implementation(DG, "plain_loop:dg"), Implementation("CPython", "plain_loop:cpython")],
        [Target("CPython", 8.0)],
    ),
    Workload(
        "start-up", "s", lambda s: "dg hello.dg, whole process",
        {}, {},
        [Implementation(DG, "startup:dg_hello"),
         Implementation('python -c "import numpy"', "startup:python_import_numpy")],
        [Target('python -c "import numpy"', 1.3)],
    ),
    Workload(
        "parse", "s", lambda s: f"{s['lines']:,} lines, Session.compile",
        {"lines": 10_000}, {"lines": 300},
        [Implementation(DG, "parse_program:dg_compile")],
        [Target(None, 0.4)],
    ),
    Workload(
        "parse-1mb", "s", lambda s: f"{s['size'] / 1e6:g} MB program, Session.compile",
        {"size": 1_000_000}, {"size": 20_000},
        [Implementation(DG, "parse_program:dg_compile_bytes")],
        [Target(None, 4.0)],
    ),
    Workload(
        "memory: parse-1mb", "MiB", lambda s: f"peak RSS, compiling a {s['size'] / 1e6:g} MB program",
        {"size": 1_000_000}, {"size": 20_000},
        [Implementation(DG, "parse_program:dg_compile_bytes_peak")],
        [Target(None, 200.0)], repeated=False,
    ),
    Workload(
        "memory: training", "MiB", lambda s: f"peak growth, {s['small']:,} -> {s['big']:,} steps",
        {"small": 2000, "big": 20_000}, {"small": 20, "big": 200},
        [Implementation(DG, "memory:dg_training_growth")],
        [Target(None, 4.0)], repeated=False,
    ),
    Workload(
        "memory: no_grad", "MiB", lambda s: f"peak growth, {s['small']:,} -> {s['big']:,} iterations",
        {"small": 100_000, "big": 1_000_000}, {"small": 200, "big": 2000},
        [Implementation(DG, "memory:dg_no_grad_growth")],
        [Target(None, 4.0)], repeated=False,
    ),
    Workload(
        "memory: per node", "B", lambda s: f"{s['nodes']:,}-node chain + grad, peak per node",
        {"nodes": 1_000_000}, {"nodes": 2000},
        [Implementation(DG, "memory:dg_bytes_per_node"),
         Implementation("PyTorch", "memory:pytorch_bytes_per_node", reference=True)],
        [Target("PyTorch", 0.5)], repeated=False,
    ),
]  # fmt: skip


# ---- measuring ----------------------------------------------------------------------------
NOISY = 0.2  # repeats further apart than this fraction of their median get a note


@dataclass
class Measured:
    """One implementation's outcome, reduced to what the table needs."""

    value: float | None = None  # the median, or None
    status: str = ""  # "not installed" or "error" when there is no value
    check: tuple[float, ...] = ()
    notes: list[str] = field(default_factory=list)
    processor: float | None = None  # the median of the repeats' processor times, where measured


def measure_in_turn(
    workload: Workload, sizes: dict[str, int], repeats: int, reference: str | None
) -> dict[str, Measured]:
    """Each implementation's repeats, one fresh process each, the implementations in turn: a
    neighbour's burst of work lasting a few seconds lands on one repeat of each, not on all the
    repeats of one (which one process running them back to back would give it)."""
    outcomes: dict[str, list[Outcome]] = {i.label: [] for i in workload.implementations}
    for _ in range(repeats):
        for implementation in workload.implementations:
            done = outcomes[implementation.label]
            if done and (done[-1].error or done[-1].missing):
                continue  # (said once; a shrinking reference is measured on its own, below)
            python = reference if implementation.reference else None
            env = ONE_THREAD if workload.one_thread else {}
            done.append(in_subprocess(implementation.target, sizes, 1, python=python, env=env))
    measured = {}
    for implementation in workload.implementations:
        done = outcomes[implementation.label]
        if done[-1].error and implementation.shrink:
            measured[implementation.label] = measure(workload, implementation, sizes, repeats, reference)
            continue
        merged = Outcome([r for o in done for r in o.results], error=done[-1].error, missing=done[-1].missing)
        measured[implementation.label] = summarize(workload, implementation, merged, 1, sizes)
    return measured


def measure(
    workload: Workload, implementation: Implementation, sizes: dict[str, int], repeats: int, reference: str | None
) -> Measured:
    python = reference if implementation.reference else None
    env = ONE_THREAD if workload.one_thread else {}
    outcome = in_subprocess(implementation.target, sizes, repeats, python=python, env=env)
    scale = 1
    while outcome.error and implementation.shrink and sizes[implementation.shrink] >= 2 and scale < 64:
        sizes = {**sizes, implementation.shrink: sizes[implementation.shrink] // 2}
        scale *= 2
        outcome = in_subprocess(implementation.target, sizes, repeats, python=python, env=env)
    return summarize(workload, implementation, outcome, scale, sizes)


def summarize(
    workload: Workload, implementation: Implementation, outcome: Outcome, scale: int, sizes: dict[str, int]
) -> Measured:
    where = f"{workload.name}, {implementation.label}"
    if outcome.missing:
        return Measured(status="not installed")
    if outcome.error:
        return Measured(status="error", notes=[f"{where} failed: {outcome.error}"])
    first = outcome.results[0]
    values = [r.value * scale for r in outcome.results]
    measured = Measured(statistics.median(values), check=first.check)
    if all(r.processor is not None for r in outcome.results):
        measured.processor = statistics.median(r.processor * scale for r in outcome.results)
    if first.note:
        measured.notes.append(f"{where}: {first.note}")
    if max(values) - min(values) > NOISY * measured.value:
        low, high = show(min(values), workload.unit), show(max(values), workload.unit)
        measured.notes.append(f"{where}: the repeats ranged from {low} to {high} (a busy machine, or noise)")
    if scale > 1:
        size = implementation.shrink
        measured.notes.append(
            f"{where}: failed at full size; measured at {sizes[size]:,} {size} and scaled by {scale} "
            "(its results are not compared)"
        )
        measured.check = ()
    return measured


def disagreements(workload: Workload, results: dict[str, Measured]) -> list[str]:
    """Where an implementation's results differ from DG's: they would not be measuring the same work."""
    dg = results[DG]
    out = []
    for label, m in results.items():
        if label == DG or not m.check or not dg.check:
            continue
        if len(m.check) != len(dg.check) or not all(
            math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9) for a, b in zip(m.check, dg.check, strict=True)
        ):
            out.append(f"{workload.name}: {label} computed {m.check}, DG {dg.check}")
    return out


def processor_times(workload: Workload, results: dict[str, Measured]) -> list[str]:
    """The processor times, where the workload measures them, and DG's ratio to each reference's."""
    dg = results[DG].processor
    if dg is None:
        return []
    shown = [f"{label} {show(m.processor, workload.unit)}" for label, m in results.items() if m.processor]
    ratios = [f"{dg / m.processor:.2f} x {label}" for label, m in results.items() if label != DG and m.processor]
    return [f"{workload.name}: processor time (this process's, not the clock's): {', '.join(shown)}; "
            f"DG = {', '.join(ratios)}"]  # fmt: skip


# ---- the table ----------------------------------------------------------------------------
def show(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    if unit == "MiB":
        return f"{value:.2f} MiB"
    if unit == "B":
        return f"{value:,.0f} B"
    for scale, name in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(value) >= scale or name == "µs":
            return f"{value / scale:.3g} {name}"
    raise AssertionError("unreachable")


def verdict(number: float | None, target: Target) -> str:
    if number is None or target.at_most is None:
        return "-"
    if target.stretch is not None and number <= target.stretch:
        return "met (stretch too)"
    return "met" if number <= target.at_most else "NOT MET"


def rows(workload: Workload, sizes: dict[str, int], results: dict[str, Measured]) -> list[list[str]]:
    dg = results[DG]
    dg_shown = show(dg.value, workload.unit) or dg.status
    out = []
    for target in workload.targets:
        if target.reference is None:
            shown_target = f"<= {show(target.at_most, workload.unit)}"
            out.append([workload.name, workload.size(sizes), dg_shown, "-", "-", shown_target,
                        verdict(dg.value, target)])  # fmt: skip
            continue
        ref = results[target.reference]
        ratio = dg.value / ref.value if dg.value is not None and ref.value else None
        shown_target = "-" if target.at_most is None else f"<= {target.at_most:g}"
        shown_target += f" (stretch {target.stretch:g})" if target.stretch else ""
        reference = f"{target.reference}: {show(ref.value, workload.unit) or ref.status}"
        out.append([workload.name, workload.size(sizes), dg_shown, reference,
                    f"{ratio:.2f}" if ratio is not None else "-", shown_target, verdict(ratio, target)])  # fmt: skip
    return out


HEADER = ["workload", "size and measure", "DG", "reference", "ratio", "target", "result"]


def table(lines: list[list[str]]) -> str:
    widths = [max(len(line[i]) for line in [HEADER, *lines]) for i in range(len(HEADER))]
    fmt = lambda line: "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
    return "\n".join([fmt(HEADER), fmt(["-" * w for w in widths]), *map(fmt, lines)])


# ---- the command line -------------------------------------------------------------------------
def arguments(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench/run.py", description="Run DG's benchmarks and print one table.")
    p.add_argument("--quick", action="store_true", help="tiny sizes and one repeat (checks that the suite runs)")
    p.add_argument("--only", action="append", metavar="NAME", choices=[w.name for w in WORKLOADS],
                   help="run only this workload (may be given more than once)")  # fmt: skip
    p.add_argument("--repeats", type=int, metavar="N", help="repeats of each timing (default 5; --quick: 1)")
    p.add_argument("--reference-python", metavar="PATH", default=os.environ.get("DG_REFERENCE_PYTHON"),
                   help="the Python that runs the PyTorch and micrograd references, from an environment of their own "
                   "(default: $DG_REFERENCE_PYTHON, else this Python)")  # fmt: skip
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = arguments(sys.argv[1:] if argv is None else argv)
    repeats = args.repeats or (1 if args.quick else 5)
    chosen = [w for w in WORKLOADS if not args.only or w.name in args.only]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    started = time.perf_counter()
    lines: list[list[str]] = []
    notes: list[str] = []
    failed = False
    for workload in chosen:
        sizes = workload.quick if args.quick else workload.full
        results = {}
        if workload.repeated and repeats > 1:
            labels = ", ".join(i.label for i in workload.implementations)
            print(f"{workload.name}: {repeats} rounds of {labels} ...", end="", file=sys.stderr, flush=True)
            t0 = time.perf_counter()
            results = measure_in_turn(workload, sizes, repeats, args.reference_python)
            print(f" done ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
        for implementation in workload.implementations:
            if implementation.label not in results:
                print(f"{workload.name}: {implementation.label} ...", end="", file=sys.stderr, flush=True)
                t0 = time.perf_counter()
                results[implementation.label] = measure(
                    workload, implementation, sizes, repeats if workload.repeated else 1, args.reference_python
                )
                print(f" {results[implementation.label].status or 'done'} ({time.perf_counter() - t0:.1f} s)",
                      file=sys.stderr)  # fmt: skip
            m = results[implementation.label]
            notes += m.notes
            failed |= m.status == "error"
        notes += processor_times(workload, results)
        differ = disagreements(workload, results)
        notes += [f"RESULTS DIFFER: {d}" for d in differ]
        failed |= bool(differ)
        lines += rows(workload, sizes, results)
    print(table(lines))
    print(f"\nmedian of {repeats} repeat(s) per timing, each in a fresh process, the implementations of a workload "
          "in turn; memory rows measured once")  # fmt: skip
    if load is not None:
        print(f"load average when the run began: {load:.2f} (other work on the machine skews timings)")
    for note in notes:
        print(f"note: {note}")
    print(f"ran in {time.perf_counter() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

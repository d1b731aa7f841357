"""How long `dg grade` takes for a class with hostile submissions among honest ones.

    uv run python bench/grade_class.py                # 50 submissions, 10 hostile, --workers 2
    uv run python bench/grade_class.py --quick        # 12 submissions, short limits: does it run?

It builds two classes of the same size from the samples in exercises/grading/submissions: one all
honest (the honest samples copied under new names), one where ten of them are hostile (each
hostile kind once). It grades both with `--workers 2` and prints both times beside what the
limits allow the hostile ones: each stops at the --timeout of each run it spends (its top level,
or each test calling a function that never returns) or at the memory limit, so the second class
should take about as long as the first plus those limits divided among the workers. Then the
slowest submissions, from summary.csv. Timings are printed, never asserted (the machine is shared).
"""

from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "exercises" / "grading" / "submissions"
TESTS = ROOT / "exercises" / "grading" / "tests.dg"
HONEST = ["correct.dg", "wrong_gradient.dg", "with_data"]
# Each hostile sample, and how many of its runs end at --timeout (the rest end at once).
HOSTILE = {
    "infinite_loop.dg": 2,  # both tests of leaky_relu
    "fork_bomb.dg": 1,  # its top level
    "memory_bomb.dg": 1,  # its top level, at the memory limit or the timeout, whichever comes first
    "print_bomb.dg": 0,
    "deep_recursion.dg": 0,
    "syntax_error.dg": 0,
    "planted_cache": 0,
    "overrides_builtins.dg": 0,
}
EXTRA_HOSTILE = {  # two more, written here: a top level that never ends, and one that recurses without end
    "top_level_loop.dg": ("while True:\n    pass\n", 1),
    "top_level_recursion.dg": ("def f(n):\n    return f(n + 1)\nf(0)\n", 0),
}


def build(folder: Path, size: int) -> tuple[Path, Path, int]:
    """An honest class and a class with the hostile samples in place of some honest ones; returns
    them and the number of timeouts the hostile ones spend."""
    honest, mixed = folder / "honest", folder / "class"
    honest.mkdir()
    mixed.mkdir()
    hostile = {f"hostile_{name}": SAMPLES / name for name in HOSTILE}
    for name, (text, _) in EXTRA_HOSTILE.items():
        (folder / name).write_text(text)
        hostile[f"hostile_{name}"] = folder / name
    for i in range(size):
        sample = SAMPLES / HONEST[i % len(HONEST)]
        copy(sample, honest / (f"student{i:03d}" + sample.suffix))
        if i >= len(hostile):
            copy(sample, mixed / (f"student{i:03d}" + sample.suffix))
    for name, sample in hostile.items():
        copy(sample, mixed / name)
    return honest, mixed, sum(HOSTILE.values()) + sum(count for _, count in EXTRA_HOSTILE.values())


def copy(source: Path, target: Path) -> None:
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        shutil.copyfile(source, target)


def grade(folder: Path, out: Path, timeout: float, workers: int) -> float:
    command = [sys.executable, "-m", "dglang.interpreter", "grade", str(folder), "--tests", str(TESTS)]
    command += ["--out", str(out), "--workers", str(workers), "--timeout", f"{timeout:g}"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"dg grade failed:\n{done.stdout}\n{done.stderr}")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a small class and short limits")
    parser.add_argument("--timeout", type=float, default=10, help="dg grade --timeout (default 10)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    hostile = len(HOSTILE) + len(EXTRA_HOSTILE)
    size, timeout = (hostile + 2, 1.0) if args.quick else (50, args.timeout)
    with tempfile.TemporaryDirectory(prefix="dg-grade-bench-") as temporary:
        folder = Path(temporary)
        honest, mixed, timeouts = build(folder, size)
        print(f"grading {size} honest submissions, --workers {args.workers} ...", file=sys.stderr)
        honest_seconds = grade(honest, folder / "out-honest", timeout, args.workers)
        print(f"grading {size} with {hostile} hostile ...", file=sys.stderr)
        mixed_seconds = grade(mixed, folder / "out-class", timeout, args.workers)
        with (folder / "out-class" / "summary.csv").open() as f:
            slowest = sorted(csv.DictReader(f), key=lambda row: -float(row["seconds"]))[:6]
    limits = timeouts * timeout / args.workers
    print(f"{size} honest submissions:                {honest_seconds:6.1f} s")
    print(f"{size} submissions, {hostile} of them hostile:  {mixed_seconds:6.1f} s")
    print(f"their limits: {timeouts} timeouts of {timeout:g} s, over {args.workers} workers: {limits:.1f} s")
    print(f"extra time with the hostile ones: {mixed_seconds - honest_seconds:.1f} s")
    print("slowest submissions (seconds, score, status):")
    for row in slowest:
        score = f"{row['score']}/{row['max_score']}"
        print(f"  {row['submission']:<32} {float(row['seconds']):5.1f}  {score}  {row['status']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

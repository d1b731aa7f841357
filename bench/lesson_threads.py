"""Processor time of each lesson with NumPy's default BLAS threads and with one, in turn: does DG's
sizing of threads (autograd/threads.py) ever cost more than one thread would?

    uv run python bench/lesson_threads.py --rounds 3            # the machine as it is
    uv run python bench/lesson_threads.py --rounds 3 --busy     # with the other cores kept busy
    uv run python bench/lesson_threads.py 18_tiny_gpt 20_digits_cnn

Each run is a whole `dg programs/NAME.dg` process (its output thrown away), once as the
environment has it (less any OMP_NUM_THREADS, OPENBLAS_NUM_THREADS or DG_THREADS: the library's
default) and once with OMP_NUM_THREADS=1, taking turns round by round; its processor time is the
user and system time the process and its children used. `--busy` starts one process spinning on
each core but one for the whole measurement (others' work on a shared machine). Printed per
lesson: the medians of each, and the median of the rounds' ratios, default over one thread.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "DG_THREADS")
SPIN = "while True: pass"
DG = "import sys; from dglang.interpreter.frontends.cli import command; sys.argv[0] = 'dg'; command()"


def processor_time(lesson: str, one_thread: bool) -> float:
    """User + system seconds of one `dg programs/LESSON.dg` run."""
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}
    if one_thread:
        env["OMP_NUM_THREADS"] = "1"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-c", DG, f"{lesson}.dg"],
        cwd=ROOT / "programs", env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{lesson}: exit code {done.returncode}: {done.stderr.strip()[-300:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="bench/lesson_threads.py", description=__doc__.split("\n")[0])
    p.add_argument("lessons", nargs="*", help="names in programs/ without .dg (default: every lesson)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--busy", action="store_true", help="keep every core but one busy meanwhile")
    args = p.parse_args(argv)
    lessons = args.lessons or sorted(f.stem for f in (ROOT / "programs").glob("[0-9][0-9]_*.dg"))
    spinners = []
    if args.busy:
        spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range((os.cpu_count() or 1) - 1)]
    try:
        print(f"{len(lessons)} lessons, {args.rounds} rounds{', the other cores busy' if args.busy else ''}:")
        print(f"{'lesson':28} {'default threads':>16} {'one thread':>12} {'default / one':>22}")
        worst = 0.0
        for lesson in lessons:
            default: list[float] = []
            one: list[float] = []
            for _ in range(args.rounds):
                default.append(processor_time(lesson, one_thread=False))
                one.append(processor_time(lesson, one_thread=True))
            ratios = [d / o for d, o in zip(default, one, strict=True)]
            worst = max(worst, statistics.median(ratios))
            print(
                f"{lesson:28} {statistics.median(default):15.2f}s {statistics.median(one):11.2f}s "
                f"{statistics.median(ratios):8.2f} ({min(ratios):.2f}-{max(ratios):.2f})",
                flush=True,
            )
        print(f"largest median ratio: {worst:.2f}")
    finally:
        for s in spinners:
            s.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""NumPy's BLAS library started with one thread; DG gives more only to a product large enough.

OpenBLAS (NumPy's BLAS on Linux and Windows) starts a thread for every core when NumPy loads, and
each new thread spins, waiting for work, for a while before it sleeps: `import numpy` alone costs
a two-core machine 0.06-0.09 s more processor time than with one thread, which doubles the
processor time of a short lesson. DG sizes each product's threads itself (autograd/threads.py: one
below threads.LARGE multiply-adds), so the front ends have the library load with one thread,
unless the environment chose a number (OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS or OMP_NUM_THREADS,
which OpenBLAS reads at load), and tell threads.py how many cores a large product may have: the
library makes the threads it is then asked for. The variable DG sets lasts only until NumPy has
loaded, so a program DG starts (a grading worker) reads the user's environment, not DG's.
"""

from __future__ import annotations

import os
import sys

VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
_cores: int | None = None  # the cores a large product may have, while DG's variable is set


def before_numpy() -> None:
    """Have OpenBLAS load with one thread, unless the environment chose a number or NumPy is
    loaded already (then nothing changes)."""
    global _cores
    if "numpy" in sys.modules or any(os.environ.get(name, "").strip() for name in VARIABLES):
        return
    affinity = getattr(os, "sched_getaffinity", None)  # (the cores this process may run on: Linux)
    _cores = len(affinity(0)) if affinity else os.cpu_count() or 1
    os.environ["OPENBLAS_NUM_THREADS"] = "1"


def after_numpy() -> None:
    """Once NumPy has loaded: DG's variable taken back, and threads.py told the cores it may use."""
    global _cores
    if _cores is None or "numpy" not in sys.modules:
        return
    from dglang.autograd import threads

    os.environ.pop("OPENBLAS_NUM_THREADS", None)
    threads.started_with_one_thread(_cores)
    _cores = None

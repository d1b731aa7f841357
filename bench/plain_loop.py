"""plain-loop: `s = s + i * 0.5` a million times with no tensors, in DG and in CPython.

The measured part of bench/plain_loop.dg is also valid Python: CPython runs that very text as a
top-level script does (its variables are globals, as DG's are), compiled and run with exec.
"""

from __future__ import annotations

import time

from measure import Result, dg_program, run_dg


def dg(iterations: int) -> Result:
    seconds, session = run_dg("plain_loop", iterations=iterations)
    return Result(seconds, (session.globals.vars["s"],))


def cpython(iterations: int) -> Result:
    _, measured = dg_program("plain_loop", iterations=iterations)
    variables = {"iterations": iterations}
    start = time.perf_counter()
    exec(compile(measured, "bench/plain_loop.dg", "exec"), variables)
    seconds = time.perf_counter() - start
    return Result(seconds, (variables["s"],))

"""How many threads NumPy's BLAS library gives a matrix product, decided by DG product by product.

OpenBLAS (NumPy's BLAS) runs every product of more than 2**18 multiply-adds (a matrix times a
vector: 9,216) on all the cores it found, and a lesson's products are mostly that size: too small
for threads to pay, so on a machine others are using the threads mostly wait for each other, and
the same work costs several times the processor time (docs/performance.md, "BLAS threads sized to
the work"). So DG runs a product on one thread
unless it has at least `LARGE` multiply-adds, and a large one on the threads the library found at
start (all the cores, or what OMP_NUM_THREADS or OPENBLAS_NUM_THREADS said; DG's front ends load it
with one thread and offer it the cores, `started_with_one_thread`) less those other work
keeps busy (the load average beyond this process's own): with the other core busy, one. `use(n)`
(`dg --threads N`), or DG_THREADS=n in the environment, runs every product on n threads instead.

The library is found and its count set through threadpoolctl, at the first product large enough
for the library to use threads at all (`threaded`: a matrix-vector product from MULTITHREADED
multiply-adds, a product of two matrices from GEMM, a matrix by its own transpose from
MULTITHREADED): a program of small products never loads it (nor one run with OMP_NUM_THREADS=1 or
OPENBLAS_NUM_THREADS=1), and after that a product costs a comparison or two, and a call into the
library when its count changes.
"""

from __future__ import annotations

import os
from typing import Any

MULTITHREADED = 9216  # OpenBLAS's lowest line (a matrix-vector product's): below it, one thread whatever the count
GEMM = 1 << 18  # its line for a product of two matrices (gemm): below it, one thread whatever the count
LARGE = 1 << 28  # multiply-adds from which a product runs on the free threads (512 × 512 by 512 × 1024)


def from_environment() -> int | None:
    """DG_THREADS, when it is a positive whole number (`dg` reports any other value)."""
    text = os.environ.get("DG_THREADS", "")
    return int(text) if text.isdigit() and int(text) > 0 else None


def one_thread_at_start() -> bool:
    """Did the environment give the library one thread when it loaded (OPENBLAS_NUM_THREADS, else
    OMP_NUM_THREADS, as OpenBLAS reads them)? Then a product sized to one thread needs no call, and
    threadpoolctl is loaded only if `use(n)` asks for more."""
    for name in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"):
        text = os.environ.get(name, "").strip()
        if text:
            return text == "1"
    return False


_chosen = from_environment()  # use(n): every product on n threads
_libraries: list[Any] | None = None  # the BLAS libraries' controllers, once found
_found = 1  # the threads the libraries had when found: what the machine offers
_current: int | None = 1 if one_thread_at_start() else None  # the count they have now
_offered: int | None = None  # the cores the machine offers, when DG loaded the library with one thread


def started_with_one_thread(cores: int) -> None:
    """The library was loaded with one thread by DG's front end (interpreter/host/blas_start.py),
    not by the user's environment: a large product may have up to `cores` threads, which the
    library makes when it is first asked for them. (On Windows the library may keep a C runtime's
    copy of the environment made before DG set the variable: its count is asked, not assumed.)"""
    global _offered, _current
    _offered, _current = cores, (1 if os.name == "posix" else None)


def use(threads: int | None) -> None:
    """Run every product on `threads` threads from now on (None: sized to each product, the default)."""
    global _chosen
    _chosen = threads
    if _libraries is not None and threads is not None:
        _set(threads)


def product(multiply_adds: int) -> None:
    """Give the BLAS library the threads a product of `multiply_adds` deserves, before it runs."""
    wanted = _chosen or (free() if multiply_adds >= LARGE else 1)
    if wanted != _current:
        _set(wanted)


def free() -> int:
    """The library's threads that other work leaves free: those it found, less the load average
    beyond this process's own (at least one)."""
    if _libraries is None:
        if _current == 1 and _chosen is None and _offered is None:  # one thread, as the user chose
            return 1
        _set(1)  # (finds the library, and how many threads it has)
    try:
        busy = max(0.0, os.getloadavg()[0] - 1.0)
    except (AttributeError, OSError):  # no load average (Windows): every thread
        busy = 0.0
    return max(1, min(_found, round(_found - busy)))


def threaded(rows: int, columns: int, multiply_adds: int) -> bool:
    """Might the library run a product of this shape (one matrix of a stack) on more than one thread?
    Not below MULTITHREADED; nor a product of two matrices (gemm) below GEMM, unless its result is
    square: NumPy multiplies a matrix by its own transpose with syrk, which threads smaller products."""
    if multiply_adds < MULTITHREADED:
        return False
    return multiply_adds >= GEMM or rows == 1 or columns == 1 or rows == columns


def before_product(x: Any, y: Any, rows: int, columns: int, multiply_adds: int) -> None:
    """Before x @ y: give the library the threads the product deserves, unless it would run on one
    thread whatever the count (a square result below GEMM: one unless x and y are one array's views)."""
    if threaded(rows, columns, multiply_adds) and (
        multiply_adds >= GEMM or rows != columns or rows == 1 or _same(x, y)
    ):
        product(multiply_adds)


def _same(x: Any, y: Any) -> bool:
    """Are x and y views of one array (so that NumPy may call syrk)?"""
    return (x if x.base is None else x.base) is (y if y.base is None else y.base)


def matmul(x: Any, y: Any) -> Any:
    """x @ y, two matrices, on the threads its size deserves."""
    before_product(x, y, x.shape[0], y.shape[1], x.shape[0] * x.shape[1] * y.shape[1])
    return x @ y


def _set(threads: int) -> None:
    global _libraries, _found, _current
    if _libraries is None:
        from threadpoolctl import ThreadpoolController

        _libraries = ThreadpoolController().select(user_api="blas").lib_controllers
        _found = _offered or max([lib.num_threads for lib in _libraries] or [1])
    for lib in _libraries:
        lib.set_num_threads(threads)
    _current = threads

"""BLAS threads sized to each product (autograd/threads.py): one for a small product, all the
library found for a large one, n for every product after use(n); and `dg --threads N`."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from dglang.autograd import Tensor, threads


def blas_threads() -> int:
    return max(info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas")


@pytest.fixture
def sized(monkeypatch: pytest.MonkeyPatch):
    """The policy as DG starts with it, a "large" product made small enough for a test, on a
    machine nothing else uses (a load average of this process alone)."""
    monkeypatch.setattr(threads, "LARGE", 1 << 21)
    monkeypatch.setattr(threads, "_chosen", None)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 1.0, 1.0))
    yield
    threads.use(None)


def product(n: int) -> None:
    Tensor(np.ones((n, n))) @ Tensor(np.ones((n, n)))


def test_a_small_product_runs_on_one_thread_and_a_large_one_on_all_the_library_found(sized) -> None:
    product(64)  # 2**18 multiply-adds: the library would use all its threads; DG gives it one
    assert blas_threads() == 1
    product(128)  # 2**21: large
    assert blas_threads() == threads._found
    product(64)
    assert blas_threads() == 1


def test_a_large_product_leaves_the_threads_of_other_work_alone(sized, monkeypatch) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0 + threads._found, 0.0, 0.0))  # every core busy
    product(128)
    assert blas_threads() == 1


def test_use_runs_every_product_on_that_many_threads(sized) -> None:
    threads.use(2)
    product(64)
    assert blas_threads() == 2
    threads.use(None)
    product(64)
    assert blas_threads() == 1


@pytest.mark.parametrize(("argv", "env"), [(["--threads", "0"], {}), ([], {"DG_THREADS": "many"})])
def test_a_thread_count_that_is_not_a_positive_number_is_a_usage_error(argv, env, tmp_path) -> None:
    program = tmp_path / "p.dg"
    program.write_text("print(1)\n")
    done = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", *argv, str(program)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )
    assert done.returncode == 2 and "positive whole number (given here or as DG_THREADS)" in done.stderr


def test_one_thread_from_the_environment_needs_no_threadpoolctl() -> None:
    """OMP_NUM_THREADS=1 gave the library one thread when it loaded: small and large products leave
    it so without loading threadpoolctl (a start-up cost), and use(2) still gives every product two."""
    script = (
        "import sys, numpy as np\n"
        "from dglang.autograd import Tensor, threads\n"
        "threads.LARGE = 1 << 21\n"
        "for n in (64, 128):\n"
        "    Tensor(np.ones((n, n))) @ Tensor(np.ones((n, n)))\n"
        "print('threadpoolctl' in sys.modules)\n"
        "threads.use(2)\n"
        "Tensor(np.ones((64, 64))) @ Tensor(np.ones((64, 64)))\n"
        "from threadpoolctl import threadpool_info\n"
        "print(max(i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas'))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env={**env, "OMP_NUM_THREADS": "1"}
    )
    assert done.stdout.split() == ["False", "2"], done.stderr


def test_products_the_library_runs_on_one_thread_never_load_threadpoolctl() -> None:
    """Two different matrices below threads.GEMM multiply-adds (a small network's layers, forward
    and backward) run on one thread whatever the count: DG asks nothing and loads nothing. A matrix
    times its own transpose (syrk threads smaller products) and a matrix times a vector do ask."""
    script = (
        "import sys, numpy as np\n"
        "from dglang.autograd import Tensor\n"
        "h, w = Tensor(np.ones((100, 16))), Tensor(np.ones((16, 16)))\n"
        "(h @ w, h.T @ (h @ w), h @ w.T)\n"
        "print('threadpoolctl' in sys.modules)\n"
        "u = Tensor(np.ones((40, 48)))\n"
        "u @ u.T\n"
        "print('threadpoolctl' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS") and k != "DG_THREADS"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.stdout.split() == ["False", "True"], done.stderr


def test_the_front_ends_load_blas_with_one_thread_and_give_a_large_product_the_cores() -> None:
    """OpenBLAS starts a spinning thread per core when NumPy loads (processor time a short lesson
    pays for nothing): DG's front ends have it load with one thread, take their variable back once
    NumPy has loaded, and a large product still gets the cores (the library makes the threads)."""
    if not any(info["internal_api"] == "openblas" for info in threadpool_info()):
        pytest.skip("NumPy's BLAS here is not OpenBLAS (macOS's Accelerate starts no threads of its own)")
    script = (
        "import os\n"
        "import dglang.interpreter.frontends\n"
        "from dglang.interpreter.frontends.sessions import new_session\n"
        "new_session()\n"
        "from threadpoolctl import threadpool_info\n"
        "from dglang.autograd import threads\n"
        "print(max(i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas'))\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS'))\n"
        "os.getloadavg = lambda: (1.0, 1.0, 1.0)\n"  # (this process alone on the machine)
        "threads.product(threads.LARGE)\n"
        "print(max(i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas'))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS") and k != "DG_THREADS"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    at_load, variable, after_a_large_product = done.stdout.split()
    assert variable == "None" and after_a_large_product == str(cores), done.stderr
    if os.name == "posix":  # (Windows's OpenBLAS may read a copy of the environment made earlier)
        assert at_load == "1"
    # the user's choice wins: OMP_NUM_THREADS=2 at start is what the library loads with
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env={**env, "OMP_NUM_THREADS": "2"}
    )
    assert done.stdout.split()[:2] == ["2", "None"], done.stderr

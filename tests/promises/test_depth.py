"""Recursion at every depth the command line accepts ends in a located RecursionError, never a signal.

A DG call is a few Python calls, which CPython 3.11+ runs without using the C stack; a builtin that
calls back into the program (gradcheck(f, ...) inside f, breakpoint() inside a breakpoint's cell)
puts C frames on the stack at each level. Each case runs in a real process on the smallest stacks
DG must live with: a thread of 512 KB (macOS gives secondary threads that much) and a main thread
of 1 MB (Windows), at --max-depth 100,000, the most the CLI accepts.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from dglang.interpreter.frontends import cli

ROOT = Path(__file__).resolve().parents[2]
KB = 1024
# Run `dg ARGS` on a thread with the given stack size (0: the main thread).
RUNNER = """
import sys, threading
from dglang.interpreter.frontends.cli import main
stack = int(sys.argv[1])
if not stack:
    sys.exit(main(sys.argv[2:]))
threading.stack_size(stack)
codes = []
thread = threading.Thread(target=lambda: codes.append(main(sys.argv[2:])))
thread.start()
thread.join()
sys.exit(codes[0] if codes else 99)
"""

THROUGH_BUILTINS = {
    "gradcheck of itself": "def f(x):\n    gradcheck(f, x, quiet=True)\n    return x\nf(tensor([1.0]))\n",
    "gradcheck through a helper": (
        "def f(x):\n    return g(x)\ndef g(x):\n    gradcheck(f, x, order=2, quiet=True)\n    return x * x\nf(2.0)\n"
    ),
}
PLAIN = {
    "plain": "def f(n):\n    return f(n + 1)\nf(0)\n",
    "inside a method call": "def f(n):\n    return tensor(1.0).reshape(f(n + 1))\nf(0)\n",
    "inside a comprehension": "def f(n):\n    return [f(n + 1) for i in range(1)]\nf(0)\n",
    "inside an f-string": 'def f(n):\n    return f"{f(n + 1)}"\nf(0)\n',
    "in nested blocks": (
        "def f(n):\n    while True:\n        for i in [1]:\n            with no_grad:\n"
        "                if n >= 0:\n                    return f(n + 1)\nf(0)\n"
    ),
}


def run(program: Path, stack: int, stdin: str = "", main_stack: int | None = None) -> subprocess.CompletedProcess[str]:
    def limit_main_stack() -> None:
        if main_stack is not None:  # the main thread's stack is sized from this limit when the process starts
            resource.setrlimit(resource.RLIMIT_STACK, (main_stack, resource.getrlimit(resource.RLIMIT_STACK)[1]))

    return subprocess.run(
        [sys.executable, "-c", RUNNER, str(stack), "--max-depth", "100000", str(program)],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        preexec_fn=limit_main_stack,
    )


def assert_located_recursion_error(done: subprocess.CompletedProcess[str], program: Path) -> None:
    assert done.returncode == cli.EXIT_RUNTIME, f"exit {done.returncode} (a negative code is a signal)\n{done.stderr}"
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"{program}:") and "RecursionError" in first, done.stderr[-2000:]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("stack", [512 * KB, 0], ids=["a 512 KB thread", "a 1 MB main thread"])
@pytest.mark.parametrize("case", THROUGH_BUILTINS)
def test_recursion_through_a_builtin_ends_in_a_recursion_error(case: str, stack: int, tmp_path: Path) -> None:
    program = tmp_path / "loop.dg"
    program.write_text(THROUGH_BUILTINS[case])
    done = run(program, stack, main_stack=None if stack else 1024 * KB)
    assert_located_recursion_error(done, program)
    assert "calls nested inside builtins" in done.stderr


@pytest.mark.slow
def test_breakpoints_nested_through_a_pipe_end_in_a_recursion_error(tmp_path: Path) -> None:
    """Each line typed at a breakpoint's prompt may call the function again, which pauses again."""
    program = tmp_path / "pause.dg"
    program.write_text("def f(n):\n    breakpoint()\n    return n\nf(0)\n")
    done = run(program, 512 * KB, stdin="f(n + 1)\n" * 5000)
    assert done.returncode != -11 and "RecursionError" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("case", PLAIN)
def test_plain_recursion_needs_no_c_stack(case: str, tmp_path: Path) -> None:
    """100,000 DG calls deep on a 512 KB thread: DG's own calls never put C frames on the stack."""
    program = tmp_path / "deep.dg"
    program.write_text(PLAIN[case])
    done = run(program, 512 * KB)
    assert_located_recursion_error(done, program)

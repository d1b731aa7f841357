"""The benchmark suite at tiny sizes, so that it never rots.

`bench/run.py --quick` must run every workload and print a number for DG and for each reference
(or say the reference is not installed). No timing is asserted: these sizes measure nothing.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
RUN = PROJECT / "bench" / "run.py"
NUMBER = r"-?[\d,]+(\.\d+)?(e[+-]?\d+)? (s|ms|µs|MiB|B)"


def load_runner():
    """bench/run.py as a module (bench/ is not a package), to read its list of workloads."""
    sys.path.insert(0, str(RUN.parent))
    try:
        spec = importlib.util.spec_from_file_location("bench_run", RUN)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(RUN.parent))
    return module


@pytest.mark.slow
def test_quick_run_prints_a_number_in_every_row():
    done = subprocess.run(
        [sys.executable, str(RUN), "--quick"], capture_output=True, text=True, timeout=300, cwd=PROJECT
    )
    assert done.returncode == 0, f"bench/run.py --quick failed:\n{done.stdout}\n{done.stderr}"

    lines = done.stdout.splitlines()
    assert lines[0].split()[:2] == ["workload", "size"], done.stdout
    table = [re.split(r"\s{2,}", line) for line in lines[2 : lines.index("")]]
    workloads = load_runner().WORKLOADS
    assert len(table) == sum(len(w.targets) for w in workloads), done.stdout
    assert {row[0] for row in table} == {w.name for w in workloads}, done.stdout
    for row in table:
        workload, _, dg, reference, ratio, target, result = row
        assert re.fullmatch(NUMBER, dg), f"{workload}: DG printed {dg!r}\n{done.stdout}"
        if reference == "-":  # an absolute target
            assert result in ("met", "NOT MET"), row
        elif reference.endswith(": not installed"):
            assert (ratio, result) == ("-", "-"), row
        else:
            assert re.fullmatch(r".+: " + NUMBER, reference), f"{workload}: reference {reference!r}"
            assert re.fullmatch(r"-?\d+\.\d\d", ratio), f"{workload}: ratio {ratio!r}"
            if target == "-":  # a ratio shown for comparison (the floor NumPy by hand sets), with no target
                assert result == "-", row
            else:
                assert result in ("met", "met (stretch too)", "NOT MET"), row


@pytest.mark.slow
def test_the_grading_benchmark_runs():
    """bench/grade_class.py --quick: a class of 12 with the 10 hostile kinds, graded twice."""
    done = subprocess.run(
        [sys.executable, str(PROJECT / "bench" / "grade_class.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=PROJECT,
    )
    assert done.returncode == 0, done.stderr
    assert "12 submissions, 10 of them hostile:" in done.stdout and "slowest submissions" in done.stdout


def test_step_parts_splits_a_profile_into_backward_no_grad_and_the_rest(tmp_path: Path) -> None:
    """bench/step_parts.py on a made-up py-spy profile: samples outside the program's loops are
    left out, a stack through `_propagate` is backward even inside a `with` block, and a sample
    whose innermost frame is a shared library counts as compiled code."""
    loop = "main (cli.py:9);Blocks.loop.<locals>.run_loop (/x/interpreter/semantics/blocks.py:71)"
    with_ = "Statements.with_.<locals>.run_with (/x/interpreter/semantics/statements.py:219)"
    backward = "backward (/x/autograd/backward.py:169);_propagate (/x/autograd/backward.py:130)"
    profile = tmp_path / "step.raw"
    profile.write_text(
        "\n".join(
            [
                "main (cli.py:9);import_module (importlib.py:1) 50",  # start-up: not in a loop
                f"{loop};{backward};MatMul.backward (/x/autograd/arithmetic.py:275);dgemm_kernel (libblas.so) 30",
                f"{loop};{backward};binary (/x/autograd/tensor.py:338) 10",
                f"{loop};{with_};update (/x/autograd/inplace.py:56) 15",
                f"{loop};{with_};{backward} 5",  # gradient() inside a no_grad block: backward
                f"{loop};binary (/x/autograd/tensor.py:338);DOUBLE_add (_multiarray_umath.so) 40",
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(PROJECT / "bench" / "step_parts.py"), str(profile), "--top", "no_grad block"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    shares = [re.findall(r"[\d.]+%", line) for line in lines[:3]]  # (the part's share, its compiled share)
    assert [line.split("  ")[0] for line in lines[:3]] == ["backward", "forward and the rest", "no_grad block"]
    assert shares == [["45.0%", "67%"], ["40.0%", "100%"], ["15.0%", "0%"]]
    assert "15.0%  update (inplace.py)" in done.stdout


def test_statements_times_each_statement_after_the_set_up(tmp_path: Path) -> None:
    """bench/statements.py: a line per statement after the empty loop's, each with a number of µs;
    a statement of two lines runs as one body, with the set-up's names."""
    setup = tmp_path / "setup.dg"
    setup.write_text("W = tensor([1.0, 2.0], requires_grad=True)\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(PROJECT / "bench" / "statements.py"), str(setup),
         "a = W * 2.0", "with no_grad:\n    b = W + 1.0", "--count", "20"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    labels = [line[:60].rstrip() for line in lines]
    assert labels == ["(an empty loop)", "a = W * 2.0", "with no_grad: /     b = W + 1.0"]
    assert all(re.search(r"-?\d+\.\d\d µs$", line) for line in lines)

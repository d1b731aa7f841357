"""tinygrad's operator tests as DG writes them (tests/support/tinygrad_cases.py), run in DG and in
PyTorch, in float64: prints each row whose forward or gradient differs, then the counts.

    python bench/tinygrad_vs_torch.py      (needs torch installed: pip install torch)

The gradient compared is that of a weighted sum of the result (fixed random weights), for each
input that requires grad. A row runs in PyTorch as its `torch` text, or else as its DG text
read as Python with DG's builtins standing for PyTorch's functions (DG writes most of them as
PyTorch does). A row that checks a refusal must be refused by both.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "support"))

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover
    sys.exit("this comparison needs torch: pip install torch")

from tinygrad_cases import CASES, UNWRITABLE, Case  # noqa: E402

from dglang.autograd import Tensor, gradient  # noqa: E402
from dglang.interpreter.host.session import Session  # noqa: E402

torch.set_default_dtype(torch.float64)


def numbers_too(fn: Any, plain: Any) -> Any:
    """A DG builtin that takes a number as well as a tensor (`sqrt(2)`)."""
    return lambda x, *rest, **named: fn(x, *rest, **named) if torch.is_tensor(x) else plain(x)


def axis_names(fn: Any) -> Any:
    """A function given DG's `axis=` / `keepdims=` as PyTorch's `dim=` / `keepdim=`."""

    def call(*args: Any, **named: Any) -> Any:
        names = {"axis": "dim", "keepdims": "keepdim", "axes": "dims"}
        return fn(*args, **{names.get(k, k): v for k, v in named.items()})

    return call


def torch_tensor(data: Any, dtype: str | None = None, requires_grad: bool = False) -> Any:
    kind = {"int": torch.int64, "bool": torch.bool, "float": torch.float64, None: None}[dtype]
    value = torch.tensor(data, dtype=kind)
    return value.requires_grad_(requires_grad) if requires_grad else value


TORCH_NAMES = {
    "torch": torch, "math": math, "F": F, "inf": math.inf, "pi": math.pi,
    "tensor": torch_tensor, "zeros": torch.zeros, "ones": torch.ones, "full": torch.full, "eye": torch.eye,
    "zeros_like": torch.zeros_like, "ones_like": torch.ones_like, "arange": torch.arange, "linspace": torch.linspace,
    "rand": torch.rand, "randn": torch.randn,
    "exp": numbers_too(torch.exp, math.exp), "log": numbers_too(torch.log, math.log),
    "sqrt": numbers_too(torch.sqrt, math.sqrt), "sin": numbers_too(torch.sin, math.sin),
    "cos": numbers_too(torch.cos, math.cos), "tanh": numbers_too(torch.tanh, math.tanh),
    "sigmoid": torch.sigmoid, "relu": torch.relu, "erf": torch.erf, "sign": torch.sign, "abs": abs,
    "floor": torch.floor, "ceil": torch.ceil, "maximum": torch.maximum, "minimum": torch.minimum,
    "where": lambda c, a, b: torch.where(c, torch.as_tensor(a), torch.as_tensor(b)),
    "clamp": torch.clamp, "cumsum": axis_names(torch.cumsum), "tril": torch.tril, "triu": torch.triu,
    "softmax": axis_names(torch.softmax), "log_softmax": axis_names(torch.log_softmax),
    "logsumexp": axis_names(torch.logsumexp), "einsum": torch.einsum, "matmul": torch.matmul,
    "cat": axis_names(torch.cat), "concat": axis_names(torch.cat), "stack": axis_names(torch.stack),
    "pad": F.pad, "conv2d": F.conv2d, "conv1d": F.conv1d, "max_pool2d": F.max_pool2d, "avg_pool2d": F.avg_pool2d,
    "conv_transpose2d": F.conv_transpose2d, "conv_transpose1d": F.conv_transpose1d, "interpolate": F.interpolate,
    "unfold": F.unfold,
    "sum": sum, "max": max, "range": range,
}  # fmt: skip


def in_torch(case: Case, arrays: list[np.ndarray]) -> tuple[Any, list[Any]]:
    inputs = [torch.tensor(x, requires_grad=case.grad and x.dtype.kind == "f") for x in arrays]
    names = dict(TORCH_NAMES, **dict(zip("abcd", inputs, strict=False)))
    text = case.torch or case.expr
    if "out =" in text:
        exec(text, names)  # a short program (the table's own text, read as Python)
        return names["out"], inputs
    return eval(text, names), inputs


def in_dg(case: Case, arrays: list[np.ndarray], session: Session) -> tuple[Any, list[Tensor]]:
    inputs = [Tensor(x.copy(), requires_grad=case.grad and x.dtype.kind == "f") for x in arrays]
    for name, t in zip("abcd", inputs, strict=False):
        session.globals.vars[name] = t
    session.run((case.expr if "out =" in case.expr else f"out = {case.expr}") + "\n")
    return session.globals.vars["out"], inputs


def differs(dg: Any, pt: Any) -> str | None:
    dg, pt = np.asarray(dg, dtype=float), np.asarray(pt, dtype=float)
    if dg.shape != pt.shape:
        return f"shape {dg.shape}, PyTorch {pt.shape}"
    if not np.allclose(dg, pt, rtol=1e-7, atol=1e-9, equal_nan=True):
        worst = np.nanmax(np.abs(dg - pt)) if dg.size else 0.0
        return f"values differ (largest difference {worst:.3g})"
    return None


def compare(case: Case, session: Session) -> list[str]:
    arrays = case.arrays()
    if case.error:
        problems = []
        try:
            in_dg(case, arrays, session)
            problems.append("DG did not refuse it")
        except Exception:
            pass
        try:
            in_torch(case, arrays)
            problems.append("PyTorch did not refuse it")
        except Exception:
            pass
        return problems
    out, inputs = in_dg(case, arrays, session)
    expected, pt_inputs = in_torch(case, arrays)
    dg_value = out.data if isinstance(out, Tensor) else out
    pt_value = expected.detach().numpy() if torch.is_tensor(expected) else expected
    problem = differs(dg_value, pt_value)
    if problem:
        return [f"forward: {problem}"]
    if not case.grad or not isinstance(out, Tensor) or out.dtype != "float":
        return []
    weights = np.random.default_rng(0).normal(size=out.shape)
    grads = gradient((out * Tensor(weights)).sum(), inputs)
    wanted = [i for i, t in enumerate(pt_inputs) if t.requires_grad]
    pt_loss = (expected * torch.tensor(weights)).sum()
    pt_grads = (
        torch.autograd.grad(pt_loss, [pt_inputs[i] for i in wanted], allow_unused=True) if pt_loss.requires_grad else []
    )
    problems = []
    for i, pt_grad in zip(wanted, pt_grads, strict=False):
        if pt_grad is None:  # an input PyTorch's function takes detached (a loss's class weights)
            continue
        pt_grad = pt_grad.detach().numpy()  # (PyTorch hands back a grad that requires grad for an empty cummax)
        problem = differs(grads[i].data, pt_grad)
        if problem:
            problems.append(f"gradient of {'abcd'[i]}: {problem}")
    return problems


def main() -> int:
    session = Session()
    mismatched = gradients = 0
    for case in CASES:
        try:
            problems = compare(case, session)
        except Exception as e:  # a row PyTorch cannot run as written
            problems = [f"could not run: {type(e).__name__}: {str(e).splitlines()[0][:160]}"]
        gradients += case.grad and not case.error
        if problems:
            mismatched += 1
            print(f"{case.test}: {case.expr.splitlines()[-1][:90]}")
            for p in problems:
                print(f"    {p}")
    tests = {c.test for c in CASES}
    print(
        f"\n{len(tests) + len(UNWRITABLE)} tinygrad tests: {len(tests)} written in DG ({len(CASES)} rows, "
        f"{gradients} with gradients), {len(UNWRITABLE)} unwritable; {mismatched} rows differ from PyTorch"
    )
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())

"""PyTorch's and NumPy's names a DG program is written with out of habit (`loss.backward()`,
`torch.tensor`, `optimizer.step()`), and what DG writes instead: the help line of the error a run
gives there (semantics/hints.py), and what `:help backward` says (help.py)."""

from __future__ import annotations

import re
from collections.abc import Iterable

# What a method a tensor does not have is called in PyTorch, and what DG writes instead; `{obj}`
# is the tensor as the program wrote it.
TENSOR_HABITS = {
    "backward": "DG backpropagates with the grad statement: `grad {obj}`",
    "zero_grad": "clear gradients with the builtin: `zero_grad({obj})` (or zero_grad(params) for a list)",
    "zero_": "clear a gradient with the builtin zero_grad: `zero_grad({owner})`",
    "requires_grad_": "set the attribute: `{obj}.requires_grad = True` (or make it with requires_grad=True)",
    "numpy": "a DG tensor stays in DG: `.tolist()` gives nested lists of numbers, `.item()` one number",
    "retain_grad": "DG fills .grad only for leaves; `gradient(y, {obj})` gives dy/d{obj} for any tensor",
    "size": "a tensor's shape is the attribute `.shape`; `.numel()` counts its elements",
    "view": "write `.reshape(...)`",
    "clone": "`.detach()` copies the values into a new leaf; `{obj} * 1` is a copy that stays in the graph",
    "cuda": "DG computes on the CPU only: leave `.cuda()` out",
    "to": "DG computes on the CPU with 64-bit floats: leave `.to(...)` out",
    "float": "DG tensors hold 64-bit floats already: leave `.float()` out",
    "double": "DG tensors hold 64-bit floats already: leave `.double()` out",
}
# PyTorch's x.max(dim=1) gives a named pair; DG's, a plain (values, indices) tuple.
PAIR_FIELDS = {"values": 0, "indices": 1}


def pair_field(name: str, call: str, tensor: str, reduction: str, axis: str) -> str:
    """`x.max(dim=1).values`: how DG takes that part of the pair `call` gave, `reduction` (max or
    min) of `tensor` along `axis`."""
    alone = f"{tensor}.{'arg' * (name == 'indices')}{reduction}(axis={axis})"
    return (
        f"{call} gives a pair (values, indices) without names: write `{call}[{PAIR_FIELDS[name]}]`, "
        f"or `{alone}` for the {name} alone"
    )


# Names a program copied from PyTorch or NumPy code reads without defining.
LIBRARIES = ("torch", "np", "numpy", "nn", "F")
OPTIMIZERS = ("optimizer", "optim", "opt")
COURSE_STEPS = "nn.sgd_step(params, lr) or nn.adam_step(params, state, lr)"  # programs/nn.dg's optimisers
OPTIMIZER_HELP = (
    "DG has no optimizers: update each parameter inside `with no_grad:`, as in `w -= lr * w.grad`, "
    f"then clear its gradient with zero_grad(w); the course library (`import nn`) does both: {COURSE_STEPS}"
)
ZERO_GRAD_HELP = (
    "DG has no optimizers: clear the gradients with the builtin, `zero_grad(params)`; "
    f"the course library's steps (`import nn`) clear them after each update: {COURSE_STEPS}"
)
RENAMED = {"manual_seed": "seed", "array": "tensor", "from_numpy": "tensor", "Tensor": "tensor"}
# PyTorch's functions DG has no builtin for, and the DG way to write them.
WRITTEN_INSTEAD = {
    "randperm": "DG has no randperm; a random order of range(n): "
    "`order = [i for r, i in sorted(zip(rand(n).tolist(), range(n)))]`, then x[order] takes x's rows in it",
}
# What PyTorch's torch.nn, torch.nn.functional and torch.optim names are in DG's course library,
# programs/nn.dg (`import nn`): each a call of a function defined there (tests/language/test_hints.py).
COURSE_LIBRARY = {  # name: (how PyTorch writes it, how DG's course library does)
    "cross_entropy": ("F.cross_entropy(logits, labels)", "nn.cross_entropy(logits, labels)"),
    "CrossEntropyLoss": ("nn.CrossEntropyLoss()", "nn.cross_entropy(logits, labels)"),
    "Linear": ("nn.Linear(n_in, n_out)", 'nn.init_linear(params, "fc", n_in, n_out), then nn.linear(params, "fc", x)'),
    "Conv2d": (
        "nn.Conv2d(in_channels, out_channels, kernel)",
        'nn.init_conv(params, "conv", in_channels, out_channels, kernel), then nn.conv(params, "conv", x)',
    ),
    "LayerNorm": ("nn.LayerNorm(n)", 'nn.init_layer_norm(params, "ln", n), then nn.layer_norm(params, "ln", x)'),
    "scaled_dot_product_attention": (
        "F.scaled_dot_product_attention(q, k, v)",
        "nn.attention(q, k, v), or nn.causal_attention(q, k, v)",
    ),
    "SGD": ("torch.optim.SGD(params, lr)", "nn.sgd_step(params, lr) after each grad"),
    "Adam": ("torch.optim.Adam(params, lr)", "state = nn.adam_state(params), then nn.adam_step(params, state, lr)"),
}


def in_course_module(name: str, defined: Iterable[str]) -> str | None:
    """`nn.Linear` read from a module that is the course library (it defines what the DG way
    calls): that way, else None."""
    if name not in COURSE_LIBRARY:
        return None
    pytorch, dg = COURSE_LIBRARY[name]
    if not set(re.findall(r"\bnn\.(\w+)\(", dg)) <= set(defined):  # another module called nn
        return None
    return f"{pytorch} is PyTorch's; the course library's way: {dg}"


def course_library(name: str) -> str:
    """What DG's course library writes for PyTorch's `name`, one of COURSE_LIBRARY (`cross_entropy`)."""
    return f"DG's course library has it (programs/nn.dg, imported with `import nn`): {COURSE_LIBRARY[name][1]}"


def instead(name: str) -> tuple[str, str] | None:
    """(how PyTorch or NumPy writes `name`, what DG writes instead), or None if it is no habit."""
    if name in TENSOR_HABITS:
        return f"x.{name}()", TENSOR_HABITS[name].format(obj="loss" if name == "backward" else "x", owner="w")
    if name in LIBRARIES:
        return f"{name}.NAME", (
            f"DG's tensor functions are builtins, with nothing to import, written without `{name}.`: "
            "tensor(...), zeros(...), exp(...); `import` is for DG's own .dg files"
        )
    if name in OPTIMIZERS or name == "step":
        return "optimizer.step()", OPTIMIZER_HELP
    if name in RENAMED:
        return f"{name}(...)", f"DG writes `{RENAMED[name]}(...)`"
    if name in WRITTEN_INSTEAD:
        return f"torch.{name}(...)", WRITTEN_INSTEAD[name]
    if name in COURSE_LIBRARY:
        return COURSE_LIBRARY[name][0], course_library(name)
    return None

"""PyTorch's and NumPy's names a DG program is written with out of habit (`loss.backward()`,
`torch.tensor`, `optimizer.step()`), and what DG writes instead: the help line of the error a run
gives there (semantics/hints.py), and what `:help backward` says (help.py)."""

from __future__ import annotations

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
# Names a program copied from PyTorch or NumPy code reads without defining.
LIBRARIES = ("torch", "np", "numpy", "nn", "F")
OPTIMIZERS = ("optimizer", "optim", "opt")
OPTIMIZER_HELP = (
    "DG has no optimizers: update each parameter inside `with no_grad:`, as in `w -= lr * w.grad`, "
    "then clear its gradient with zero_grad(w)"
)
RENAMED = {"manual_seed": "seed", "array": "tensor", "from_numpy": "tensor", "Tensor": "tensor"}


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
    return None

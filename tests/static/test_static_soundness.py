"""static(f) computes what f computes: each way a trace was once found to differ from the dynamic
function, run both ways. Each program prints its results with `tolist()` (every float as Python's
repr, which round-trips), runs once with `g = static(f)` and once with `g = f`, and the two
outputs must be equal; where a trace had to be made again, its note says why in a student's
words. The guard model they exercise is stated in interpreter/static/guard_model.py.
"""

from __future__ import annotations

import io
import textwrap
from pathlib import Path
from typing import Any

import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.frontends.sessions import new_session


def run(program: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    session = new_session(out=out)
    session.err = err
    session.run(textwrap.dedent(program), "soundness.dg")
    return out.getvalue(), err.getvalue()


def both(program: str) -> str:
    """The program run with `g = static(f)`; its output must be the dynamic one. Returns its notes."""
    static_out, notes = run(program)
    dynamic_out, _ = run(program.replace("g = static(f)", "g = f"))
    assert static_out == dynamic_out, notes
    assert "Traceback" not in notes and "InternalError" not in notes, notes
    return notes


CASES = {
    "a global number changes": (
        """
        scale = 2.0
        def f(x):
            return x * scale
        g = static(f)
        x = tensor([1.0, 2.0])
        print(g(x).tolist())
        scale = 3.0
        print(g(x).tolist())
        """,
        "the global `scale` was 2.0 when traced and is 3.0 now",
    ),
    "a global string in an if": (
        """
        mode = "double"
        def f(x):
            if mode == "double":
                return x * 2
            return x
        g = static(f)
        x = tensor([1.0, 2.0])
        print(g(x).tolist())
        mode = "single"
        print(g(x).tolist())
        """,
        "the global `mode` was 'double' when traced and is 'single' now",
    ),
    "a global in range()": (
        """
        layers = 2
        def f(x):
            for i in range(layers):
                x = x * 2
            return x
        g = static(f)
        x = tensor([1.0, 2.0])
        print(g(x).tolist())
        layers = 3
        print(g(x).tolist())
        """,
        "the global `layers` was 2 when traced and is 3 now",
    ),
    "a global tensor rebound (read again, no new trace)": (
        """
        W = tensor([1.0, 1.0])
        def f(x):
            return x * W
        g = static(f)
        x = tensor([1.0, 2.0])
        print(g(x).tolist())
        W = tensor([5.0, 5.0])
        print(g(x).tolist())
        """,
        None,
    ),
    "a tensor in a global dict rebound": (
        """
        params = {"w": tensor([1.0, 1.0])}
        def f(x):
            return x * params["w"]
        g = static(f)
        x = tensor([1.0, 2.0])
        print(g(x).tolist())
        params["w"] = tensor([7.0, 7.0])
        print(g(x).tolist())
        """,
        None,
    ),
    "a global tensor rebound to another shape": (
        """
        W = tensor([1.0, 1.0])
        def f(x):
            return (x * W).sum()
        g = static(f)
        x = tensor([[1.0, 2.0], [3.0, 4.0]])
        print(g(x).tolist())
        W = tensor([[5.0], [5.0]])
        print(g(x).tolist())
        """,
        "the global `W` was a float[2] tensor when traced and is a float[2, 1] tensor now",
    ),
    "a helper redefined": (
        """
        def helper(x):
            return x + 1
        def f(x):
            return helper(x)
        g = static(f)
        x = tensor([1.0, 2.0])
        print(g(x).tolist())
        def helper(x):
            return x + 100
        print(g(x).tolist())
        """,
        "the global `helper` was redefined (at soundness.dg:9)",
    ),
    "a closure's list cell changes": (
        """
        def make():
            k = [2.0]
            def f(x):
                return x * k[0]
            return f, k
        f, k = make()
        g = static(f)
        x = tensor([1.0, 2.0])
        print(g(x).tolist())
        k[0] = 5.0
        print(g(x).tolist())
        """,
        "item 0 of the variable `k` of an enclosing function was 2.0 when traced and is 5.0 now",
    ),
    "a closure variable rebound by its function": (
        """
        def outer(x):
            k = 2.0
            def f(y):
                return y * k
            g = static(f)
            a = g(x)
            k = 3.0
            return [a.tolist(), g(x).tolist()]
        print(outer(tensor([1.0, 2.0])))
        """,
        "the variable `k` of an enclosing function was 2.0 when traced and is 3.0 now",
    ),
    "x.grad read in an if": (
        """
        def f(x):
            if x.grad == None:
                return x * 1
            return x * x.grad
        g = static(f)
        w = tensor([1.0, 2.0], requires_grad=True)
        print(g(w).tolist())
        w.grad = tensor([3.0, 3.0])
        print(g(w).tolist())
        """,
        None,
    ),
    "x.is_leaf and x.grad_fn": (
        """
        def f(x):
            if x.is_leaf and x.grad_fn == None:
                return x * 1
            return x * 2
        g = static(f)
        w = tensor([1.0, 2.0], requires_grad=True)
        print(g(w).tolist())
        print(g(w * 1).tolist())
        """,
        None,
    ),
    "0.0 then -0.0": (
        """
        def f(x, c):
            return x / c
        g = static(f)
        x = tensor([1.0, 2.0])
        print(g(x, 0.0).tolist())
        print(g(x, -0.0).tolist())
        print(g(x, float("nan")).tolist(), g(x, float("nan")).tolist())
        """,
        None,
    ),
    "-0.0 in a decision": (
        """
        def f(x):
            return x * (x.sum().item() + 1.0)
        g = static(f)
        print(g(tensor([0.0])).tolist())
        print(g(tensor([-0.0]) * 0.0).tolist())
        """,
        None,
    ),
    "an argument that is also a captured tensor": (
        """
        w = tensor([1.0, 2.0])
        def f(p):
            return p * w
        g = static(f)
        print(g(w).tolist())
        print(g(tensor([3.0, 4.0])).tolist())
        print(g(w).tolist())
        """,
        "the global `w` and the argument `p` were the same tensor when traced",
    ),
    "the same tensor passed twice": (
        """
        def f(a, b):
            return a * b + a
        g = static(f)
        a = tensor([1.0, 2.0])
        print(g(a, a).tolist())
        print(g(a, a).tolist())
        print(g(a, tensor([5.0, 5.0])).tolist())
        print(g(a, a).tolist())
        """,
        None,
    ),
    "keyword arguments and defaults": (
        """
        def f(x, s=2.0, t=1.0):
            return x * s + t
        g = static(f)
        x = tensor([1.0, 2.0])
        print(g(x).tolist(), g(x, s=3.0).tolist(), g(x, t=5.0, s=-1.0).tolist(), g(s=0.5, x=x).tolist())
        """,
        None,
    ),
    "a gradient through a non-leaf argument made from another": (
        """
        w = tensor([1.0, 2.0], requires_grad=True)
        def f(x, y):
            h = x * y + x
            return (h * h).sum()
        g = static(f)
        for i in range(3):
            L = g(w * 2.0, w)
            print(gradient(L, w).tolist())
            L = g(w * 2.0, w)
            grad L
            print(w.grad.tolist())
            w.grad = None
        """,
        None,
    ),
    "a second derivative through a replay": (
        """
        w = tensor([0.5, -1.5], requires_grad=True)
        def f(x):
            return (x * x * x).sum()
        g = static(f)
        for i in range(3):
            d = gradient(g(w * 2.0), w)
            print(d.tolist(), gradient(d.sum(), w).tolist())
        """,
        None,
    ),
    "an in-place change of a captured weight between calls": (
        """
        W = tensor([1.0, -2.0], requires_grad=True)
        def f(x):
            return (relu(x * W) * W).sum()
        g = static(f)
        x = tensor([1.0, 1.0])
        for i in range(4):
            L = g(x)
            grad L
            print(L.tolist(), W.grad.tolist())
            with no_grad:
                W -= 0.5 * W.grad
            W.grad = None
        """,
        None,
    ),
    "a module's name read": (
        """
        nn = {"scale": 2.0}
        def f(x):
            return x * nn["scale"]
        g = static(f)
        x = tensor([1.0, 2.0])
        print(g(x).tolist())
        nn["scale"] = 4.0
        print(g(x).tolist())
        """,
        "the item 'scale' of the global `nn` was 2.0 when traced and is 4.0 now",
    ),
    "a bool index picks a different number of elements": (
        """
        def f(x, m):
            return x[m].mean()
        g = static(f)
        x = tensor([1.0, 2.0, 3.0])
        print(g(x, tensor([True, False, True], dtype="bool")).tolist())
        print(g(x, tensor([True, True, True], dtype="bool")).tolist())
        """,
        "the number of elements `x[m]` on line 3 picks was 2 when traced and is 3 now",
    ),
    "an index of tensors in a tuple (the cross-entropy's pick)": (
        """
        W = tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
        def f(x, labels):
            scores = (x @ W).log_softmax(axis=1)
            return -scores[arange(labels.shape[0]), labels].mean()
        g = static(f)
        x = tensor([[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0]])
        for labels in [[0, 1, 2], [2, 2, 0], [1, 0, 1]]:
            L = g(x, tensor(labels, dtype="int"))
            grad L
            print(L.tolist(), W.grad.tolist())
            W.grad = None
        """,
        None,
    ),
    "a training step through max pooling (a rule given a tensor's values)": (
        """
        seed(0)
        W = randn(2, 1, 3, 3)
        W.requires_grad = True
        b = zeros(2, requires_grad=True)
        x = randn(2, 1, 6, 6)
        def f(x):
            h = max_pool2d(relu(conv2d(x, W, b, padding=1)), 2)
            L = (h * h).sum() + where(h > 0.5, h, 0.0).sum()
            zero_grad([W, b])
            grad L
            with no_grad:
                for p in [W, b]:
                    p -= 0.01 * p.grad
            return L
        g = static(f)
        for i in range(4):
            print(g(x).tolist(), W.sum().tolist(), W.grad.sum().tolist(), b.grad.sum().tolist())
        """,
        None,
    ),
    "a change to a list outside runs dynamically": (
        """
        losses = []
        def f(x):
            y = (x * 2).sum()
            losses.append(y.item())
            return y
        g = static(f)
        for i in range(3):
            g(tensor([1.0, float(i)]))
        print(losses)
        """,
        "runs f dynamically: it changes the list losses",
    ),
    "tensor() of another tensor's values": (
        """
        def f(x):
            return tensor(x) * 2
        g = static(f)
        print(g(tensor([1.0, 2.0])).tolist(), g(tensor([3.0, 4.0])).tolist())
        """,
        "runs f dynamically: tensor() gives it a tensor from the values of other tensors",
    ),
    "a detached copy of a global rebound": (
        """
        W = tensor([1.0, 2.0])
        def f(x):
            return x * W.detach()
        g = static(f)
        x = tensor([1.0, 1.0])
        print(g(x).tolist())
        W = tensor([3.0, 4.0])
        print(g(x).tolist())
        with no_grad:
            W += 1.0
        print(g(x).tolist())
        """,
        None,
    ),
    "an argument that is a view of another tensor, updated in place": (
        """
        def f(x):
            with no_grad:
                x -= 1.0
            return x.sum()
        g = static(f)
        a = tensor([1.0, 2.0, 3.0, 4.0])
        b = a.reshape(2, 2)
        for i in range(3):
            print(g(b).tolist(), a.tolist(), b.tolist())
        """,
        None,
    ),
    "zero_grad on a global whose .grad f never reads": (
        """
        W = tensor([1.0, 2.0], requires_grad=True)
        def f(x):
            zero_grad(W)
            return x * W
        g = static(f)
        x = tensor([1.0, 1.0])
        for i in range(3):
            grad (W * W).sum()
            print(g(x).tolist(), W.grad)
        """,
        None,
    ),
    "the .grad of a global read as it came in": (
        """
        W = tensor([1.0, 2.0], requires_grad=True)
        def f(x):
            if W.grad == None:
                return x * 2.0
            return x * W.grad
        g = static(f)
        x = tensor([1.0, 1.0])
        for i in range(4):
            print(g(x).tolist())
            if i % 2 == 0:
                grad (W * W).sum()
            else:
                W.grad = None
        """,
        "the .grad of the global `W` was None when traced and is set now",
    ),
    "a grad inside f adding to the .grad a global came in with": (
        """
        W = tensor([1.0, 2.0], requires_grad=True)
        def f(x):
            loss = (x * W).sum()
            grad loss
            return loss
        g = static(f)
        x = tensor([1.0, 3.0])
        for i in range(4):
            print(g(x).tolist(), W.grad.tolist())
            if i == 1:
                W.grad = None
        """,
        None,
    ),
    "a global bound to another global's .grad": (
        """
        W = tensor([1.0, 2.0], requires_grad=True)
        grad (W * W).sum()
        G = W.grad
        def f(x):
            zero_grad(W)
            return x * G
        g = static(f)
        x = tensor([1.0, 1.0])
        for i in range(3):
            print(g(x).tolist(), W.grad)
            grad (W * W * 3.0).sum()
            G = W.grad
        """,
        None,
    ),
    "f turns off requires_grad of a global": (
        """
        W = tensor([1.0, 2.0], requires_grad=True)
        def f(x):
            y = x * W
            W.requires_grad = False
            return y.sum()
        g = static(f)
        for i in range(3):
            W.requires_grad = True
            r = g(tensor([1.0, 1.0]))
            print(r.tolist(), W.requires_grad, r.requires_grad)
        """,
        "runs f dynamically: it turns requires_grad on or off for a tensor from outside it",
    ),
    "f sets a .grad to a tensor computed from one that requires grad": (
        """
        def f(x):
            x.grad = x * 0.0 + 2.0
            return (x * 3.0).sum()
        g = static(f)
        for i in range(3):
            a = tensor([1.0, 2.0], requires_grad=True)
            print(g(a).tolist(), a.grad)
        """,
        "runs f dynamically: it sets a .grad to a tensor it did not compute, or to one that requires grad",
    ),
    "grad inside f through an argument computed outside": (
        """
        w = tensor([1.0, 2.0], requires_grad=True)
        def f(x):
            L = (x * x).sum()
            grad L
            return L
        g = static(f)
        for i in range(2):
            g(w * 2.0)
            print(w.grad.tolist())
            w.grad = None
        """,
        "runs f dynamically: its `grad` reaches into the graph of a tensor computed outside it",
    ),
    "repeat_interleave with its counts in a tensor": (
        """
        def f(x, n):
            return x.repeat_interleave(n)
        g = static(f)
        for counts in [[1, 1], [2, 0], [2, 0], [0, 3]]:
            x = tensor([1.0, 2.0], requires_grad=True)
            y = g(x, tensor(counts, dtype="int"))
            grad (y * arange(float(y.shape[0]))).sum()
            print(y.tolist(), x.grad.tolist())
        print(g(tensor([1.0, 2.0]), tensor(2, dtype="int")).tolist())
        """,
        "re-traced f: `x.repeat_interleave(n)` on line 3 was [1, 1] when traced and is [2, 0] now",
    ),
    "enable_grad inside f, called under no_grad": (
        """
        def f(w):
            with enable_grad:
                return (w * 2.0).sum()
        g = static(f)
        w = tensor([1.0, 2.0], requires_grad=True)
        with no_grad:
            results = [g(w), g(w), g(w)]
        print([r.requires_grad for r in results])
        grad results[2]
        print(w.grad.tolist())
        """,
        None,
    ),
    "a default of a helper it calls changed": (
        """
        D = [2.0]
        def helper(x, d=D, scale={"k": 1.0}, w=tensor([1.0, 1.0])):
            return x * d[0] * scale["k"] * w
        def f(x):
            return helper(x)
        g = static(f)
        x = tensor([1.0, 2.0])
        print(g(x).tolist())
        D[0] = 5.0
        print(g(x).tolist())
        print(g(x).tolist())
        helper_defaults = D
        D.append(7.0)
        print(g(x).tolist())
        """,
        "re-traced f: item 0 of the default of `d` in the global `helper` was 2.0 when traced and is 5.0 now",
    ),
    "a default of a function given as an argument changed": (
        """
        D = {"k": 2.0}
        def helper(x, d=D):
            return x * d["k"]
        def f(x, fn):
            return fn(x)
        g = static(f)
        x = tensor([1.0, 2.0])
        print(g(x, helper).tolist())
        D["k"] = 5.0
        print(g(x, helper).tolist())
        """,
        None,
    ),
    "f reads the grad_fn of its argument": (
        """
        def f(x):
            return (x * 1.0).tolist(), str(x.grad_fn), x.is_leaf
        g = static(f)
        a = tensor(1.0, requires_grad=True)
        print(g(a * 2.0), g(a + 2.0), g(a * 3.0), g(a))
        """,
        "runs f dynamically: it reads a tensor's grad_fn",
    ),
    "an argument changed in place under no_grad, then computed with": (
        """
        w = tensor([1.0, 2.0], requires_grad=True)
        def f(w):
            with no_grad:
                w *= 1.5
            return (w * w).sum()
        g = static(f)
        for i in range(3):
            y = g(w)
            grad y
            print(i, y.tolist(), w.grad.tolist())
        """,
        "runs f dynamically: it computes with a tensor that requires grad after changing it in place",
    ),
    "the list tolist() gave, changed inside f": (
        """
        def f(x):
            l = x.tolist()
            a = l[0]
            l[0] = 0.0
            return a
        g = static(f)
        for v in [1.0, 0.0, 1.0]:
            print(g(tensor([v, 2.0])))
        """,
        None,
    ),
    "the list tolist() gave, changed by the caller": (
        """
        def f(x):
            l = x.tolist()
            return l, l[0] * 10.0
        g = static(f)
        l, a = g(tensor([1.0, 2.0]))
        l[0] = 5.0
        print(l, a, g(tensor([5.0, 2.0])), g(tensor([1.0, 2.0])))
        """,
        None,
    ),
    "a tensor changed in place and returned is that tensor": (
        """
        ps = [tensor([1.0, 2.0])]
        w = tensor([1.0, 2.0], requires_grad=True)
        def f(x):
            x += 1.0
            ps[0] *= 2.0
            zero_grad(w)
            grad (w * w).sum()
            return x, [ps[0]], w.grad
        g = static(f)
        for i in range(3):
            x = tensor([1.0, 1.0])
            y, kept, wg = g(x)
            y += 10.0
            kept[0] += 100.0
            wg += 1000.0
            print(i, x.tolist(), ps[0].tolist(), w.grad.tolist())
        """,
        None,
    ),
    "f draws what a tensor holds": (
        """
        def f(x):
            y = x * 2.0
            plot(y)
            show_image(y.reshape(2, 2))
            return y.sum()
        g = static(f)
        for i in range(3):
            print(g(tensor([1.0, 2.0 + i, 0.0, 3.0])).tolist())
        """,
        "runs f dynamically: it shows what tensors hold with plot()",
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_static_computes_what_f_computes(case: str) -> None:
    program, note = CASES[case]
    notes = both(program)
    assert note is None or note in notes, notes


def test_a_rebound_global_tensor_of_the_same_shape_needs_no_new_trace() -> None:
    _, notes = run("""
        W = tensor([1.0, 1.0])
        def f(x):
            return x * W
        g = static(f)
        for i in range(5):
            W = tensor([float(i), 1.0])
            g(tensor([1.0, 2.0]))
        static_info(g, timing=False)
        """)
    assert notes == ""


def test_an_add_whose_input_changed_in_place_under_no_grad_still_differentiates() -> None:
    """Add saves no input value: PyTorch gives the gradient, and so does DG (Op.saved)."""
    out, notes = run("""
        a = tensor([1.0, 2.0], requires_grad=True)
        b = tensor([3.0, 4.0])
        y = a + b
        with no_grad:
            b += 1.0
        grad y.sum()
        print(a.grad.tolist())
        """)
    assert out == "[1.0, 1.0]\n", notes


def test_a_list_of_a_module_changed_inside_runs_dynamically(tmp_path: Path) -> None:
    (tmp_path / "hist.dg").write_text("history = []\n", encoding="utf-8")
    program = (
        "import hist\ndef f(x):\n    y = (x * 2).sum()\n    hist.history.append(y.item())\n    return y\n"
        "g = static(f)\nfor i in range(4):\n    g(tensor([1.0, float(i)]))\nprint(hist.history)\n"
    )
    out, err = io.StringIO(), io.StringIO()
    session = new_session(out=out, base_dir=tmp_path)
    session.err = err
    session.run(program, str(tmp_path / "main.dg"))
    assert out.getvalue() == "[2.0, 4.0, 6.0, 8.0]\n"
    assert err.getvalue().count("Note:") == 1 and "it changes the list hist.history" in err.getvalue()


def test_a_tensor_turned_into_text_runs_dynamically() -> None:
    notes = both("""
        def f(x):
            return f"{x.sum()}" + str(x)
        g = static(f)
        print(g(tensor([1.0])), g(tensor([2.0])))
        """)
    assert notes.count("runs f dynamically: it turns a tensor's values into text") == 1, notes


def test_a_replayed_call_leaves_no_cycle_for_the_collector(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each call's result node and its record are freed when the result is, without waiting for
    the cyclic collector (which, with each record holding the call's arrays, would let memory grow)."""
    import gc
    import weakref

    from dglang.interpreter.static import replaying

    records: list[weakref.ref[Any]] = []  # each record made

    class Counted(replaying.CallRecord):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            records.append(weakref.ref(self))

    monkeypatch.setattr(replaying, "CallRecord", Counted)
    gc.disable()
    try:
        run("""
            W = tensor([1.0, -2.0], requires_grad=True)
            def f(x):
                return (x * W).exp()  # (exp's rule reads its output: the output is watched)
            g = static(f)
            for i in range(50):
                L = g(tensor([1.0, 2.0]))
            """)
        alive = sum(1 for r in records if r() is not None)
    finally:
        gc.enable()
    assert len(records) >= 49 and alive <= 1  # (the last result's, which its session holds)


def test_the_guards_as_code_pass_a_step_count_kept_in_a_tensor() -> None:
    """`t += 1` on a 0-d tensor leaves a NumPy scalar in it: the generated guards accept it as the
    description walk does, so a training step with Adam's step count replays without the walk."""
    import numpy as np

    from dglang.autograd import Tensor
    from dglang.interpreter.static.guard_model import Walk
    from dglang.interpreter.static.static_builtins import static_function

    out, err = io.StringIO(), io.StringIO()
    session = new_session(out=out)
    session.err = err
    session.run(
        textwrap.dedent("""
        t = tensor(0.0)
        def f(x):
            with no_grad:
                step = t
                step += 1
            return x * t
        g = static(f)
        for i in range(3):
            print(g(tensor([1.0])).tolist())
        """),
        "count.dg",
    )
    assert out.getvalue() == "[1.0]\n[2.0]\n[3.0]\n", err.getvalue()
    fn = static_function(session.globals.vars["g"])
    walk = Walk()
    walk.describe(Tensor(np.array([1.0])))  # the call's argument, as a call describes it first
    assert fn.cached()[-1].check(walk)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "uint8", "bool"])
def test_a_walk_describes_a_tensor_as_the_tensor_names_itself(dtype: str) -> None:
    """The walk reads an array's shape and dtype kind itself (a key is made at every call):
    what it says must be what Tensor.shape and Tensor.dtype say, for every kind of array."""
    import numpy as np

    from dglang.autograd import Tensor
    from dglang.interpreter.static.guard_model import Walk

    for t in (Tensor(np.zeros((2, 3), dtype=dtype)), Tensor(np.zeros((), dtype=dtype)[()]), Tensor(2.0)):
        described = Walk().describe(t)
        assert described[1:3] == (t.shape, t.dtype)


def test_a_function_that_never_touches_a_grad_is_traced_once_while_training_sets_it() -> None:
    """A .grad the trace never read is not among its guards: training around a static forward
    (its weights' .grad set, then cleared) does not make it trace again."""
    out, notes = run("""
        W = tensor([1.0, 2.0], requires_grad=True)
        def predict(x):
            return (x * W).sum()
        g = static(predict)
        x = tensor([1.0, 1.0])
        for i in range(4):
            loss = g(x) * 2.0
            grad loss
            with no_grad:
                W -= 0.1 * W.grad
            if i % 2 == 1:
                W.grad = None
        static_info(g, timing=False)
        """)
    assert "re-traced" not in notes and "1 trace," in out, out + notes


def test_a_builtin_written_in_python_that_reads_a_grad_keeps_it_guarded() -> None:
    """A builtin the tracer does not know (a tool's or an exercise's, written in Python) may test
    `t.grad is None` where no trace can see it: the .grad of each tensor it is given stays guarded."""
    from dglang.interpreter.library.runtime import Builtin

    program = textwrap.dedent("""
        W = tensor([1.0, 2.0], requires_grad=True)
        def f(x):
            if grad_is_set(W):
                return x * 2.0
            return x * 3.0
        g = static(f)
        for i in range(4):
            print(g(tensor([1.0, 1.0])).tolist())
            if i % 2 == 0:
                grad (W * W).sum()
            else:
                W.grad = None
        """)
    outputs = []
    for text in (program, program.replace("g = static(f)", "g = f")):
        out, err = io.StringIO(), io.StringIO()
        session = new_session(out=out)
        session.err = err
        session.builtins.vars["grad_is_set"] = Builtin("grad_is_set", lambda t: t.grad is not None)
        session.run(text, "builtin.dg")
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1] == "[3.0, 3.0]\n[2.0, 2.0]\n[3.0, 3.0]\n[2.0, 2.0]\n", err.getvalue()


def test_a_training_step_given_its_parameters_is_traced_once() -> None:
    """Lesson 19's `step(params)`: it calls zero_grad first, so the .grad each parameter comes in
    with (None at the first call, set after) is not read, and the call after the first replays its
    trace (the first try tests the arguments without those .grads) instead of tracing again."""
    program = """
        seed(0)
        X = randn(8, 2)
        W1 = randn(2, 4, requires_grad=True)
        W2 = randn(4, 1, requires_grad=True)
        def f(params):
            W1, W2 = params
            loss = relu(X @ W1) @ W2
            loss = (loss * loss).mean()
            zero_grad(params)
            grad loss
            with no_grad:
                for p in params:
                    p -= 0.1 * p.grad
            return loss
        g = static(f)
        for i in range(4):
            print(g([W1, W2]).tolist(), W1.grad.tolist())
        """
    both(program)
    out, notes = run(program + "static_info(g, timing=False)\n")
    assert "1 trace," in out and "re-traced" not in notes, out + notes


@pytest.mark.parametrize("clear", ["w.grad = None", "zero_grad(w)", "pass"])
def test_an_argument_whose_grad_the_trace_adds_to_keeps_it_guarded(clear: str) -> None:
    """A `grad` inside that adds to the .grad an argument came in with reads it: a call with that
    .grad set where it was None (or the other way) must not replay the trace made without it."""
    both(f"""
        def f(w):
            grad (w * w).sum()
            return w.grad * 1.0
        g = static(f)
        w = tensor([1.0, 2.0], requires_grad=True)
        for i in range(4):
            print(g(w).tolist())
            if i == 1:
                {clear}
        """)


def test_a_gradient_through_the_loss_a_training_step_returns() -> None:
    """A step that takes `grad` inside and writes the .grads returns its loss; a `grad` of that
    loss after a replayed call goes through the generated backward, which is given the arrays
    the forward kept (those for the .grads it writes too) and must take them all."""
    both("""
        w = tensor([1.0, 2.0], requires_grad=True)
        def f(x):
            loss = (w * x).sum()
            grad loss
            return loss
        g = static(f)
        for i in range(3):
            loss = g(tensor([3.0, 4.0]))
            print(w.grad.tolist())
            grad loss
            print(w.grad.tolist())
        """)


@pytest.mark.parametrize("seed", ["", " with s", " with k", " with 2.0", " with s * k", " with zeros_like(y) + k"])
def test_the_seed_of_a_grad_inside_is_what_the_program_gives(seed: str) -> None:
    """A `grad` with no seed gets ones from the engine, which the trace folds as a number written in
    the program (`1 / n` of a mean's rule is computed when traced); a seed the program gives is read
    as the program has it at each call: a global tensor changed in place between calls, a number."""
    both(f"""
        k = 2.0
        w = tensor([1.0, 2.0], requires_grad=True)
        s = tensor(3.0)
        def f(x):
            w.grad = None
            y = (w * x).mean()
            grad y{seed}
            return w.grad * 1.0
        g = static(f)
        for i in range(4):
            print(g(tensor([3.0, 4.0])).tolist())
            k = k * 3.0
            with no_grad:
                s += 1.0
        """)


def test_a_second_derivative_leaves_out_an_argument_the_result_does_not_use() -> None:
    """`gradient` through a replayed call builds the gradient's own graph from the trace's steps;
    an argument the result does not depend on (x, overwritten) gets no gradient there, as in the
    dynamic graph, which never reaches it: zeros sent to it went on into tanh's graph, and made
    dx require grad (and ddx -0.0) where the dynamic dx is a constant."""
    both("""
        def f(x, y):
            a = x * 2.0
            a = (y + y) + relu(y)
            return a
        g = static(f)
        W = tensor([0.3, -0.5], requires_grad=True)
        for i in range(3):
            r = g(tanh(W), W)
            dx = gradient(r.sum(), W)
            print(dx.tolist(), dx.requires_grad)
            if dx.requires_grad:
                print(gradient((dx * dx).sum(), W).tolist())
        """)


def test_an_update_in_place_after_a_step_the_result_does_not_come_from_lets_a_gradient_through() -> None:
    """f overwrites `a`, so the steps that made the first `a` (whose rules read W) are not on the
    way back from its result, and a dynamic walk never reaches them; after f updates W in place, a
    gradient through the result must go through as it does dynamically, not refuse for a value
    only those steps read (found by the static oracle, tests/static/test_static_oracle.py)."""
    both("""
        g1 = 2.0
        mode = "a"
        k = [0.5]
        layers = 2
        Wbase = tensor([-0.2, 1.1, 0.3])
        W = tensor([-0.2, 0.9, 0.9], requires_grad=True)
        mask = tensor([False, False, True], dtype="bool")
        order = tensor([2, 2, 1], dtype="int")
        P = {"w": tensor([2.1, -0.2, -0.2]), "on": True}
        def helper(v):
            return v * g1 + 0.5
        def make():
            def inner(v):
                return v * k[0]
            return inner
        inner = make()
        def show(label, t):
            if type(t) == type([]):
                for u in t:
                    show(label, u)
            elif type(t) == type(W):
                print(label, t.tolist(), t.requires_grad)
            else:
                print(label, t)
        def grads():
            show("W.grad", W.grad)
            show("x.grad", x0.grad)
            show("Wbase", Wbase)
            W.grad = None
            x0.grad = None
        def f(x, y, s=2.0):
            a = x * W + y
            for i in range(layers):
                b = ((W * 2.0).reshape(1, -1, 1) @ W.reshape(1, -1)).sum(axis=1).reshape(-1)
                a = b * (helper(x) / (1.0 + a * a))
                n = 0
                while (a * a).sum() > 0.01 and n < 3:
                    a = a * 0.5
                    n = n + 1
            a = where(softmax(W, dim=0) > 0.1, softmax(W, dim=0), ((y * k[0]) * y))
            loss = (a * a).sum()
            if loss.requires_grad:
                n = 0
                grad loss
                with no_grad:
                    for p in [W]:
                        if p.grad != None:
                            p -= 0.125 * p.grad
            return loss
        g = static(f)
        x0 = tensor([1.1, 2.1, 2.1], requires_grad=True)
        y0 = tensor([0.0, 0.3, -1.3])
        k.append(-0.75)
        W = tensor([0.3, 0.0, 0.3], requires_grad=True)
        k.append(1.5)
        r = g(W, y0)
        show("r", r)
        if type(r) == type(W) and r.requires_grad and x0.requires_grad:
            dx = gradient(r.sum(), x0)
            show("dx", dx)
            if dx.requires_grad:
                show("ddx", gradient((dx * dx).sum(), x0))
        grads()
        mode = "a"
        P["on"] = False
        r = g(W, y0)
        show("r", r)
        if type(r) == type(W) and r.requires_grad and W.requires_grad:
            dx = gradient(r.sum(), W)
            show("dx", dx)
            if dx.requires_grad:
                show("ddx", gradient((dx * dx).sum(), W))
        grads()
        """)


def fails_alike(program: str) -> str:
    """The program fails the same way with `g = static(f)` as with `g = f`; returns the static run's notes."""
    outcomes = []
    for text in (program, program.replace("g = static(f)", "g = f")):
        out, err = io.StringIO(), io.StringIO()
        session = new_session(out=out)
        session.err = err
        with pytest.raises(DGError) as caught:
            session.run(textwrap.dedent(text), "soundness.dg")
        outcomes.append((out.getvalue(), format_error(caught.value), err.getvalue()))
    (static_out, static_error, notes), (dynamic_out, dynamic_error, _) = outcomes
    assert (static_out, static_error) == (dynamic_out, dynamic_error)
    return notes


def test_assert_close_inside_f_is_checked_at_every_call() -> None:
    notes = fails_alike("""
        def f(x):
            assert_close(x, tensor(1.0))
            return x * 2.0
        g = static(f)
        print(g(tensor(1.0)).tolist())
        print(g(tensor(1.0)).tolist())
        print(g(tensor(5.0)).tolist())
        """)
    assert "runs f dynamically: it checks values with assert_close()" in notes


def test_detect_anomaly_inside_f_checks_every_call() -> None:
    notes = fails_alike("""
        def f(x):
            with detect_anomaly:
                grad sqrt(x).sum()
            return x.grad
        g = static(f)
        print(g(tensor([1.0], requires_grad=True)).tolist())
        print(g(tensor([4.0], requires_grad=True)).tolist())
        print(g(tensor([0.0], requires_grad=True)).tolist())
        """)
    assert "runs f dynamically: its `grad` runs while each step of it is watched" in notes


def test_detect_anomaly_around_a_call_blames_the_op_inside_f() -> None:
    notes = fails_alike("""
        def f(x):
            return sqrt(x).sum()
        g = static(f)
        for v in [1.0, 4.0]:
            x = tensor([v], requires_grad=True)
            grad g(x)
            print(x.grad.tolist())
        x = tensor([0.0], requires_grad=True)
        with detect_anomaly:
            grad g(x)
        """)
    assert "runs f as it is while each step of a backward pass is watched" in notes


@pytest.mark.parametrize(
    ("failing", "bad"),
    [("x[i]", "[1, 3]"), ("x.gather(0, i)", "[1, 3]"), ("i // (3 - i)", "[3, 1]"), ("i ** (i - 1)", "[0, 1]")],
)
def test_an_op_that_fails_in_a_replay_is_shown_where_it_is_in_f(failing: str, bad: str) -> None:
    """The replay's error is the op's; f run as it is places it inside f, with f in the call stack."""
    notes = fails_alike(f"""
        def f(x, i):
            return {failing}
        g = static(f)
        x = tensor([1.0, 2.0, 3.0])
        print(g(x, tensor([1, 2], dtype="int")).tolist())
        print(g(x, tensor([2, 1], dtype="int")).tolist())
        print(g(x, tensor({bad}, dtype="int")).tolist())
        """)
    assert notes == ""

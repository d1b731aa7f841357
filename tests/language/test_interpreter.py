"""The language's semantics, statement by statement, through a Session (no subprocess)."""

from __future__ import annotations

import io
from pathlib import Path
from textwrap import dedent

import numpy as np
import pytest
from graph_util import graph_behind

from dglang import autograd as ag
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.frontends.sessions import new_session as Session


def run(text: str, base_dir: Path | None = None) -> str:
    out = io.StringIO()
    Session(out=out, base_dir=base_dir).run(text, "<test>")
    return out.getvalue()


def session_after(text: str) -> Session:
    session = Session(out=io.StringIO())
    session.run(text, "<test>")
    return session


def fails(text: str) -> DGError:
    with pytest.raises(DGError) as caught:
        run(text)
    return caught.value


# ---- values and operators ------------------------------------------------------------------
def test_numbers_follow_python() -> None:
    assert run("print(7 / 2, 7 // 2, 7 % 3, 2 ** 10, -3 ** 2, 1e-3, 2.5 * 2)") == "3.5 3 1 1024 -9 0.001 5.0\n"


def test_integers_stay_integers_for_counting_and_indexing() -> None:
    assert run("n = 0\nfor i in range(4):\n    n += i\nprint(n, [1, 2, 3][n - 5])") == "6 2\n"


def test_strings_lists_tuples() -> None:
    out = run('xs = [1, 2] + [3]\nt = (1, "a")\nprint(xs, len(xs), xs[-1], xs[1:], t, t[1], "ab" * 2, (1,))')
    assert out == "[1, 2, 3] 3 3 [2, 3] (1, 'a') a abab (1,)\n"


def test_tuple_unpacking_and_swapping() -> None:
    assert run("def f():\n    return 1, 2\nx, y = f()\nx, y = y, x\nprint(x, y)") == "2 1\n"


def test_augmented_assignment() -> None:
    assert run("x = 5\nx -= 2\nx *= 3\nx /= 2\nxs = [1]\nxs += [2]\nprint(x, xs)") == "4.5 [1, 2]\n"


def test_comparisons_chain_and_short_circuit() -> None:
    out = run("def boom():\n    return 1 / 0\nprint(1 < 2 < 3, 3 < 2 < boom(), 0 or 5, 1 and 0, not 0, 2 in [1, 2])")
    assert out == "True False 5 0 True True\n"


def test_conditional_expression() -> None:
    assert run("x = 3\nprint('big' if x > 2 else 'small')") == "big\n"


def test_fstrings_format_numbers_and_tensors() -> None:
    out = run('x = tensor(2.0)\nname = "loss"\nprint(f"{name}: {x:.3f} {3} {[1, 2]} {{}}")')
    assert out == "loss: 2.000 3 [1, 2] {}\n"


def test_print_separators() -> None:
    assert run('print(1, 2, sep="-", end="!")\nprint()') == "1-2!\n"


# ---- control flow ----------------------------------------------------------------------------
def test_if_elif_else() -> None:
    program = dedent("""\
        def sign(x):
            if x > 0:
                return 1
            elif x < 0:
                return -1
            else:
                return 0
        """)
    assert run(program + "print(sign(5), sign(-2), sign(0))") == "1 -1 0\n"


def test_while_break_continue() -> None:
    program = dedent("""\
        i = 0
        out = []
        while True:
            i += 1
            if i > 6:
                break
            if i % 2:
                continue
            out.append(i)
        print(out)
        """)
    assert run(program) == "[2, 4, 6]\n"


def test_for_over_range_list_string_and_tensor_rows() -> None:
    program = (
        "out = []\n"
        "for i in range(2):\n    out.append(i)\n"
        "for s in ['a', 'b']:\n    out.append(s)\n"
        "for c in 'xy':\n    out.append(c)\n"
        "for row in tensor([[1.0, 2.0], [3.0, 4.0]]):\n    out.append(row.sum().item())\n"
        "for i, v in enumerate([10, 20]):\n    out.append(i * v)\n"
        "print(out)"
    )
    assert run(program) == "[0, 1, 'a', 'b', 'x', 'y', 3.0, 7.0, 0, 20]\n"


def test_loop_inside_function_returns_from_the_function() -> None:
    assert (
        run(
            dedent("""\
                def first_big(xs):
                    for x in xs:
                        if x > 2:
                            return x
                    return None
                print(first_big([1, 5, 9]))
                """)
        )
        == "5\n"
    )


# ---- functions -------------------------------------------------------------------------------
def test_defaults_keywords_and_recursion() -> None:
    program = (
        "def f(a, b=10, c=100):\n    return a + b + c\ndef fact(n):\n    return 1 if n <= 1 else n * fact(n - 1)\n"
    )
    assert (
        run(program + "print(f(1), f(1, 2), f(1, c=3), f(b=1, a=2), fact(20))")
        == "111 103 14 103 2432902008176640000\n"
    )


def test_closures_see_their_defining_scope() -> None:
    assert run("def make(k):\n    def add(x):\n        return x + k\n    return add\nprint(make(3)(4))") == "7\n"


def test_functions_read_globals_but_assign_locals() -> None:
    assert run("g = 1\ndef f():\n    h = g + 1\n    return h\nprint(f(), g)") == "2 1\n"


def test_comprehension_variable_does_not_leak() -> None:
    assert "NameError" in fails("ys = [x * 2 for x in range(3)]\nprint(x)").kind


def test_deep_recursion_within_the_limit() -> None:
    assert (
        run("def depth(n):\n    if n == 0:\n        return 0\n    return 1 + depth(n - 1)\nprint(depth(5000))")
        == "5000\n"
    )


def test_recursion_limit_is_configurable() -> None:
    session = Session(out=io.StringIO(), max_depth=50)
    with pytest.raises(DGError) as caught:
        session.run("def f(n):\n    return f(n + 1)\nf(0)", "<test>")
    assert caught.value.kind == "RecursionError" and "50" in caught.value.message


# ---- tensors and autograd through the language -------------------------------------------
DEMO = Path(__file__).resolve().parents[2] / "programs" / "02_branches.dg"


def test_seed_demo_prints_pytorch_numbers() -> None:
    out = run(DEMO.read_text())
    assert "output_positive: tensor([ 2., -2.,  4.], grad_fn=<MulBackward>)" in out
    assert "output_negative: tensor([-5., -4., -3.], grad_fn=<SubBackward>)" in out
    assert "input_positive.grad: tensor([2., 2., 2.])" in out
    assert "input_negative.grad: tensor([1., 1., 1.])" in out


def ops_in_graph(t: ag.Tensor) -> set[str]:
    return {n.grad_fn.op.name for n in graph_behind(t) if n.grad_fn is not None}


def test_untaken_branch_records_no_node() -> None:
    session = session_after(DEMO.read_text())
    positive = session.globals.vars["output_positive"]
    negative = session.globals.vars["output_negative"]
    assert ops_in_graph(positive) == {"Mul"}
    assert ops_in_graph(negative) == {"Sub"}


def test_loop_records_exactly_the_iterations_that_ran() -> None:
    session = session_after(
        "x = tensor(1.0, requires_grad=True)\ny = x\nn = 0\nwhile y.item() < 100:\n    y = y * 3\n    n += 1\ngrad y"
    )
    y, x, n = (session.globals.vars[k] for k in ("y", "x", "n"))
    assert n == 5 and len(graph_behind(y)) == n + 1
    assert x.grad.item() == pytest.approx(3.0**5)


def test_node_used_twice_gets_both_contributions() -> None:
    session = session_after("a = tensor([1.0, 2.0], requires_grad=True)\nb = a + a\nc = (b * a).sum()\ngrad c")
    assert np.allclose(session.globals.vars["a"].grad.data, [4.0, 8.0])  # c = 2a², dc/da = 4a


def test_grad_with_seed_and_accumulation_and_zero_grad() -> None:
    out = run(
        "x = tensor([1.0, 2.0], requires_grad=True)\n"
        "y = x * x\n"
        "grad y with tensor([1.0, 10.0])\n"
        "print(x.grad)\n"
        "grad y.sum()\n"
        "print(x.grad)\n"
        "zero_grad(x)\n"
        "print(x.grad)\n"
    )
    assert out == "tensor([ 2., 40.])\ntensor([ 4., 44.])\nNone\n"


def test_no_grad_updates_the_leaf_in_place() -> None:
    session = session_after(
        "w = tensor([1.0, 2.0], requires_grad=True)\nleaf = w\nloss = (w * w).sum()\ngrad loss\n"
        "with no_grad:\n    w -= 0.5 * w.grad\n"
    )
    w = session.globals.vars["w"]
    assert w is session.globals.vars["leaf"] and w.is_leaf and w.requires_grad
    assert np.allclose(w.data, [0.0, 0.0])


def test_no_grad_block_restores_recording_even_after_an_error() -> None:
    session = Session(out=io.StringIO())
    with pytest.raises(DGError):
        session.run("with no_grad:\n    x = 1 / 0", "<test>")
    assert ag.is_grad_enabled()


def test_no_grad_call_form_like_pytorch() -> None:
    assert (
        run("x = tensor(1.0, requires_grad=True)\nwith no_grad():\n    y = x * 2\nprint(y.requires_grad)") == "False\n"
    )


def test_indexing_is_differentiable() -> None:
    session = session_after(
        "x = tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)\n"
        "y = x[0, 1] + x[:, 2].sum() + x[-1][0] * 2 + x[[0, 0]].sum()\n"
        "grad y"
    )
    assert np.allclose(session.globals.vars["x"].grad.data, [[2, 3, 3], [2, 0, 1]])


def test_tensor_comparison_in_if_like_pytorch() -> None:
    assert run("x = tensor([1.0, -3.0])\nif x.sum() > 0:\n    print('pos')\nelse:\n    print('neg')") == "neg\n"


def test_item_assignment_outside_the_graph() -> None:
    assert (
        run("m = zeros(2, 2)\nm[0, 1] = 5\nm[1] = tensor([7.0, 8.0])\nprint(m)")
        == "tensor([[0., 5.],\n        [7., 8.]])\n"
    )


def test_integer_tensors_index() -> None:
    assert (
        run("x = tensor([10.0, 20.0, 30.0])\nprint(x[arange(2)], x[tensor([2, 0], dtype='int')])")
        == "tensor([10., 20.]) tensor([30., 10.])\n"
    )


def test_math_builtins_map_numbers_to_numbers_and_tensors_to_tensors() -> None:
    assert run("print(exp(0.0), relu(-2), type(exp(tensor(0.0))))") == "1.0 0.0 tensor\n"


def test_max_and_sum_are_polymorphic() -> None:
    assert (
        run("print(max(3, 7), max([1, 9]), max(tensor([1.0, 4.0])), sum([1, 2]), sum(ones(2, 2), axis=0))")
        == "7 9 tensor(4.) 3 tensor([2., 2.])\n"
    )


def test_moons_dataset() -> None:
    assert run("X, y = moons(50, noise=0.1, seed=1)\nprint(X.shape, y.shape, y.sum().item())") == "(50, 2) (50,) 25.0\n"


def test_load_csv_reads_relative_to_the_program(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text("x,y\n1,2\n3,4\n")
    assert run('d = load_csv("data.csv")\nprint(d)', base_dir=tmp_path) == "tensor([[1., 2.],\n        [3., 4.]])\n"


def test_gradient_builtin_is_differentiable_again() -> None:
    assert (
        run(
            "x = tensor(2.0, requires_grad=True)\ny = x ** 3\n"
            "d = gradient(y, x)\nprint(d.item(), gradient(d, x).item())"
        )
        == "12.0 12.0\n"
    )


# ---- the sandbox ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "x = tensor([1.0])\nx.__class__",
        "x = tensor([1.0])\nx.data.__dict__",
        "print.__self__",
        "[].__class__",
        "'abc'.format",
        "import os",
        "__import__('os')",
        "open('x')",
        "eval('1')",
        "load_csv('/etc/passwd')",
    ],
)
def test_programs_cannot_reach_python(text: str) -> None:
    error = fails(text)
    assert error.kind in {"AttributeError", "SyntaxError", "NameError", "FileError", "ImportError"}

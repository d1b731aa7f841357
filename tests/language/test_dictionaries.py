"""Dictionaries: literals, indexing, assignment, del, in, len, iteration, methods, comprehensions;
which keys are allowed; tensors as values keep their gradients; limits; printing as Python does."""

from __future__ import annotations

import io

import numpy as np
import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.frontends.sessions import new_session as Session
from dglang.interpreter.library import dictionaries


def run(text: str) -> str:
    out = io.StringIO()
    Session(out=out).run(text, "<test>")
    return out.getvalue()


def fails(text: str) -> DGError:
    with pytest.raises(DGError) as caught:
        run(text)
    return caught.value


def test_literals_index_assign_delete_in_len() -> None:
    out = run(
        'd = {"a": 1, 2: "two", (1, "x"): None, 1.5: [1], True: "t"}\n'
        'd["b"] = 3\n'
        'd["a"] += 10\n'
        "del d[2]\n"
        'print(d, len(d), "a" in d, 2 in d, "z" not in d, d[(1, "x")], d[1.5])\n'
    )
    assert out == "{'a': 11, (1, 'x'): None, 1.5: [1], True: 't', 'b': 3} 5 True False True None [1]\n"


def test_keys_that_python_counts_as_equal_are_one_key() -> None:
    assert run("print({1: 'a', 1.0: 'b', True: 'c'})") == "{1: 'c'}\n"


def test_empty_braces_are_an_empty_dict_and_false() -> None:
    assert run("d = {}\nprint(d, type(d), bool(d), len(d))") == "{} dict False 0\n"


def test_iteration_goes_over_the_keys_in_insertion_order() -> None:
    out = run('d = {"b": 1, "a": 2}\nd["c"] = 3\nfor k in d:\n    print(k)\nprint(list(d), sorted(d), [k for k in d])')
    assert out == "b\na\nc\n['b', 'a', 'c'] ['a', 'b', 'c'] ['b', 'a', 'c']\n"


def test_a_loop_may_change_the_dict_it_goes_over() -> None:
    """Python stops such a loop with a RuntimeError; DG goes over the keys there were at the start."""
    assert run("d = {1: 1, 2: 2}\nfor k in d:\n    d[k + 10] = 0\n    del d[k]\nprint(d)") == "{11: 0, 12: 0}\n"


def test_methods() -> None:
    out = run(
        'd = {"w": 1, "b": 2}\n'
        'print(d.keys(), d.values(), d.items(), d.get("w"), d.get("z"), d.get("z", 0))\n'
        'print(d.pop("w"), d, d.pop("z", -1))\n'
        'e = d.copy()\ne["b"] = 5\nd.update({"x": 9})\nd.update([("y", 8)])\n'
        "print(d, e)\n"
    )
    assert out == (
        "['w', 'b'] [1, 2] [('w', 1), ('b', 2)] 1 None 0\n1 {'b': 2} -1\n{'b': 2, 'x': 9, 'y': 8} {'b': 5}\n"
    )


def test_dict_builtin() -> None:
    out = run('print(dict(), dict([("a", 1)]), dict(zip(["x", "y"], [1, 2])), dict(lr=0.1), dict({1: 2}))')
    assert out == "{} {'a': 1} {'x': 1, 'y': 2} {'lr': 0.1} {1: 2}\n"


def test_comprehensions() -> None:
    out = run(
        "squares = {n: n * n for n in range(5) if n % 2 == 0}\n"
        'swapped = {v: k for k, v in {"a": 1, "b": 2}.items()}\n'
        "print(squares, swapped)\n"
    )
    assert out == "{0: 0, 2: 4, 4: 16} {1: 'a', 2: 'b'}\n"


def test_comprehension_variables_stay_inside() -> None:
    assert fails("d = {k: 1 for k in range(3)}\nprint(k)").kind == "NameError"


def test_equality_compares_keys_and_values() -> None:
    out = run('print({"a": [1, 2]} == {"a": [1, 2]}, {1: 2} == {1: 3}, {1: 2} != {2: 2}, {} == [], {1: 2} in [{1: 2}])')
    assert out == "True False True False True\n"


def test_a_dict_inside_itself_prints_and_compares_without_crashing() -> None:
    out = run("d = {}\nd['me'] = d\nprint(d, d == d)")
    assert out == "{'me': {...}} True\n"
    error = fails("a = {}\nb = {}\na['x'] = b\nb['x'] = a\nprint(a == b)")
    assert error.kind == "RecursionError"


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        ("d = {}\nd[tensor(1.0)] = 1", "TypeError", "a dictionary key cannot be a tensor"),
        ("d = {[1]: 2}", "TypeError", "a dictionary key cannot be a list"),
        ("d = {{}: 2}", "TypeError", "a dictionary key cannot be a dict"),
        ("d = {(1, [2]): 2}", "TypeError", "a tuple used as a dictionary key cannot hold a list"),
        ("d = {print: 1}", "TypeError", "a dictionary key cannot be a builtin function"),
        ("print(tensor(1.0) in {1: 2})", "TypeError", "a dictionary key cannot be a tensor"),
        ("{'a': 1}['b']", "KeyError", "'b' is not a key of the dict"),
        ("d = {}\ndel d['b']", "KeyError", "'b' is not a key of the dict"),
        ("{1: 2}.pop(3)", "KeyError", "3 is not a key of the dict"),
        ("d = {1: 2}\nd < d", "TypeError", "cannot compare dict and dict with '<'"),
        ("d = {1: 2} + {3: 4}", "TypeError", "cannot apply '+' to dict and dict"),
        ("dict([1, 2])", "TypeError", "expected (key, value) pairs, not int"),
        ("{1: 2}.keyz()", "AttributeError", "dict has no attribute 'keyz'"),
        ("{1: 2}.__class__", "AttributeError", "dict has no attribute '__class__'"),
        ("t = (1,)\nfor i in range(200):\n    t = (t,)\nd = {t: 1}", "TypeError", "nest tuples at most 100 deep"),
    ],
)
def test_mistakes_are_located_errors(text: str, kind: str, message: str) -> None:
    error = fails(text)
    assert (error.kind, error.span is not None) == (kind, True)
    assert message in error.message


def test_a_missing_key_suggests_the_near_one_or_lists_the_keys() -> None:
    assert fails('d = {"weight": 1}\nd["weigth"]').help == "did you mean 'weight'?"
    assert fails('d = {"w1": 1, "b1": 2}\nd["zz"]').help == "its keys are 'w1', 'b1'"
    many = fails("d = {i: i for i in range(9)}\nd[10]").help
    assert many == "its keys are 0, 1, 2, 3, 4, ... (9 keys)"
    assert fails("d = {}\nd['a']").help == "the dict is empty"


def test_the_key_error_is_located_at_the_index() -> None:
    error = fails('params = {"w": 1}\nx = 2\nprint(params["v"])')
    assert (error.span.line, error.span.column, error.span.end_column) == (3, 7, 18)  # type: ignore[union-attr]


def test_a_key_that_cannot_be_one_is_located_at_the_key_in_a_literal() -> None:
    error = fails('x = [1]\nd = {"a": 1, x: 2}')
    assert (error.span.line, error.span.column) == (2, 14)  # type: ignore[union-attr]


def test_tensors_as_values_keep_their_gradients_in_an_optimiser_loop() -> None:
    """The loop a course writes: parameters by name, `grad`, then an update inside no_grad."""
    out = run(
        'params = {"w": tensor([1.0, -2.0], requires_grad=True), "b": tensor(0.5, requires_grad=True)}\n'
        "x = tensor([3.0, 4.0])\n"
        "for step in range(2):\n"
        '    loss = ((params["w"] * x).sum() + params["b"]) ** 2\n'
        "    zero_grad(params)\n"
        "    grad loss\n"
        "    with no_grad:\n"
        "        for name, p in params.items():\n"
        "            p -= 0.01 * p.grad\n"
        '    print(step, loss.item(), params["w"].grad, params["b"].grad)\n'
        'print(params["w"], params["w"].is_leaf)\n'
    )
    # loss = (3w0 + 4w1 + b)^2 = (-4.5)^2; d/dw = 2(-4.5) [3, 4] = [-27, -36], d/db = -9
    lines = out.splitlines()
    assert lines[0] == "0 20.25 tensor([-27., -36.]) tensor(-9.)"
    w = np.array([1.0, -2.0]) + 0.01 * np.array([27.0, 36.0])  # each parameter moved by its own gradient
    b = 0.5 + 0.01 * 9
    s = float(3 * w[0] + 4 * w[1] + b)
    step, loss, *_ = lines[1].split()
    assert step == "1" and float(loss) == pytest.approx(s * s, rel=1e-12)
    assert lines[1].endswith(f"tensor([{2 * s * 3:.4f}, {2 * s * 4:.4f}]) tensor({2 * s:.4f})")
    assert lines[2].endswith("requires_grad=True) True")


def test_item_assignment_updates_a_parameter_inside_no_grad_only() -> None:
    out = run(
        'p = {"w": tensor([1.0], requires_grad=True)}\ngrad (p["w"] * 3).sum()\n'
        'with no_grad:\n    p["w"] -= 0.5 * p["w"].grad\nprint(p["w"])'
    )
    assert out == "tensor([-0.5000], requires_grad=True)\n"
    assert fails('p = {"w": tensor([1.0], requires_grad=True)}\np["w"] -= 1.0').kind == "GradError"


def test_gradient_flows_through_values_read_from_a_dict() -> None:
    out = run(
        'w = tensor(2.0, requires_grad=True)\nlayers = {"a": w, "b": w}\ny = layers["a"] * layers["b"]\n'
        "grad y\nprint(w.grad)"
    )
    assert out == "tensor(4.)\n"  # the node used twice: d(w*w)/dw = 2w


def test_zero_grad_clears_each_tensor_of_a_dict() -> None:
    out = run('p = {"w": tensor(1.0, requires_grad=True)}\ngrad p["w"] * 2\nzero_grad(p)\nprint(p["w"].grad)')
    assert out == "None\n"


def test_del_removes_list_items_and_refuses_what_cannot_change() -> None:
    assert run("xs = [1, 2, 3, 4]\ndel xs[0]\ndel xs[-1]\nprint(xs)") == "[2, 3]\n"
    assert fails("xs = (1, 2)\ndel xs[0]").message == "cannot delete from a tuple"
    assert fails("x = tensor([1.0])\ndel x[0]").kind == "TypeError"
    assert fails("xs = [1]\ndel xs[5]").kind == "IndexError"


def test_del_of_a_name_is_a_syntax_error_with_help() -> None:
    error = fails("x = 1\ndel x")
    assert error.kind == "SyntaxError" and error.help is not None and "del scores[key]" in error.help


def test_dicts_are_bounded_like_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dictionaries, "MAX_SEQUENCE", 5)
    assert "more than the limit of 5" in fails("d = {i: i for i in range(10)}").message
    assert "more than the limit of 5" in fails("d = {}\nfor i in range(10):\n    d[i] = i").message
    assert "more than the limit of 5" in fails("d = {1: 1}\nd.update([(i, i) for i in range(5)])").message
    assert "more than the limit of 5" in fails("d = dict([(i, i) for i in range(6)])").message
    assert run("d = {i: i for i in range(5)}\nd[0] = 7\nprint(len(d))") == "5\n"  # replacing adds nothing


def test_a_dict_comprehension_counts_steps() -> None:
    from dglang.interpreter.host.limits import Limits

    session = Session(out=io.StringIO(), limits=Limits(max_steps=50))
    with pytest.raises(DGError) as caught:
        session.run("d = {i: i for i in range(1000)}", "<test>")
    assert caught.value.kind == "LimitError"


def test_show_and_str_and_fstring_write_dicts_as_python_does() -> None:
    out = run("d = {'a': 'x', 1: [2.5, None]}\nprint(str(d), f'{d}')\nprint([d, (d,)])")
    d = "{'a': 'x', 1: [2.5, None]}"
    assert out == f"{d} {d}\n[{d}, ({d},)]\n"

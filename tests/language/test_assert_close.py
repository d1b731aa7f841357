"""assert_close, and what `assert gradcheck(...)` says when a gradient is wrong: the two checks a
test of a DG program leans on, each failing with a message that says where and by how much."""

from __future__ import annotations

import io

import numpy as np
import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.frontends.sessions import new_session


def run(code: str) -> str:
    """What the program prints; an error's report is returned as text too."""
    out = io.StringIO()
    try:
        new_session(out=out).run(code, "t.dg")
    except DGError as e:
        return out.getvalue() + format_error(e)
    return out.getvalue()


def error(code: str) -> DGError:
    with pytest.raises(DGError) as caught:
        new_session(out=io.StringIO()).run(code, "t.dg")
    return caught.value


@pytest.mark.parametrize(
    "code",
    [
        "assert_close(0.1 + 0.2, 0.3)",
        "assert_close(tensor([1.0, 2.0]), [1.0, 2.0])",
        "assert_close(ones(2, 3), ones(2, 3) + 1e-9)",
        "assert_close(tensor(2.0), 2)",
        "assert_close(tensor([inf, -inf]), tensor([inf, -inf]))",
        "assert_close(tensor([1.0, 0.0 * inf]), tensor([1.0, 0.0 * inf]), equal_nan=True)",
        "assert_close(1.0, 1.1, rtol=0.1)",
        "assert_close(1.0, 1.1, atol=0.2, rtol=0)",
        "assert_close(tensor([True, False]), [1, 0])",
        "assert_close([tensor(1.0), tensor(2.0)], tensor([1.0, 2.0]))",
    ],
)
def test_close_values_pass(code: str) -> None:
    assert run(code + "\nprint('ok')\n") == "ok\n"


def test_the_message_shows_the_largest_difference_its_index_and_both_values() -> None:
    e = error("a = tensor([[1.0, 2.0], [3.0, 4.0]])\nassert_close(a, tensor([[1.0, 2.5], [3.0, 7.0]]))\n")
    assert e.kind == "AssertionError"
    assert e.message == (
        "not close: 2 of 4 entries differ; the largest difference is 3 at [1, 1]: actual 4, expected 7"
    )
    assert e.help == "allowed: |actual - expected| <= atol + rtol * |expected|, atol=1e-07, rtol=1e-07"
    assert (e.span.line, e.span.column) == (2, 1)


def test_numbers_show_both_values_and_the_difference() -> None:
    assert error("assert_close(2.0, 3.5)").message == "not close: actual 2, expected 3.5 (difference 1.5)"


def test_nan_is_not_close_unless_asked_and_is_shown_first() -> None:
    e = error("assert_close(tensor([5.0, 0.0 * inf]), tensor([1.0, 2.0]))")
    assert e.message.endswith("the largest difference is nan at [1]: actual nan, expected 2")


def test_shapes_must_match_without_broadcasting() -> None:
    e = error("assert_close(ones(3), ones(1, 3))")
    assert e.message == "shapes differ: actual (3,), expected (1, 3)"
    assert "without broadcasting" in e.help


def test_a_message_of_the_test_s_own_comes_first() -> None:
    e = error('assert_close(1.0, 2.0, msg="the loss after one step")')
    assert e.message == "the loss after one step: not close: actual 1, expected 2 (difference 1)"


@pytest.mark.parametrize(
    ("code", "kind", "text"),
    [
        ('assert_close("1", 1)', "TypeError", "actual is str"),
        ("assert_close(1, None)", "TypeError", "expected is None"),
        ("assert_close(1, 1, rtol=-1)", "ValueError", "rtol must be 0 or more"),
        ('assert_close(1, 1, atol="a")', "TypeError", "atol must be a number"),
    ],
)
def test_wrong_arguments_are_located_errors(code: str, kind: str, text: str) -> None:
    e = error(code)
    assert e.kind == kind and text in e.message and e.span is not None


def test_the_largest_of_many_differences_is_found() -> None:
    rng = np.random.default_rng(0)
    values = rng.normal(size=(4, 5))
    wrong = values.copy()
    wrong[2, 3] += 0.5
    wrong[0, 1] += 0.25
    e = error(f"assert_close(tensor({values.tolist()}), tensor({wrong.tolist()}))")
    assert "2 of 20 entries differ" in e.message and "is 0.5 at [2, 3]" in e.message


# ---- assert gradcheck(...) ----------------------------------------------------------------------
DETACHED = "def f(x):\n    return x.detach() * x\n"


def test_a_failed_gradcheck_in_an_assert_says_which_derivative_is_off() -> None:
    e = error(DETACHED + "a = tensor([1.0, 2.0])\nassert gradcheck(f, a, quiet=True)\n")
    assert e.kind == "AssertionError"
    assert e.message == (
        "gradcheck(f) failed: df/da[1] is 2 by autograd but 4 by finite differences (2 of 2 entries off)"
    )
    assert e.help == "without quiet=True gradcheck prints every entry"


def test_the_test_s_own_message_comes_first_and_the_reason_becomes_the_help() -> None:
    e = error(DETACHED + 'assert gradcheck(f, 3.0, quiet=True), "f\'s gradient"\n')
    assert e.message == "f's gradient"
    assert e.help.startswith("gradcheck(f) failed: df/dx is 3 by autograd but 6")


def test_an_earlier_failed_gradcheck_does_not_explain_a_later_assert() -> None:
    e = error(DETACHED + "ok = gradcheck(f, 3.0, quiet=True)\nassert 1 > 2\n")
    assert e.message == "assertion failed" and e.help is None


def test_a_passing_gradcheck_in_an_assert_passes() -> None:
    assert run("def f(x):\n    return x * x\nassert gradcheck(f, tensor([1.0, -2.0]), quiet=True)\nprint(1)\n") == "1\n"


def test_gradcheck_prints_a_derivative_of_minus_zero_as_0() -> None:
    # d(x * x)/dx at x = -0.0 is 2 * -0.0 = -0.0: printed "-0", a number no student expects
    printed = run("def f(x):\n    return x * x\ngradcheck(f, tensor(-0.0))\n")
    assert printed.splitlines()[0].startswith("gradcheck f, first derivative at x = 0 (")
    assert printed.splitlines()[2].split() == ["df/dx", "0", "0", "0.0e+00"]
    assert "-0" not in printed.split()
    detached = "def f(x):\n    return -(x.detach() * x) + 5 * x.detach()\n"  # autograd: -x = -0.0; really 5
    e = error(detached + "assert gradcheck(f, tensor(0.0), quiet=True)\n")
    assert e.message.startswith("gradcheck(f) failed: df/dx is 0 by autograd but 5 by finite differences")

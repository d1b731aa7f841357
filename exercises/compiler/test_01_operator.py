"""Exercise 1 (compiler): the operator `a ?? b`, "a unless it is None, else b".

- `??` is looser than `or` and tighter than a conditional expression:
  `a ?? b or c` means `a ?? (b or c)`, and `a ?? b if c else d` means `(a ?? b) if c else d`.
- Only None counts as missing: `0 ?? 5` is 0, and a tensor on the left is never asked for its truth.
- The right side is evaluated only when the left is None (like `or`, it short-circuits).
See docs/for-compiler-courses.md, exercise 1.
"""

from __future__ import annotations


def test_none_gives_the_right_side(dg) -> None:
    assert dg("x = None\nprint(x ?? 3)\n") == "3\n"


def test_any_other_value_gives_the_left_side(dg) -> None:
    assert dg('print(0 ?? 5, False ?? 5, [] ?? 5, "a" ?? 5)\n') == "0 False [] a\n"


def test_a_tensor_on_the_left_is_not_asked_for_its_truth(dg) -> None:
    assert dg("x = tensor([1.0, 2.0])\nprint(x ?? 0)\n") == "tensor([1., 2.])\n"


def test_the_right_side_runs_only_when_needed(dg) -> None:
    program = 'def loud():\n    print("evaluated")\n    return 1\nprint(5 ?? loud())\nprint(None ?? loud())\n'
    assert dg(program) == "5\nevaluated\n1\n"


def test_precedence(dg) -> None:
    assert dg("print(None ?? 1 + 2)\n") == "3\n"  # arithmetic binds tighter
    assert dg("print(0 ?? 5 or 6)\n") == "0\n"  # 0 ?? (5 or 6)
    assert dg("print(None ?? 1 if False else 2)\n") == "2\n"  # (None ?? 1) if False else 2
    assert dg("print(None ?? None ?? 4)\n") == "4\n"


def test_an_error_on_the_right_is_located_there(dg_error) -> None:
    error, _ = dg_error('x = None\ny = x ?? (1 + "a")\n')
    assert error.kind == "TypeError"
    assert (error.span.line, error.span.column) == (2, 11)

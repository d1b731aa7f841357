"""Exercise 2 (ML): find the wrong derivative rule in exercises/ml/broken_rules.py and fix it.

Each op's rule is checked against central finite differences (finite_differences.py). Read the
failure: which op, which input entry, the expected and the received derivative. Then derive the
rule on paper and correct it in broken_rules.py (only the rule; the forward values are right).
See docs/for-ml-courses.md, exercise 2.
"""

from __future__ import annotations

import numpy as np
import pytest
from broken_rules import cube, log_cosh, normalize, softsign
from finite_differences import check_rule

VALUES = np.array([[0.5, 1.5, 2.0], [0.25, 3.0, 1.0]])  # positive, as normalize wants


@pytest.mark.parametrize("op", [cube, softsign, normalize, log_cosh], ids=lambda op: op.__name__)
def test_rule_matches_finite_differences(op) -> None:
    check_rule(op.__name__, op, VALUES)


def test_the_check_catches_a_wrong_rule() -> None:
    from dglang.autograd import function
    from dglang.autograd.op import Op

    class WrongSquare(Op):
        rules = ("g·a",)  # forgot the 2
        forward = staticmethod(lambda a: a**2)
        backward = staticmethod(lambda g, out, a: (g * a,))

    wrong_square = function(WrongSquare)

    with pytest.raises(AssertionError, match="wrong_square"):
        check_rule("wrong_square", wrong_square, VALUES)

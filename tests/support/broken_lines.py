"""Lines broken the ways students break them, and lines that parse, to be mixed at any indentation:
the programs recovery (interpreter/syntax/recovery.py) must read to the end, whatever the mix."""

from __future__ import annotations

import random

from hypothesis import strategies as st

BROKEN = [
    "y = x *",
    "q = 3 +",
    "x = = 1",
    "print(1 2)",
    "x = 1 $ 2",
    "for i in range(3)",
    "while True",
    "with no_grad",
    "def g()",
    "if x = 1:",
    "def f(a, b:",
    "for i inrange(2):",
    "z = (1, 2",
    "w = [1,",
    "a = (",
    "print(x",
    "u = 2 ]",
    ")",
    "else:",
    "elif y:",
    "s = 'open",
    "t = {1, 2}",
    "import numpy as np",
    "from nn import *",
    "class A:",
    "f() = 1",
    "return = 4",
    "grad = 2",
    's = f"{x +}"',
    "  v = 1",
]
GOOD = [
    "a = 1",
    "print(a)",
    "pass",
    "return a",
    "def h(n):",
    "if a:",
    "for k in range(2):",
    "else:",
    "b = [1,",
    "2]",
    "c = (a +",
    "     2)",
    "",
    "# a note",
]


def program(lines: list[tuple[str, int]], final_newline: bool = True) -> str:
    """The lines, each indented by four spaces as many times as it says."""
    return "\n".join("    " * depth + line for line, depth in lines) + ("\n" if final_newline else "")


def lines() -> st.SearchStrategy[list[tuple[str, int]]]:
    """Up to 25 lines, broken or not, each at a depth from 0 to 3."""
    return st.lists(st.tuples(st.sampled_from(BROKEN + GOOD), st.integers(0, 3)), min_size=1, max_size=25)


def random_program(rng: random.Random, count: int) -> str:
    """`count` lines drawn with `rng`, half of them broken, at depths 0 to 2."""
    drawn = [(rng.choice(BROKEN if rng.random() < 0.5 else GOOD), rng.choice([0, 0, 1, 1, 2])) for _ in range(count)]
    return program(drawn)

"""The data sets that ship with DG, in the package's data/ folder (data/README.md says where each
comes from and under which licence): the 8×8 handwritten digits and a text for character models.

They are plain text (CSV of integers, UTF-8), read with NumPy's text reader: nothing read here can
run code, and a program names no path, so the sandbox's folders do not apply.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from dglang.autograd import Tensor

DATA = Path(__file__).resolve().parents[2] / "data"  # the package root's data/ folder


@cache
def _digits_part(part: str) -> tuple[np.ndarray, np.ndarray]:
    rows = np.loadtxt(DATA / f"digits_{part}.csv", delimiter=",", skiprows=1, dtype=np.int64)
    return rows[:, :64].astype(float), rows[:, 64]


def digits() -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The 8×8 handwritten digits, split once for all: train_x (1347, 64), train_y, test_x (450, 64), test_y.

    Each row of pixels is an 8×8 image read row by row, each pixel 0 (white) to 16 (black); each label is
    an int tensor, 0 to 9. `x.reshape(-1, 8, 8)` gives the images.

    >>> train_x, train_y, test_x, test_y = digits()
    >>> train_x.shape, test_x.shape, train_y[:8]
    ((1347, 64), (450, 64), tensor([6, 6, 6, 2, 5, 6, 6, 2]))
    """
    train_x, train_y = _digits_part("train")
    test_x, test_y = _digits_part("test")
    return Tensor(train_x.copy()), Tensor(train_y.copy()), Tensor(test_x.copy()), Tensor(test_y.copy())


@cache
def _shakespeare() -> str:
    return (DATA / "tiny_shakespeare.txt").read_text(encoding="utf-8")


def shakespeare() -> str:
    """Tiny Shakespeare: 40,000 lines from Shakespeare's plays as one string of 1,115,394 characters.

    The text for character-level models (65 different characters: letters, digits, punctuation,
    space and newline).

    >>> text = shakespeare()
    >>> print(len(text), text[:32])
    1115394 First Citizen:
    Before we proceed
    """
    return _shakespeare()

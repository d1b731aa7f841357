"""How a tensor's values print: as PyTorch prints them."""

from __future__ import annotations

import numpy as np


def format_values(values: np.ndarray) -> str:
    """The values as PyTorch prints them: `[ 2., -2.,  4.]`, or 4 decimals once any is fractional."""
    finite = values[np.isfinite(values)] if values.dtype.kind == "f" else values
    whole = values.dtype.kind != "f" or bool(np.all(finite == np.round(finite)))
    mode = "maxprec" if whole else "fixed"
    return np.array2string(values, separator=", ", prefix="tensor(", precision=4, floatmode=mode, max_line_width=80)

"""The `{value:spec}` parts of f-strings: Python's format mini-language, on DG's values."""

from __future__ import annotations

import re
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError

from .runtime import text

FORMAT_NUMBER = re.compile(r"\d+")


def format_value(value: Any, spec: str) -> str:
    """One {value:spec} of an f-string."""
    if not spec:
        return text(value)
    if isinstance(value, Tensor):
        if value.size != 1:
            raise DGError(
                "TypeError",
                f"a format like ':{spec}' needs one number, but this tensor has shape {value.shape}",
                help="format one element, or leave the format out: {x}",
            )
        value = value.item()
    if not isinstance(value, int | float | str):
        raise DGError("TypeError", f"a format like ':{spec}' applies to numbers and strings, not {type_name(value)}")
    if any(len(n) > 4 for n in FORMAT_NUMBER.findall(spec)):  # `{x:1000000000}` would build a gigabyte of spaces
        raise DGError(
            "ValueError", f"the format ':{spec}' asks for too wide a field", help="widths and precisions go up to 9999"
        )
    try:
        return format(value, spec)
    except ValueError as e:
        raise DGError("ValueError", f"bad format ':{spec}' for {type_name(value)}: {e}") from None

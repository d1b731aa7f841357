"""The `{value:spec}` parts of f-strings: Python's format mini-language, on DG's values."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError

from .operators import MAX_SEQUENCE
from .runtime import BoundMethod, text

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
    if isinstance(value, BoundMethod):  # f"{loss.item:.3f}": the method, not what it gives
        raise DGError(
            "TypeError",
            f"a format like ':{spec}' applies to numbers and strings, not the method {value.name} itself",
            help=f"call it, with parentheses: `.{value.name}()`",
        )
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


def fstring(template: list[tuple[str, str | None]]) -> Callable[..., str]:
    """An f-string's text from the values of its {expressions}, in order: `template` holds its parts,
    each a literal text (spec None) or the format spec of the next value."""

    def join(*values: Any) -> str:
        given = iter(values)
        out = [literal if spec is None else format_value(next(given), spec) for literal, spec in template]
        if sum(map(len, out)) > MAX_SEQUENCE:  # f"{s}{s}" in a loop doubles a string each time
            raise DGError("ValueError", f"that would make a string longer than {MAX_SEQUENCE:,} items")
        return "".join(out)

    return join

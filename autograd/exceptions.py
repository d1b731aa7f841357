"""Errors the engine raises. Each has a kind (the name a user sees) and an optional help line;
`type_name` names a value in their messages."""

from __future__ import annotations


class AutogradError(Exception):
    """Base of every engine error: `kind` names it for the user, `help` suggests a fix."""

    kind = "Error"

    def __init__(self, message: str, help: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.help = help


class ShapeError(AutogradError):
    kind = "ShapeError"


class GradError(AutogradError):
    kind = "GradError"


class TensorTypeError(AutogradError):
    kind = "TypeError"


class TensorIndexError(AutogradError):
    kind = "IndexError"


class TensorValueError(AutogradError):
    kind = "ValueError"


class TensorMemoryError(AutogradError):
    kind = "MemoryError"


class TensorZeroDivisionError(AutogradError):
    kind = "ZeroDivisionError"


def type_name(x: object) -> str:
    """The name a user knows a value's type by: `tensor`, `None`, `list`, ... (a class may say
    its own with `dg_type_name`, as Tensor does)."""
    if x is None:
        return "None"
    return getattr(type(x), "dg_type_name", type(x).__name__)


def a_type(x: object) -> str:
    """type_name with its article, for a message: "an int", "a list", "None"."""
    name = type_name(x)
    return name if x is None else ("an " if name[0] in "aeiou" else "a ") + name


def argument_name(x: object) -> str:
    """type_name of an op's argument other than its inputs, as forward got it: a tensor given there
    (an axis) arrives as its NumPy values."""
    return "tensor" if type(x).__module__ == "numpy" else type_name(x)

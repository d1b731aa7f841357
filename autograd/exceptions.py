"""Errors the engine raises. Each has a kind (the name a user sees) and an optional help line."""

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

"""The files holding text made from the op declarations are current (tools/regenerate.py would write
what they hold), so an op declared without running it fails here with the command to run; and the
writers do what they say: a region is replaced between its markers only, a method Tensor does not
spell is written as the hand-written ones are."""

from __future__ import annotations

from typing import Any

import pytest
import regenerate
import regions
import tensor_methods

from dglang.autograd.op import Op

pytestmark = pytest.mark.every_op


def test_the_files_written_from_the_op_declarations_are_current() -> None:
    stale = [path.relative_to(regenerate.ROOT).as_posix() for path, _ in regenerate.out_of_date()]
    assert not stale, f"out of date: {', '.join(stale)}; run `{regenerate.COMMAND}`"


def test_a_region_is_replaced_between_its_markers_only() -> None:
    text = "a\n<!-- begin written: t (note) -->\nold\n<!-- end written: t -->\nb\n"
    new = regions.replaced(text, "t", "new\n", ("<!--", " -->"))
    assert new == "a\n<!-- begin written: t (note) -->\nnew\n<!-- end written: t -->\nb\n"
    indented = "    # begin written: m\n    # end written: m\n"
    assert (
        regions.replaced(indented, "m", "    x\n", ("#", "")) == "    # begin written: m\n    x\n    # end written: m\n"
    )
    with pytest.raises(ValueError, match="no region `u`"):
        regions.replaced(text, "u", "", ("<!--", " -->"))


def test_a_method_tensor_does_not_spell_is_written_as_the_hand_written_ones() -> None:
    text = tensor_methods.TENSOR.read_text(encoding="utf-8")
    hand = "    def exp(self) -> Tensor: return unary(functions.Exp, self)\n"
    assert hand in text and "exp" in tensor_methods.hand_written(text)
    written = tensor_methods.rewrite(text.replace(hand, ""))
    assert written.count(hand) == 1 and written.index(hand) > written.index("# begin written: methods")
    assert tensor_methods.rewrite(written) == written, "a written line is not written twice"


class Scaled(Op):
    """a times scale."""

    rules = ("g·scale",)
    method = True

    @staticmethod
    def forward(a: Any, scale: float = 2.0, *more: Any) -> Any:
        return a * scale

    @staticmethod
    def backward(g: Any, out: Any, a: Any, scale: float = 2.0, *more: Any) -> tuple[Any]:
        return (g * scale,)


def test_a_method_line_passes_the_op_s_other_arguments_and_refuses_what_it_cannot_write() -> None:
    line = tensor_methods.method_line("scaled", Scaled)
    assert line == (
        "    def scaled(self, scale: Any = 2.0, *more: Any) -> Tensor: "
        "return unary(test_generated.Scaled, self, scale, *more)\n"
    )
    from dglang.autograd.functions import Where

    with pytest.raises(ValueError, match="write `def where"):
        tensor_methods.method_line("where", Where)

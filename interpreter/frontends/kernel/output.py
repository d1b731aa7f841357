"""What a cell shows in a notebook: printed text streamed as it comes (ipykernel's own stdout, which
batches and sends it from its IO thread), the value of the cell's final expression as its result,
`graph(y)` as a picture, and an error as DG's located message."""

from __future__ import annotations

import html
import io
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from dglang.autograd import Tensor
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.library.runtime import show
from dglang.interpreter.seeing.text_picture import text_picture

if TYPE_CHECKING:
    from dglang.interpreter.seeing.tools import Seeing

STEPPER_FRAME = '<iframe sandbox="allow-scripts" style="width: 100%; height: 640px; border: 0" srcdoc="{}"></iframe>'
Send = Callable[[str, dict[str, Any]], None]  # an IOPub message: its type and content


class CellOutput(io.TextIOBase):
    """The session's standard output. An echoed value is held back: if nothing is printed after
    it, it was the cell's final expression and becomes the cell's result (Out[n]) instead."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.pending: str | None = None
        self.value: Any = None  # the value behind `pending`

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.settle()
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def echo(self, value: Any) -> None:
        """What the REPL would print for a top-level expression statement."""
        self.settle()
        self.pending, self.value = show(value), value

    def settle(self) -> None:
        """An echoed value that was not the last output is printed as the REPL prints it."""
        if self.pending is not None:
            text, self.pending = self.pending, None
            self.stream.write(text + "\n")

    def take_result(self) -> tuple[str | None, Any]:
        text, value, self.pending, self.value = self.pending, self.value, None, None
        return text, value


class Display:
    """Sends a cell's rich output on IOPub, in order with its streamed text."""

    def __init__(self, publish: Send, out: CellOutput, seeing: Seeing) -> None:
        self.publish, self.out, self.seeing = publish, out, seeing

    def send(self, kind: str, content: dict[str, Any]) -> None:
        self.out.settle()
        self.out.flush()  # the text printed before comes first
        self.publish(kind, content)

    def graph(self, y: Tensor, name: str | None, untaken: bool) -> None:
        """`graph(y)` in a notebook: the SVG Graphviz draws, the text picture as its plain-text form
        (what a front end without SVG shows, and what the lessons' golden outputs hold)."""
        data = {"text/plain": text_picture(self.seeing.graph(y), name, untaken=untaken)}
        try:
            from dglang.interpreter.seeing.dot import DotOptions

            data["image/svg+xml"] = self.seeing.svg(y, name or "y", DotOptions(untaken=untaken))
        except DGError:  # no Graphviz: the text picture alone
            pass
        self.send("display_data", {"data": data, "metadata": {}})

    def picture(self, text: str, draw: Callable[[], bytes]) -> None:
        """plot() and show_image() in a notebook: matplotlib's SVG, the text chart as its plain-text form."""
        data = {"text/plain": text, "image/svg+xml": draw().decode("utf-8")}
        self.send("display_data", {"data": data, "metadata": {}})

    def stepper(self, y: Tensor, name: str) -> None:
        """The page that steps through `y`'s graph, inline where the front end runs its script."""
        # In a frame of its own: the page's styles and element ids stay out of the notebook's.
        page = STEPPER_FRAME.format(html.escape(self.seeing.stepper(y, name), quote=True))
        data = {"text/html": page, "text/plain": f"(the stepper for {name} needs a front end that runs scripts)"}
        self.send("display_data", {"data": data, "metadata": {}})

    def result(self, count: int) -> None:
        """The cell's final expression, as Out[count]."""
        text, value = self.out.take_result()
        if text is not None:
            data = {"text/plain": text}
            if isinstance(value, Tensor) and value.ndim == 2 and value.size <= MAX_TABLE:
                data["text/html"] = table(value)
            self.send("execute_result", {"execution_count": count, "data": data, "metadata": {}})

    def error(self, error: DGError) -> dict[str, Any]:
        """The error as Jupyter carries it: DG's located message as the traceback, never Python's."""
        traceback = format_error(error).rstrip("\n").split("\n")
        content = {"ename": error.kind, "evalue": error.message, "traceback": traceback}
        self.send("error", content)
        return content


MAX_TABLE = 400  # elements of a 2-D tensor shown as a table; a bigger one shows as text only


def table(value: Tensor) -> str:
    """A 2-D tensor as an HTML table, captioned with its type, shape and gradient state (as :vars says them)."""
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(show(x))}</td>" for x in row) + "</tr>" for row in value.numpy().tolist()
    )
    caption = f"{value.dtype} tensor, shape {value.shape}"
    if value.grad_fn is not None:
        caption += f", computed by {value.grad_fn.op.name}"
    elif value.requires_grad:
        caption += ", requires grad"
    return f"<div>{html.escape(caption)}</div><table>{rows}</table>"  # a caption would wrap to the table's width

"""The seeing tools as builtins of a session: `graph(y)`, `gradcheck(f, x)`, `with detect_anomaly:`.

The language core never names a tool: a front end calls `install` on each session it makes, and
may also ask for the trace (`dg --trace`) and an anomaly check of every run (`--detect-anomaly`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dglang.autograd import Tensor
from dglang.autograd.tensor import recording, type_name
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.host.session import Session
from dglang.interpreter.library.keyword_help import written
from dglang.interpreter.library.runtime import Builtin, CallContext
from dglang.interpreter.static import static_builtins

from .anomaly import AnomalyCheck, AnomalyMode
from .gradcheck_table import SIGNATURE, make_gradcheck

# What only a program that draws needs (the pictures' modules, the stamps on each node) is imported
# where it is first used, in the functions below: a program that never draws starts without them.
if TYPE_CHECKING:
    from .dot import DotOptions
    from .graph import Graph
    from .passes import LastBackward
    from .provenance import Stamper
    from .trace import Tracer


@dataclass(eq=False)
class Seeing:
    """The tools installed in one session, and what they keep of its runs."""

    session: Session
    _last_backward: LastBackward | None = None
    stamper: Stamper | None = None
    keeping: bool = False
    # How `graph(y)` shows its picture: None prints the text picture; a notebook kernel shows it inline.
    show_graph: Callable[[Tensor, str | None, bool], None] | None = None
    # How plot() and show_image() show theirs: given the text form and a function that draws the
    # SVG (with matplotlib). None prints the text; a notebook kernel shows the SVG inline.
    show_picture: Callable[[str, Callable[[], bytes]], None] | None = None

    @property
    def last_backward(self) -> LastBackward:
        """What the last backward pass did (kept once `keep_backward` has been asked for)."""
        if self._last_backward is None:
            from .passes import LastBackward

            self._last_backward = LastBackward()
        return self._last_backward

    def keep_backward(self) -> None:
        """From now on stamp each node with when it was made (its loop iterations, its place in the
        recording) and keep each backward pass, so pictures can show gradients and steps.

        Only programs that may draw pay for it: the `graph` builtin asks when a program naming it
        is compiled, the REPL and `dg graph` from the start."""
        if self.keeping:
            return
        from .provenance import Stamper

        self.keeping = True
        self.stamper = Stamper(self.session.context)
        for listener in (self.stamper, self.last_backward):
            self.session.listeners.append(listener)
            if self.session.running:  # asked from a breakpoint's cell: listen in the run under way too
                recording.listen(listener)

    def graph(self, y: Tensor, limit: int | None = None) -> Graph:
        """The recorded graph behind `y`, with what the last backward pass did if it went through it
        (at most `limit` nodes: graph.py's MAX_NODES unless told). Its modules load on first use,
        as the pictures' below do, so a program that never draws starts no slower."""
        from .graph import MAX_NODES, collect

        graph = collect(y, self.last_backward.last, MAX_NODES if limit is None else limit)
        if static_builtins.made(self.session):  # a static call is drawn as the trace it ran as
            from .static_pictures import drawn_calls, mark_static

            mark_static(graph, drawn_calls(self.session))
        return graph

    # What a front end shows (the command line writes them to files; a notebook shows them inline).
    # Their modules load when first asked for, so a program that never draws starts no slower.
    def dot(self, y: Tensor, name: str, options: DotOptions | None = None) -> str:
        """The picture of `y`'s graph as DOT text."""
        from .dot import DEFAULT, to_dot
        from .function_boxes import boxed

        options = options or DEFAULT
        return to_dot(boxed(self.graph(y), options.boxing), name, options)

    def text(self, y: Tensor, name: str, options: DotOptions | None = None) -> str:
        """The picture of `y`'s graph as the text tree `graph(y)` prints."""
        from .dot import DEFAULT
        from .function_boxes import boxed
        from .text_picture import text_picture

        options = options or DEFAULT
        return text_picture(boxed(self.graph(y), options.boxing), name, untaken=options.untaken)

    def svg(self, y: Tensor, name: str, options: DotOptions | None = None) -> str:
        """The picture of `y`'s graph as SVG text, laid out by Graphviz (a GraphvizError without it)."""
        from .render import svg

        return svg(self.dot(y, name, options))

    def stepper(self, y: Tensor, name: str, options: DotOptions | None = None) -> str:
        """The page that steps through `y`'s graph, forward and backward, as HTML text (see stepper.py)."""
        from .collapse import collapse_loops
        from .dot import DEFAULT
        from .function_boxes import boxed
        from .stepper import STEPPER_LIMIT, stepper_html

        options = options or DEFAULT
        return stepper_html(collapse_loops(boxed(self.graph(y, STEPPER_LIMIT), options.boxing)), name, options)


written(
    "detect_anomaly",
    "context",
    "with detect_anomaly:",
    """Inside the block every backward step is checked: the first op to make nan or inf is an error at its line.

    >>> x = tensor(0.0, requires_grad=True)
    >>> with detect_anomaly:
    ...     grad x * x
    >>> x.grad
    tensor(0.)
    """,
)


def install(session: Session, trace: Tracer | None = None, detect_anomaly: bool = False) -> Seeing:
    """Add the seeing tools to `session` (once; a second call returns the same tools), and let
    `trace` and an anomaly check watch every run."""
    seeing = session.tools.get("seeing")
    if seeing is None:
        seeing = session.tools["seeing"] = Seeing(session)
        add_builtins(seeing)
        static_builtins.install(session, drawing=lambda: seeing.keeping)
    if trace is not None:
        session.listeners.append(trace)
    if detect_anomaly:
        session.listeners.append(AnomalyCheck())
    return seeing


def add_builtins(seeing: Seeing) -> None:
    session = seeing.session

    def graph(context: CallContext, y: Tensor, untaken: bool = False) -> None:
        """Print the recorded graph that produced y (after grad, with what backward sent along each edge).

        >>> x = tensor(2.0, requires_grad=True)
        >>> graph(x * x + 1)
        ...
        """
        from .values import source_text

        if not isinstance(y, Tensor):
            raise DGError("TypeError", f"graph() draws the graph behind a tensor, not {type_name(y)}")
        written = source_text(context.span)  # "graph(out_positive)": name the picture as the program does
        name = written[written.find("(") + 1 : -1].split(",")[0].strip()
        shown = name if name.isidentifier() else None
        if seeing.show_graph is not None:
            seeing.show_graph(y, shown, bool(untaken))
        else:
            from .text_picture import text_picture

            session.write(text_picture(seeing.graph(y), shown, untaken=bool(untaken)))

    def explain(message: str, help: str | None) -> None:  # what `assert gradcheck(...)` says when it fails
        session.context.why_not = (message, help)

    def show(text: str, draw: Callable[[str], bytes], file: Any) -> None:
        """Show a chart or an image: into `file` if given, else inline where the front end can, else as text."""
        from . import charts

        if file is not None:
            path = charts.output_file(file, session.base_dir, "a picture")
            charts.write(path, draw(path.suffix.lower()[1:]), file)
        elif seeing.show_picture is not None and charts.have_matplotlib():
            seeing.show_picture(text, lambda: draw("svg"))
        else:
            session.write(text)

    def progress(items: Any, total: Any = None, desc: Any = None) -> Any:
        """The same items to loop over, with a progress bar (rate, time left) on standard error.

        >>> for i in progress(range(3), desc="training"):
        ...     pass
        """
        from .progress_bar import progress

        return progress(session, items, total, desc)

    def plot(*series: Any, title: Any = None, file: Any = None) -> None:
        """Draw a line chart of ys, or of ys against xs: as text, inline in a notebook, or into file (.svg, .png).

        >>> plot([4.0, 2.0, 1.0], title="loss")
        loss
        4 |*
          |
          |
          |
        3 |
          |
          |
          |
        2 |                              *
          |
          |
          |
        1 |                                                           *
          +------------------------------------------------------------
           0                                                          2
        each * is at the row nearest its point's y; rows are 0.25 apart
        """
        from . import chart_pictures, charts

        if len(series) not in (1, 2):
            raise DGError("TypeError", f"plot() takes ys or xs, ys, not {len(series)} arguments", help="plot(losses)")
        ys = charts.numbers(series[-1], "plot()", "ys")
        xs = charts.numbers(series[0], "plot()", "xs") if len(series) == 2 else np.arange(len(ys), dtype=float)
        if len(xs) != len(ys):
            raise DGError("ValueError", f"plot() needs as many xs as ys, got {len(xs)} and {len(ys)}")
        name = None if title is None else str(title)
        show(charts.text_chart(xs, ys, name), lambda fmt: chart_pictures.chart_picture(xs, ys, name, fmt), file)

    def show_image(image: Any, title: Any = None, file: Any = None) -> None:
        """Show a 2-d tensor as an image in shades (a digit, attention weights), or a 3-d one as a row of images.

        >>> show_image(eye(3))
        1 image 3×3, '.' 0 to '@' 1
        @@
          @@
            @@
        """
        from . import chart_pictures, charts

        images = charts.image_values(image)
        name = None if title is None else str(title)
        show(charts.text_image(images, name), lambda fmt: chart_pictures.image_picture(images, name, fmt), file)

    session.add_builtins(
        {
            "progress": Builtin("progress", progress, "progress(items, total=None, desc=None)"),
            "plot": Builtin("plot", plot, "plot(ys) or plot(xs, ys, title=None, file=None)"),
            "show_image": Builtin("show_image", show_image, "show_image(t, title=None, file=None)"),
            "graph": Builtin(
                "graph", graph, "graph(y, untaken=False)", wants_context=True, when_used=seeing.keep_backward
            ),
            "gradcheck": Builtin("gradcheck", make_gradcheck(session.write, explain), SIGNATURE, wants_context=True),
            "detect_anomaly": AnomalyMode(),
        }
    )

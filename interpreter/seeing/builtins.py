"""The seeing tools as builtins of a session: `graph(y)`, `gradcheck(f, x)`, `with detect_anomaly:`.

The language core never names a tool: a front end calls `install` on each session it makes, and
may also ask for the trace (`dg --trace`) and an anomaly check of every run (`--detect-anomaly`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

from dglang.autograd import Tensor
from dglang.autograd.tensor import recording, type_name
from dglang.interpreter.core.errors import DGError
from dglang.interpreter.core.help import register
from dglang.interpreter.core.runtime import Builtin, CallContext
from dglang.interpreter.core.session import Session

from .anomaly import AnomalyCheck, AnomalyMode
from .gradcheck_table import SIGNATURE, make_gradcheck
from .graph import Graph, LastBackward, collect, source_text, text_picture
from .trace import Tracer


@dataclass
class Seeing:
    """The tools installed in one session, and what they keep of its runs."""

    session: Session
    last_backward: LastBackward = field(default_factory=LastBackward)
    keeping: bool = False

    def keep_backward(self) -> None:
        """From now on keep each backward pass, so pictures can show gradients and steps.

        Only programs that may draw pay for it: the `graph` builtin asks when a program naming it
        is compiled, the REPL and `dg graph` from the start."""
        if self.keeping:
            return
        self.keeping = True
        self.session.listeners.append(self.last_backward)
        if self.session.running:  # asked from a breakpoint's cell: listen in the run under way too
            recording.listen(self.last_backward)

    def graph(self, y: Tensor) -> Graph:
        """The recorded graph behind `y`, with the gradients of the last backward pass if kept."""
        return collect(y, self.last_backward)


INSTALLED: WeakKeyDictionary[Session, Seeing] = WeakKeyDictionary()

register(
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
    seeing = INSTALLED.get(session)
    if seeing is None:
        seeing = INSTALLED[session] = Seeing(session)
        add_builtins(seeing)
    if trace is not None:
        session.listeners.append(trace)
    if detect_anomaly:
        session.listeners.append(AnomalyCheck())
    return seeing


def add_builtins(seeing: Seeing) -> None:
    session = seeing.session

    def graph(context: CallContext, y: Tensor) -> None:
        """Print the recorded graph that produced y (after grad, with each node's gradient).

        >>> x = tensor(2.0, requires_grad=True)
        >>> graph(x * x + 1)
        ...
        """
        if not isinstance(y, Tensor):
            raise DGError("TypeError", f"graph() draws the graph behind a tensor, not {type_name(y)}")
        written = source_text(context.span)  # "graph(out_positive)": name the picture as the program does
        session.write(text_picture(seeing.graph(y), written[written.find("(") + 1 : -1].strip() or None))

    session.add_builtins(
        {
            "graph": Builtin("graph", graph, "graph(y)", wants_context=True, when_used=seeing.keep_backward),
            "gradcheck": Builtin("gradcheck", make_gradcheck(session.write), SIGNATURE, wants_context=True),
            "detect_anomaly": AnomalyMode(),
        }
    )

"""What the fuzz tests feed DG: random programs built from the grammar's constructs, random
byte-level mutations of the lessons in programs/, and the harness that runs one case and
checks its outcome.

The promise checked (see docs/reliability.md): running any text either completes or raises a
DGError that has a location and renders through the one formatter; never another Python
exception, never a hang (every case runs under a step budget and a timeout).
"""

from __future__ import annotations

import io
import os
import random
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from dglang import autograd
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.frontends.cli import read_program
from dglang.interpreter.frontends.repl import Outcome as ReplOutcome
from dglang.interpreter.frontends.repl import Repl, run_piped
from dglang.interpreter.frontends.sessions import new_session as Session
from dglang.interpreter.host import guards
from dglang.interpreter.host.limits import Limits

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "programs"
NAME = "fuzz.dg"

# Budgets for one case: small, so each case is quick and none can take the machine.
MAX_STEPS = 300
TIMEOUT = 10.0  # seconds; a case that reaches it counts as a hang
MAX_ELEMENTS = 200_000
MAX_DEPTH = 10_000  # the default: with it Python's recursion limit is high enough for C code to overflow the stack
WATCHDOG = 60.0  # CPU seconds for a whole case, parse included, in case the session's own timer misses it


class Hang(BaseException):
    """A case that ran past the watchdog."""


# ---- the harness ----------------------------------------------------------------------------
@dataclass
class Outcome:
    error: DGError | None
    seconds: float


@contextmanager
def small_memory() -> Iterator[None]:
    """Lower the tensor budget for the fuzz cases (mutations turn 100 into 1000000000)."""
    before = guards.max_elements
    guards.max_elements = MAX_ELEMENTS
    try:
        yield
    finally:
        guards.max_elements = before


@contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: object) -> None:
        raise Hang(f"still running after {seconds} CPU seconds")

    previous = signal.signal(signal.SIGVTALRM, ring)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


def run_case(text: str, base_dir: Path = PROGRAMS, as_cells: bool = False) -> Outcome:
    """Run `text` under the fuzz budgets and check the promise; return what happened (the last error).

    `as_cells` runs each top-level statement as a REPL cell in one session, so a program goes on
    past its first error and later statements meet whatever state the failed ones left."""
    session = Session(
        out=io.StringIO(),
        base_dir=base_dir,
        max_depth=MAX_DEPTH,
        limits=Limits(max_steps=MAX_STEPS, timeout=TIMEOUT, max_output=100_000),
    )
    session.globals.vars.update(pathological_values())
    start = time.perf_counter()
    error: DGError | None = None
    with small_memory(), watchdog(WATCHDOG):
        for cell in top_level_statements(text) if as_cells else [text]:
            try:
                session.run(cell, NAME)
            except DGError as e:
                error = e
                check_error(error, cell)
            assert autograd.is_grad_enabled(), "grad mode was left off"
        # The session survives: it still runs code and keeps what the program defined. (A
        # program may rebind print, as in Python: `print = 3`; the check reads its own names.)
        session.globals.vars.pop("print", None)
        session.run("print(1 + 1)", "<after>")
    session.globals.vars.clear()  # a session is a reference cycle: free what it holds now, not at the next collection
    outcome = Outcome(error, time.perf_counter() - start)
    tally(outcome)
    return outcome


DEEP_LEVELS = 130_000  # deeper than the recursion limit DG sets for --max-depth 10000 (121,000 frames)
_deep: list[list[object]] = []


def run_repl_case(lines: list[str]) -> None:
    """Feed lines to the REPL as a pipe would: cells are grouped, run and reported; nothing escapes."""
    err = io.StringIO()
    session = Session(
        out=io.StringIO(),
        base_dir=PROGRAMS,
        max_depth=MAX_DEPTH,
        limits=Limits(max_steps=MAX_STEPS, timeout=TIMEOUT, max_output=100_000),
    )
    session.globals.vars.update(pathological_values())
    repl = Repl(session, err=err)
    with small_memory(), watchdog(WATCHDOG):
        run_piped(repl, lines)
        assert autograd.is_grad_enabled(), "grad mode was left off"
        assert repl.run_cell("print(1 + 1)") is ReplOutcome.OK
    report = err.getvalue()
    assert "Traceback" not in report and "InternalError" not in report, report
    session.globals.vars.clear()


def pathological_values() -> dict[str, object]:
    """Values a program could build only slowly, given to every case: `deep`, a list nested deeper
    than any recursion limit (Python's own repr or == of it would overflow the C stack), and
    `loop`, a list that contains itself. `deep` is built once; a case that changed its top
    levels (deep[0].pop()) gets it rebuilt."""
    if not _deep or not _intact(_deep[0]):
        inner: list[object] = []
        for _ in range(DEEP_LEVELS):
            inner = [inner]
        _deep[:] = [inner]
    loop: list[object] = [1.5]
    loop.append(loop)
    return {"deep": [_deep[0]], "loop": loop}


def _intact(inner: list[object], levels: int = 8) -> bool:
    for _ in range(levels):
        if type(inner) is not list or len(inner) != 1:
            return False
        inner = inner[0]  # type: ignore[assignment]
    return True


def top_level_statements(text: str) -> list[str]:
    """`text` cut before each line that starts at column 1 (and is not `elif` or `else`)."""
    cells: list[list[str]] = []
    for line in text.splitlines():
        if not cells or (line[:1] not in (" ", "\t", "") and not line.startswith(("elif", "else"))):
            cells.append([])
        cells[-1].append(line)
    return ["\n".join(cell) + "\n" for cell in cells]


# ---- counting, for the long run's report ---------------------------------------------------------
TALLY: dict[str, int] = {}
LOG = os.environ.get("DG_FUZZ_LOG")  # a file that gets a line of counts every 1,000 cases


def tally(outcome: Outcome) -> None:
    kind = outcome.error.kind if outcome.error is not None else "completed"
    TALLY[kind] = TALLY.get(kind, 0) + 1
    total = sum(TALLY.values())
    if LOG and total % 1000 == 0:
        with open(LOG, "a") as f:
            counts = " ".join(f"{k}={v}" for k, v in sorted(TALLY.items(), key=lambda kv: -kv[1]))
            f.write(f"{time.strftime('%H:%M:%S')} pid={os.getpid()} cases={total} {counts}\n")


def check_error(error: DGError | None, text: str) -> None:
    if error is None:
        return
    where = f"\n--- program ---\n{text}\n--- error ---\n{format_error(error)}"
    assert error.kind not in ("InternalError", "TimeoutError"), where
    assert error.span is not None, "an error without a location" + where
    rendered = format_error(error)
    # located in the program, or in a module it imports (a lesson's `import nn`: nn.dg's own line)
    file = NAME if error.span.source.name == NAME else error.span.source.name
    assert file == NAME or file.endswith(".dg"), where
    header = f"{file}:{error.span.line}:{error.span.column}: {error.kind}: "
    assert rendered.startswith(header), where
    assert "Traceback" not in rendered, where


def check_unreadable(data: bytes, folder: Path) -> None:
    """Bytes that are not UTF-8 never reach the session: the CLI says why it cannot read them."""
    path = folder / NAME
    path.write_bytes(data)
    try:
        read_program(str(path))
    except DGError as e:
        assert e.kind == "FileError" and "not UTF-8" in e.message
    else:
        raise AssertionError("bytes that are not UTF-8 were read as a program")


# ---- random programs from the grammar's constructs -----------------------------------------
PRELUDE = """\
x = tensor([1.0, -2.0, 3.0], requires_grad=True); w = randn(3, 3, requires_grad=True)
m = tensor([[0.5, 1.5], [2.5, -0.5]]); n = 3; xs = [1, 2.5, -3]; s = "abc"; y = x * 2; z = 0.5; i = 1
d = {"a": 1, 2: x, (1, "b"): [w]}
def f(a, b=2):
    return a * b
"""
NAMES = ["x", "w", "m", "n", "xs", "s", "f", "y", "z", "i", "d", "deep", "loop"]
ASSIGNABLE = ["y", "z", "n", "xs", "s", "x", "m", "d"]
LITERALS = [
    "0", "1", "2", "-1", "10", "0.0", "1.5", "-2.5", "1e-3", "1e308", "3 ** 2", "True", "False", "None",
    '"ab"', "''", "pi", "inf", "[]", "()", "[1, 2]", "(1,)",
]  # fmt: skip
MAKERS = [
    "tensor([1.0, -2.0, 3.0], requires_grad=True)", "tensor(2.0, requires_grad=True)", "tensor([[1.0, 2.0]])",
    "tensor([1, 2], dtype='int')", "tensor([True, False], dtype='bool')", "zeros(0)", "zeros(2, 0)", "ones(1, 3)",
    "randn(2, 3)", "rand(3)", "arange(4)", "arange(0.0, 1.0, 0.25)", "eye(2)", "linspace(0, 1, 3)",
    "full((2, 2), 0.5)", "zeros_like(x)", "ones_like(w)", "moons(4)", "x.detach()", "w.T",
]  # fmt: skip
BINARY = ["+", "-", "*", "/", "//", "%", "**", "@"]
COMPARE = ["==", "!=", "<", "<=", ">", ">=", "in", "not in"]
FUNCTIONS = [
    "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "sum", "mean", "max", "min", "softmax",
    "log_softmax", "logsumexp", "maximum", "minimum", "where", "concat", "stack", "matmul", "argmax", "argmin",
    "reshape", "transpose", "gradient", "len", "range", "enumerate", "zip", "sorted", "reversed", "list", "tuple",
    "str", "int", "float", "bool", "round", "type", "print", "tensor", "zeros", "ones", "full", "randn", "arange",
    "linspace", "eye", "seed", "zero_grad", "load_csv", "f", "graph",
]  # fmt: skip
METHODS = [
    "sum", "mean", "max", "min", "argmax", "any", "all", "exp", "log", "sqrt", "abs", "tanh", "sigmoid", "relu",
    "softmax", "reshape", "flatten", "transpose", "item", "tolist", "detach", "numel", "append", "pop", "extend",
    "index", "split", "join", "upper", "replace", "count", "keys", "values", "items", "get", "update", "copy",
]  # fmt: skip
ATTRIBUTES = ["grad", "shape", "T", "requires_grad", "data", "ndim", "dtype", "is_leaf", "grad_fn", "__class__", "_x"]
KEYWORDS = ["axis", "keepdims", "requires_grad", "dtype", "sep", "end", "b", "reverse"]


class ProgramWriter:
    """Writes one random program with `rng`. Plain Python, not a tree of hypothesis strategies:
    hypothesis draws the seed, and a case costs a millisecond to make instead of tens."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, items: list[str]) -> str:
        return self.rng.choice(items)

    def expression(self, budget: int = 6) -> str:
        """An expression with at most about `budget` leaves."""
        r = self.rng
        if budget <= 1 or r.random() < 0.3:
            return self.pick(r.choice([LITERALS, NAMES, MAKERS]))
        e = lambda: self.expression(budget // 2)
        form = r.randrange(18)
        if form == 0:
            return f"({e()} {self.pick(BINARY)} {e()})"
        if form == 1:
            return f"({self.pick(['-', '+', 'not '])}{e()})"
        if form == 2:
            return f"({e()} {self.pick(COMPARE)} {e()})"
        if form == 3:
            return f"({e()} {self.pick(['and', 'or'])} {e()})"
        if form == 4:
            return f"({e()} if {e()} else {e()})"
        if form == 5:
            return f"{self.pick(FUNCTIONS)}({self.arguments(budget // 2)})"
        if form == 6:
            return f"{e()}.{self.pick(METHODS)}({self.arguments(budget // 2)})"
        if form == 7:
            return f"{e()}.{self.pick(ATTRIBUTES)}"
        if form == 8:
            return f"{e()}[{e()}]"
        if form == 9:
            return f"{e()}[{self.pick(['', '0', '1', '-1'])}:{self.pick(['', '2', '-1'])}]"
        if form == 10:
            return f"{e()}[:, {e()}]"
        if form == 11:
            return f"{e()}[None, {e()}]"
        if form == 12:
            return "[" + ", ".join(e() for _ in range(r.randrange(4))) + "]"
        if form == 13:
            return "(" + ", ".join(e() for _ in range(r.randrange(2, 4))) + ")"
        if form == 14:
            return f"[{e()} for i in {e()} if {e()}]"
        if form == 15:
            return "{" + ", ".join(f"{e()}: {e()}" for _ in range(r.randrange(3))) + "}"
        if form == 16:
            return f"{{i: {e()} for i in {e()} if {e()}}}"
        return f'f"<{{{e()}{self.pick(["", ":.3f", ":>5", ":d", ":e"])}}}>"'

    def arguments(self, budget: int) -> str:
        r = self.rng
        items = [self.expression(budget) for _ in range(r.randrange(4))]
        if r.random() < 0.3:
            items.append(f"{self.pick(KEYWORDS)}={self.expression(budget)}")
        return ", ".join(items)

    def block(self, depth: int = 0, in_loop: bool = False, in_def: bool = False) -> list[str]:
        """A block's statements as source lines, indented for `depth`."""
        r = self.rng
        pad = "    " * depth
        e = self.expression
        lines: list[str] = []
        for _ in range(r.randint(1, 3 if depth else 5)):
            kinds = ["assign", "assign", "aug", "expr", "print", "grad", "assert", "item", "pass", "del"]
            if depth < 3:
                kinds += ["if", "while", "for", "def", "no_grad", "anomaly"]
            if in_loop:
                kinds += ["break", "continue"]
            if in_def:
                kinds += ["return"]
            kind = r.choice(kinds)
            if kind == "assign":
                lines.append(f"{pad}{self.pick(ASSIGNABLE)} = {e()}")
            elif kind == "aug":
                lines.append(f"{pad}{self.pick(ASSIGNABLE)} {self.pick(['+=', '-=', '*=', '/=', '**=', '@='])} {e()}")
            elif kind == "expr":
                lines.append(f"{pad}{e()}")
            elif kind == "print":
                lines.append(f"{pad}print({e()}, {e()})")
            elif kind == "grad":
                lines.append(f"{pad}grad {e()}" + (f" with {e()}" if r.random() < 0.5 else ""))
            elif kind == "assert":
                lines.append(f"{pad}assert {e()}, {e()}")
            elif kind == "item":
                lines.append(f"{pad}{self.pick(['xs', 'm', 'x', 'd'])}[{e()}] = {e()}")
            elif kind == "del":
                lines.append(f"{pad}del {self.pick(['xs', 'd', 'm'])}[{e()}]")
            elif kind in ("pass", "break", "continue"):
                lines.append(f"{pad}{kind}")
            elif kind == "return":
                lines.append(f"{pad}return {e()}")
            else:
                lines.extend(self.compound(kind, depth, in_loop, in_def))
        return lines

    def compound(self, kind: str, depth: int, in_loop: bool, in_def: bool) -> list[str]:
        r, e, pad = self.rng, self.expression, "    " * depth
        header = {
            "if": f"if {e()}:",
            "while": f"while {e()}:",
            "for": f"for i in {e()}:",
            "def": f"def {self.pick(['f', 'g', 'h'])}(a, b={e()}):",
            "no_grad": "with no_grad:",
            "anomaly": "with detect_anomaly:",
        }[kind]
        lines = [pad + header]
        if kind == "def":
            lines.extend(self.block(depth + 1, in_loop=False, in_def=True))
            lines.append(f"{pad}{self.pick(['f', 'g', 'h'])}({e()})")
            return lines
        lines.extend(self.block(depth + 1, in_loop or kind in ("while", "for"), in_def))
        if kind == "if" and r.random() < 0.5:
            lines.append(f"{pad}elif {e()}:")
            lines.extend(self.block(depth + 1, in_loop, in_def))
        if kind == "if" and r.random() < 0.5:
            lines.append(pad + "else:")
            lines.extend(self.block(depth + 1, in_loop, in_def))
        return lines

    def program(self) -> str:
        """A random program, usually after a prelude that defines the names it uses."""
        body = "\n".join(self.block()) + "\n"
        return PRELUDE + body if self.rng.random() < 0.8 else body


def programs() -> st.SearchStrategy[str]:
    return st.randoms(use_true_random=True).map(lambda rng: ProgramWriter(rng).program())


# ---- byte-level mutations of the lessons ------------------------------------------------------
INTERESTING = [
    b"(", b")", b"[", b"]", b"{", b"}", b":", b",", b".", b"\n", b"    ", b"\t", b"\\\n", b'"', b"'", b'f"{', b"#",
    b"**", b"@", b"=", b"==", b"-", b"not ", b"grad ", b"def ", b"return ", b"with no_grad:", b"while True:",
    b"for i in range(10**9):", b"\x00", b"\xff", b"\xe2\x82\xac", b"\xef\xbb\xbf", b"\r", b"\x0c", b"1e308",
    b"999999999999", b"..", b"__class__", b"._data", b"import os", b"breakpoint()", b"load_csv('../x')",
    b"(" * 50, b"-" * 300, b" if x else ",
]  # fmt: skip


@st.composite
def mutations(draw: st.DrawFn, files: list[Path]) -> tuple[str, bytes]:
    """(the lesson's name, its bytes after one to four random edits)."""
    path = draw(st.sampled_from(files))
    data = bytearray(path.read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["insert", "delete", "replace", "flip", "duplicate", "swap_lines"]))
        if kind == "insert":
            payload = draw(st.one_of(st.sampled_from(INTERESTING), st.binary(min_size=1, max_size=4)))
            data[at:at] = payload
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 40))]
        elif kind == "replace":
            data[at : at + 1] = draw(st.sampled_from(INTERESTING))
        elif kind == "flip" and at < len(data):
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "duplicate":
            length = draw(st.integers(1, 200))
            data[at:at] = data[at : at + length]
        elif kind == "swap_lines":
            lines = bytes(data).split(b"\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            data = bytearray(b"\n".join(lines))
    return path.name, bytes(data)


def lesson_files() -> list[Path]:
    """Whatever lessons are in programs/ now (they get renamed and added)."""
    return sorted(PROGRAMS.glob("*.dg"))


# ---- profiles -----------------------------------------------------------------------------
LONG = os.environ.get("DG_FUZZ") == "long"


def examples(quick: int, long: int) -> int:
    """How many cases a fuzz test runs: a few seconds' worth by default, DG_FUZZ=long for a soak."""
    override = os.environ.get("DG_FUZZ_EXAMPLES")
    if override:
        return int(override)
    return long if LONG else quick

"""What exists while a DG program runs: scopes, functions, builtins, and control-flow signals."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from dglang.autograd import Tensor
from dglang.autograd.exceptions import a_type
from dglang.autograd.tensor import recording, set_grad_enabled, type_name
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Site, Span

MISSING: Any = object()  # "no value here", distinct from DG's None
MAX_SEQUENCE = 10_000_000  # longest list, string or dict an operator, method or builtin may build at once


class Env:
    """One scope's variables, and the scope that encloses it (globals → builtins at the end)."""

    __slots__ = ("parent", "vars")

    def __init__(self, vars: dict[str, Any], parent: Env | None) -> None:
        self.vars = vars
        self.parent = parent

    def lookup(self, name: str) -> Any:
        """The value `name` has here or in an enclosing scope, or MISSING."""
        env: Env | None = self
        while env is not None:
            value = env.vars.get(name, MISSING)
            if value is not MISSING:
                return value
            env = env.parent
        return MISSING

    def visible_names(self) -> set[str]:
        return set(self.names_in_order())

    def names_in_order(self) -> list[str]:
        """Every name visible here, innermost scope first (the builtins last): a "did you mean"
        takes the first of equally near ones, the program's own before a builtin."""
        names: dict[str, None] = {}
        env: Env | None = self
        while env is not None:
            names.update(dict.fromkeys(env.vars))
            env = env.parent
        return list(names)

    def contexts(self) -> list[str]:
        """The names of the `with` contexts visible here, outermost scope (the builtins) first."""
        chain: list[Env] = []
        env: Env | None = self
        while env is not None:
            chain.append(env)
            env = env.parent
        return [n for e in reversed(chain) for n, v in e.vars.items() if isinstance(v, WithContext)]


class Watching:
    """Who is told what a run reads from outside a function: a static trace (interpreter/static),
    which must guard everything its function read. `listener` is None but while one traces; then
    the evaluator tells it each name looked up outside a function's own scope (`read`), each
    module name read (`read_module`), each scope a call or comprehension makes (`entered`: it is
    the function's own, not outside), and what each builtin returned (`returned`: a tensor made
    by a builtin is the function's own), and each `.grad` the program read or set (`read_grad`,
    `wrote_grad`: a trace guards a .grad only where it read the one that came in), and what it
    cannot guard (`refuse`: which op made a tensor, its grad_fn). With no listener each costs one
    test of None."""

    __slots__ = ("listener",)

    def __init__(self) -> None:
        self.listener: Any = None


watching = Watching()


# repr=False where a class writes its own __repr__: dataclass would otherwise compile one at import
# only to leave it unused (every method it generates is compiled at start-up; see docs/performance.md).
@dataclass(slots=True, eq=False, repr=False)
class Function:
    """A function defined with `def`: its parameters, compiled body, and the scope it closes over."""

    name: str
    params: tuple[str, ...]
    defaults: tuple[Any, ...]  # one per parameter; MISSING where there is none
    body: Callable[[Env], Any]
    env: Env
    span: Span
    doc: str | None = None  # its docstring, for help
    dg_type_name: ClassVar[str] = "function"

    def signature(self) -> str:
        parts = [p if d is MISSING else f"{p}={show_short(d)}" for p, d in zip(self.params, self.defaults, strict=True)]
        return f"{self.name}({', '.join(parts)})"

    def __repr__(self) -> str:
        return f"<function {self.signature()}>"


FULL_CALL = object()  # what Builtin.first_try returns when the call needs its context


@dataclass(slots=True, eq=False, repr=False)
class Builtin:
    """A function the language provides, implemented in Python."""

    name: str
    fn: Callable[..., Any]
    written: str = ""  # its signature where fn's own would not say it: "range([start,] stop[, step])"
    wants_context: bool = False  # called as fn(CallContext, ...), like breakpoint()
    # Called once when a program that names this builtin is compiled: a tool that must watch the
    # run for the builtin to work (graph() needs the backward passes kept) starts watching then.
    when_used: Callable[[], None] | None = None
    # A builtin that wants its context may answer most calls without it (a static function's
    # replay): first_try(args, kwargs, span) is asked first, and FULL_CALL is its "no".
    first_try: Callable[[list[Any], dict[str, Any], Any], Any] | None = None
    dg_type_name: ClassVar[str] = "builtin function"

    @property
    def signature(self) -> str:
        """As help and error messages show it: "zeros(*shape, requires_grad=False)". Read from fn
        when first asked for: reading the signatures of all the builtins slowed every start."""
        if not self.written:
            self.written = signature_text(self.name, self.fn)
        return self.written

    def __repr__(self) -> str:
        return f"<builtin {self.signature}>"


@dataclass(slots=True, eq=False)
class CallContext:
    """What a builtin such as breakpoint() sees of the code that called it."""

    env: Env
    span: Span
    stack: list[Any]  # the session's DG call stack (CallFrames), of which the first `depth` are the caller's
    depth: int
    call: Callable[[Any, list[Any]], Any]  # call a DG value (a function passed in) from this call site

    @property
    def frames(self) -> tuple[Any, ...]:
        """The DG call stack at the call, innermost last. Copied only when asked: a builtin called
        in a recursion 10,000 deep would otherwise copy 10,000 frames at every level."""
        return tuple(self.stack[: self.depth])


@dataclass(slots=True, eq=False, repr=False)
class BoundMethod:
    """`x.sum` before it is called: the method and the value it belongs to."""

    obj: Any
    name: str
    fn: Callable[..., Any]
    dg_type_name: ClassVar[str] = "method"

    def __repr__(self) -> str:
        return f"<method {self.name} of {type_name(self.obj)}>"


@dataclass(slots=True, eq=False, repr=False)
class Module:
    """A module a program imported (`import nn`): its name, its file as messages show it, and its
    own top-level scope, whose names are read as `nn.linear`."""

    name: str
    path: str
    env: Env
    dg_type_name: ClassVar[str] = "module"

    def __repr__(self) -> str:
        return f"<module {self.name} from {self.path}>"


class WithContext:
    """A value a `with` statement accepts (no_grad here; tools add their own, such as detect_anomaly).

    `enter()` runs before the block and returns what `exit()` needs to undo it; `exit()` runs
    after the block, however the block ends."""

    __slots__ = ()
    dg_type_name: ClassVar[str] = "context"

    def enter(self) -> Any:
        raise NotImplementedError

    def exit(self, token: Any) -> None:
        raise NotImplementedError


@dataclass(slots=True, eq=False, repr=False)
class GradMode(WithContext):
    """The value of `no_grad` (and `enable_grad`): used as `with no_grad:` or `with no_grad():`."""

    name: str
    enabled: bool

    def enter(self) -> bool:
        return set_grad_enabled(self.enabled)

    def exit(self, previous: bool) -> None:
        set_grad_enabled(previous)

    def __repr__(self) -> str:
        return f"<context {self.name}>"


class ReturnValue:
    """Signal from a `return` statement, passed up through the blocks to the call."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


BREAK: Any = object()
CONTINUE: Any = object()


class Loopable:
    """A value that is only for looping over (`for i in progress(range(10))`): `items()` gives what the loop sees."""

    def items(self) -> Iterable[Any]:
        raise NotImplementedError


def iterate(value: Any, site: Site | None = None) -> Iterable[Any]:
    """What `for` loops over: ranges, lists, tuples, strings, a dict's keys, and the first axis of
    a tensor.

    A dict's keys are those it has when the loop starts (a loop may add or delete keys as it goes;
    Python would stop it with an error). A tensor's rows are recorded indexing ops; `site` (the
    loop's iterable) is their origin."""
    if type(value) in (range, list, tuple, str):
        return value
    if type(value) is dict:
        return list(value)
    if isinstance(value, Loopable):
        return value.items()
    if isinstance(value, Tensor):
        if value.ndim == 0:
            raise DGError("TypeError", "cannot loop over a 0-d tensor", help="it holds one value: use it directly")
        return rows(value, site)
    raise DGError(
        "TypeError", f"cannot loop over {type_name(value)}", help="loop over range(n), a list, a dict or a tensor"
    )


def unpack(value: Any, count: int) -> list[Any]:
    """`a, b = value`: its items, exactly `count` of them."""
    values = list(iterate(value))
    if len(values) != count:
        raise DGError("ValueError", f"cannot unpack {len(values)} values into {count} names")
    return values


def rows(t: Tensor, site: Site | None) -> Iterator[Tensor]:
    for i in range(len(t)):
        recording.where = site
        yield t[i]


MAX_TEXT = 10_000_000  # longest text show() builds: a list repeated inside itself could be astronomically long


def show(value: Any) -> str:
    """A value as the REPL echoes it and as it appears inside lists: strings quoted."""
    if value is True or value is False or value is None:
        return str(value)
    if type(value) is list or type(value) is tuple or type(value) is dict:
        parts: list[str] = []
        _show_into(parts, value, set(), [0])
        return "".join(parts)
    try:
        return repr(value)
    except ValueError:  # Python will not write ints of more than 4,300 digits
        raise DGError("ValueError", "this number is too long to show") from None


BRACKETS = {list: ("[", "]", "[...]"), tuple: ("(", ")", "(...)"), dict: ("{", "}", "{...}")}


def _show_into(parts: list[str], value: Any, open_: set[int], length: list[int]) -> None:
    """Append the text of a list, tuple or dict to `parts`; one inside itself shows as [...], as in Python.

    The walk recurses in Python (never through C), so a list nested 100,000 deep raises a
    RecursionError the evaluator reports, instead of overflowing the C stack."""
    opening, closing, again = BRACKETS[type(value)]
    if id(value) in open_:
        parts.append(again)
        return
    open_.add(id(value))
    parts.append(opening)
    is_dict = type(value) is dict
    for i, item in enumerate(value.items() if is_dict else value):
        if i:
            parts.append(", ")
        if is_dict:  # a key is a number, string, None or tuple of them: shown on its own
            key, item = item
            text = show(key) + ": "
            length[0] += len(text)
            parts.append(text)
        nested = type(item) in BRACKETS
        text = "" if nested else show(item)
        length[0] += len(text) + 2
        if length[0] > MAX_TEXT:
            raise DGError("ValueError", f"this value is too long to show (more than {MAX_TEXT:,} characters)")
        if nested:
            _show_into(parts, item, open_, length)
        else:
            parts.append(text)
    parts.append(closing if type(value) is not tuple or len(value) != 1 else ",)")
    open_.discard(id(value))


def text(value: Any) -> str:
    """A value as print and str() write it: strings as they are."""
    return value if type(value) is str else show(value)


def show_short(value: Any, limit: int = 40) -> str:
    """A value cut to `limit` characters, for :vars, signatures and messages; never an error."""
    try:
        s = show(value)
    except (DGError, RecursionError):  # a list nested too deeply to show at all
        return f"<{a_type(value)} too deeply nested to show>"
    return s if len(s) <= limit else s[: limit - 3] + "..."


def suggest(name: str, candidates: Iterable[str]) -> str | None:
    """`did you mean 'weight'?` for a near miss, or None."""
    import difflib  # only when there is a mistake to explain, not at every start-up

    if isinstance(candidates, set | frozenset):  # no order of their own: ties go as get_close_matches sends them
        candidates = sorted(candidates, reverse=True)
    matcher, best, score = difflib.SequenceMatcher(b=name), None, 0.7  # (get_close_matches' way, and cutoff)
    for candidate in candidates:  # the first of the nearest: candidates come in the order they matter
        if candidate.startswith("_"):
            continue
        matcher.set_seq1(candidate)
        if matcher.real_quick_ratio() < score or matcher.quick_ratio() < score:
            continue  # (cheap upper bounds of the ratio)
        ratio = matcher.ratio()
        if ratio > score or (best is None and ratio == score):
            best, score = candidate, ratio
    return f"did you mean '{best}'?" if best else None


@functools.lru_cache(maxsize=512)  # each session makes its builtins anew; inspecting signatures is the slow part
def signature_text(name: str, fn: Callable[..., Any], method: bool = False) -> str:
    """`zeros(*shape, requires_grad=False)`, or for a method `x.sum(axis=None, keepdims=False)`:
    a signature as DG writes it, without Python's annotations (and without the tensor itself)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return f"{name}(...)"
    parts = []
    for p in params[1:] if method else params:
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
        elif p.kind is p.VAR_KEYWORD:
            parts.append(f"{p.name}=value, ...")
        elif p.default is p.empty:
            parts.append(p.name)
        else:
            parts.append(f"{p.name}={show(p.default)}")
    return f"{'x.' if method else ''}{name}({', '.join(parts)})"

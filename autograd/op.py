"""What an op is: its whole declaration, forward and derivative rule together, in one class.

An op module declares each op as a subclass of `Op`, in the manner of PyTorch's
`torch.autograd.Function`:

    class Mul(Op):
        '''a * b, element by element (their shapes broadcast).'''

        inputs = ("a", "b")
        rules = ("g·b", "g·a")  # what each input receives, as text: pictures fill in the numbers

        @staticmethod
        def forward(a, b):  # NumPy values in, a NumPy value out
            return a * b

        @staticmethod
        def backward(g, out, a, b):  # g arrives at the output; one gradient per input
            return g * b, g * a

`forward` sees only NumPy values (and the op's other arguments: an axis, a shape), so the op
modules import nothing of tensor.py, which imports them: `Tensor`'s methods hand each op to
`tensor.run_op`, which runs `forward` on the values and, when recording, keeps a node that holds
the op, its inputs and its other arguments. Backward calls `backward(g, out, *arguments)` with
the inputs as tensors and the other arguments as forward got them. A rule uses only tensor
operators and methods (`g * b`, `a.log()`, `g.where(mask, 0.0)`), so with recording on it builds
a graph of its own (a gradient of a gradient), and a code generator can run it on its own values.

An op is never instantiated: the class is its declaration. `OPS` in table.py lists every op by
name; `FUNCTIONS` there is everything a DG program can call, read from these declarations.

Adding an op is writing its class in an op module, and nothing else by hand: what reads the
declarations as DG runs (its builtins and methods, help, the sandbox, Pygments' colours, the tests
that go through every op) finds it. A few files hold text made from them (docs/language.md's op
tables, the editors' TextMate grammar, Tensor's line for a new method); after adding or changing
an op, `uv run python tools/regenerate.py` rewrites them, and tests/project/test_generated.py
fails until it has.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import textwrap
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np


class Op:
    """One op. Declared by subclassing; every attribute below is read from the subclass.

    name      the class's name, "Mul": a node shows as `<MulBackward>`, and OPS finds it by it
    inputs    the names of forward's tensor parameters, which its rules use: ("a", "b")
    rules     what each input receives, for the gradient g arriving at the output: ("g·b", "g·a");
              empty for an op whose result is a constant (argmax, floor, comparisons)
    nan       why its rule might send back nan or inf, for anomaly mode (None: nothing likely)
    variadic  forward's one tensor parameter is a list of any length (concat, stack); its one
              input name and rule stand for each
    terms     any other name a rule uses, with how to find its value from the node's inputs and
              output, so a picture can put numbers in the rule: (("n", count),) for `g/n`
    forward   computes the result from the inputs' NumPy values and the other arguments
    backward  the rule: (g, out, *arguments) -> one gradient (or None) per input; None for an op
              whose result is a constant

    How programs reach it (read by the interpreter's builtins, help and sandbox):
    function  the name they call it by: "mul" (default: the name in lower case)
    method    a tensor method: `x.exp()` (tensor.py has a method of that name)
    builtin   a builtin: `exp(x)`
    numbers   the builtin also takes a plain number and gives one back: `exp(0)` is 1.0
    aliases   other names it answers to the same way, PyTorch's or NumPy's: ("cat",) for concat
    call      how a program passes its arguments, when not in forward's order: a function from
              them to forward's (einsum("ij,jk->ik", a, b): the equation first, then the operands)

    What the reference and the checks read (optional):
    note      what a reader of its rule needs besides (a tie, a boundary, PyTorch's convention): the
              notes column of docs/language.md's derivative rules, in Markdown
    sample    arguments forward can take, as NumPy values and the other arguments, for the checks
              that go through every op (tests/promises/test_every_allocation.py, tests/engine/
              test_higher_order.py) and for help's example when the docstring has none. Leave it
              out when forward needs only its tensors: `sample_arguments` makes one of those

    A rule's text is also the form pictures fill in: each of `g`, the input names and the terms,
    written as a word of its own, is replaced by its value (`g·b` becomes `1·2`).
    """

    name: ClassVar[str] = "Op"
    inputs: ClassVar[tuple[str, ...]] = ("a",)
    rules: ClassVar[tuple[str, ...]] = ()
    nan: ClassVar[str | None] = None
    variadic: ClassVar[bool] = False
    terms: ClassVar[tuple[tuple[str, Callable[[tuple[Any, ...], Any], Any]], ...]] = ()
    function: ClassVar[str] = ""
    method: ClassVar[bool] = False
    builtin: ClassVar[bool] = False
    numbers: ClassVar[bool] = False
    aliases: ClassVar[tuple[str, ...]] = ()
    call: ClassVar[Callable[..., tuple[Any, ...]] | None] = None
    note: ClassVar[str] = ""
    sample: ClassVar[tuple[Any, ...] | None] = None
    composed: ClassVar[bool] = False  # see Composed
    made_of: ClassVar[tuple[type[Op], ...]] = ()  # see Composed
    forward: ClassVar[Callable[..., Any]]
    backward: ClassVar[Callable[..., tuple[Any, ...]] | None] = None
    records: ClassVar[bool] = False  # it has a rule: applying it records a node (set from `backward`)
    places: ClassVar[frozenset[int]] = frozenset()  # set from `inputs` and forward's parameters
    signature: ClassVar[inspect.Signature]  # forward's, read once here: what a function of the op takes
    # forward's parameter names and defaults (inspect's `empty` for none), when all are plain
    # (positional or keyword: every op's but a few), for `bind`
    parameters: ClassVar[tuple[tuple[str, ...], tuple[Any, ...]] | None] = None

    def __init_subclass__(cls) -> None:
        cls.name = cls.__name__
        cls.records = cls.backward is not None
        cls.function = vars(cls).get("function") or cls.__name__.lower()
        if (cls.rules and len(cls.rules) != len(cls.inputs)) or (cls.variadic and len(cls.inputs) != 1):
            raise ValueError(f"{cls.name}: give one rule per input ({cls.inputs} and {cls.rules})")
        if (cls.backward is None) != (not cls.rules) and not cls.composed:
            raise ValueError(f"{cls.name}: an op with a derivative rule declares its text in `rules`, and only then")
        names: list[str] = []
        if hasattr(cls, "forward"):
            cls.signature = inspect.signature(cls.forward)
            names = list(cls.signature.parameters)
            given = cls.signature.parameters.values()
            plain = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in given)
            cls.parameters = (tuple(names), tuple(p.default for p in given)) if plain else None
        if names and not cls.variadic and any(name not in names for name in cls.inputs):
            raise ValueError(f"{cls.name}: each name in `inputs` {cls.inputs} is a parameter of forward")
        # where forward's tensor parameters stand: those `inputs` names, or a variadic op's first (the list)
        cls.places = frozenset({0} if cls.variadic else (names.index(name) for name in cls.inputs if names))
        if cls.numbers and not cls.builtin:
            raise ValueError(f"{cls.name}: numbers=True describes a builtin: give builtin=True as well")

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{cls.__name__} is a declaration: run it with tensor.run_op, or call x.{cls.function}()")

    @classmethod
    def bind(cls, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """forward's arguments in order, its defaults filled in: what Signature.bind and
        apply_defaults give, worked out here for plain parameters in a tenth of their time (a
        conv2d(x, w, b, padding=1) runs at every step). A name unknown, given twice or missing
        goes to Signature.bind, for its message. PyTorch's words (dim, keepdim) name DG's."""
        if not kwargs.keys().isdisjoint(PYTORCH_NAMES):  # sum(x, dim=0, keepdim=True)
            kwargs = {PYTORCH_NAMES.get(k, k) if k not in cls.signature.parameters else k: v for k, v in kwargs.items()}
        if cls.parameters is not None and len(args) <= len(cls.parameters[0]):
            values, named = list(args), 0  # each parameter after the positional ones: given, or its default
            for name, default in zip(*(part[len(args) :] for part in cls.parameters), strict=True):
                if name in kwargs:
                    values.append(kwargs[name])
                    named += 1
                elif default is inspect.Parameter.empty:
                    break  # missing
                else:
                    values.append(default)
            else:
                if named == len(kwargs):  # (else a name forward does not have, or one given twice)
                    return tuple(values)
        bound = cls.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound.args

    @classmethod
    def rule_for(cls, position: int) -> tuple[str, str]:
        """The name of input `position` and what the rule sends it: ("b", "g·a")."""
        if cls.variadic:
            return f"{cls.inputs[0]} {position + 1}", cls.rules[0]
        if position < len(cls.rules):
            return cls.inputs[position], cls.rules[position]
        return f"input {position + 1}", "?"  # recorded with more inputs than it declares

    @classmethod
    def sample_arguments(cls) -> tuple[Any, ...] | None:
        """`sample` as declared; else, for an op whose forward needs only its tensors (its other
        parameters all have defaults), a small array for each input: [0.5, 1.5, 2.5] for the first,
        shifted by 0.25 for each next one, so that no two inputs tie (a maximum's kink) and every
        value stays inside a log's or a square root's domain and away from a relu's kink. None
        when forward needs more: such an op declares `sample`."""
        declared = vars(cls).get("sample")  # (not a parent's: Conv1d's forward is not Conv2d's)
        if declared is not None:
            return declared
        if cls.variadic or not hasattr(cls, "forward"):
            return None
        parameters = list(cls.signature.parameters.values())
        tensors, others = parameters[: len(cls.inputs)], parameters[len(cls.inputs) :]
        if [p.name for p in tensors] != list(cls.inputs) or any(p.default is p.empty for p in others):
            return None
        return tuple(np.array([0.5, 1.5, 2.5]) + 0.25 * k for k in range(len(cls.inputs)))

    @classmethod
    def saved(cls) -> tuple[frozenset[int], bool]:
        """Which values its rule reads: the positions among the rule's arguments after g and out
        (a node's `args`) whose values it uses, and whether it uses out's. What PyTorch's ops
        declare with `save_for_backward`, read here from the rule itself (`rule_reads`): a rule
        that reads only an input's shape or requires_grad (Add, Sum) saves nothing, so changing
        that input in place after the op ran does not stop backward."""
        found = _SAVED.get(cls)
        if found is None:
            found = _SAVED[cls] = rule_reads(cls.backward)
        return found

    @classmethod
    def changed(cls, node: Any, out: Any) -> bool:
        """Was a value this op's rule reads (see `saved`) changed in place after `node` ran?"""
        positions, reads_out = cls.saved()
        epoch = node.epoch
        if reads_out and out.version > epoch:
            return True
        args = node.args
        for i in positions:
            if i < len(args):
                a = args[i]
                for t in a if type(a) is tuple else (a,):
                    if getattr(t, "version", 0) > epoch:
                        return True
        return False

    @classmethod
    def python_name(cls) -> str:
        """Its name as a Python function: `function`, with a `_` after a name Python's builtins
        have (`abs_`, `sum_`), so that `from dglang.autograd import *` shadows none of them."""
        return cls.function + "_" if hasattr(builtins, cls.function) else cls.function


_SAVED: dict[type, tuple[frozenset[int], bool]] = {}
MAX_ARGUMENTS = 64  # a rule's arguments after g and out, at most (an op's shape argument may be long)
METADATA = frozenset(("shape", "ndim", "size", "dtype", "requires_grad"))  # what a rule may read of a changed input


def source_of(fn: Callable[..., Any]) -> str:
    """fn's text: the lines its code spans, from the lines Python keeps of its file (inspect.getsource
    tokenizes the whole file to find where the block ends: most of the first trace's time), with
    the few lines after them that close it (a `)` on a line of its own has no code), or inspect's
    when those lines are not a whole definition."""
    return parsed(fn)[0]


def parsed(fn: Callable[..., Any]) -> tuple[str, ast.Module | None]:
    """fn's text (source_of) and its syntax tree, found once per function: a trace asks for each
    rule's twice (which values it reads, whether its ops can be traced), and parsing is most of it."""
    found = _PARSED.get(fn)
    if found is not None:
        return found
    code = getattr(fn, "__code__", None)
    if code is not None:
        lines = linecache.getlines(code.co_filename)
        last = max((line for *_, line in code.co_lines() if line is not None), default=code.co_firstlineno)
        for end in range(last, min(last + CLOSING_LINES, len(lines)) + 1):  # (a `)` alone: no code of its own)
            text = textwrap.dedent("".join(lines[code.co_firstlineno - 1 : end]))
            try:
                found = text, ast.parse(text)
                break
            except SyntaxError:
                pass
    if found is None:  # (inspect's text, which may be more than the function: a lambda's line)
        text = textwrap.dedent(inspect.getsource(fn))
        try:
            found = text, ast.parse(text)
        except SyntaxError:
            found = text, None
    _PARSED[fn] = found
    return found


_PARSED: dict[Callable[..., Any], tuple[str, ast.Module | None]] = {}


CLOSING_LINES = 3  # lines after a function's last line of code source_of tries before asking inspect


def rule_reads(rule: Callable[..., Any] | None) -> tuple[frozenset[int], bool]:
    """The arguments of `rule` (after g and out) whose values it uses, and whether it uses out's:
    a parameter counts as read unless every use of it reads one of METADATA (`b.requires_grad`,
    `a.shape`). Anything the rule's text cannot show (no source, `*args`) counts as read."""
    everything = (frozenset(range(MAX_ARGUMENTS)), True)
    if rule is None:
        return frozenset(), False
    try:
        tree = parsed(rule)[1]
    except (OSError, TypeError):
        return everything
    function = tree.body[0] if tree is not None else None
    if not isinstance(function, ast.FunctionDef):
        return everything
    names = [a.arg for a in function.args.args]
    rest = function.args.vararg.arg if function.args.vararg is not None else None  # `*shape`: the rest
    metadata_only: set[int] = set()  # ids of Name nodes read only for their metadata
    loaded: list[ast.Name] = []
    for node in ast.walk(function):
        if type(node) is ast.Attribute and node.attr in METADATA and type(node.value) is ast.Name:
            metadata_only.add(id(node.value))
        elif type(node) is ast.Name and type(node.ctx) is ast.Load:
            loaded.append(node)
    used = {node.id for node in loaded if id(node) not in metadata_only}
    read = {i for i, name in enumerate(names[2:]) if name in used}
    if rest in used:
        read.update(range(len(names) - 2, MAX_ARGUMENTS))
    return frozenset(read), len(names) > 1 and names[1] in used


PYTORCH_NAMES = {"dim": "axis", "keepdim": "keepdims", "dims": "axes", "dimension": "axis"}  # PyTorch's: DG's


class Composed(Op):
    """A function built from other ops (logsumexp is a shift, exp, sum and log): `forward` receives the
    inputs as tensors and computes with their methods, so each op it uses is recorded, with its
    own rule; it has none of its own. Declared like an op for its name, help and exposure."""

    composed = True
    inputs = ("x",)
    made_of = ()  # the recorded ops it is made of, whose rules its help shows (conv2d: Im2col and Convolve)


def value_shape(value: Any) -> tuple[int, ...]:
    """The shape of a value forward receives: an array's own, () for a plain number (np.shape
    gives the same, but through a Python call: forwards ask on every op)."""
    return value.shape if type(value) is np.ndarray else np.shape(value)


def builtin(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a function of the engine that is not an op (it makes tensors, or runs backward) as a
    builtin of DG programs: `zeros(2, 3)`, `gradient(y, x)`. Returns the function unchanged."""
    fn.builtin = True  # type: ignore[attr-defined]
    return fn

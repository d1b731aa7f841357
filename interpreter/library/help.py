"""Help for every name a program or a person uses: builtins, tensor attributes and methods,
operators, keywords and REPL commands, as data that `:help NAME`, the `help()` builtin, the
completion menu, a notebook's inspection and a language server's hover all read.

Each fact has one home, beside what it describes:
- a function (a builtin, a tensor method or attribute): its own docstring. The first line is the
  one-sentence summary; an example is written as REPL input (`>>> ...`) with what it prints under
  it, and tests/language/test_help.py runs every example and compares. An op whose docstring has
  no example gets one from its sample call (`Op.sample_arguments`), so a new op has help at once;
- a derivative rule: the declaration (`Op`) of the op the engine function records, in autograd;
- what is not a function: an entry written where that thing is defined, as text
  (keyword_help.py's KEYWORDS; constants and `with` contexts with `keyword_help.written`, in
  builtin_table.py and the seeing tools), or with `register` (the REPL's commands).
docs/language.md is checked against this data by tests/language/test_help.py, so the two cannot drift.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

import numpy as np

from dglang.autograd import Tensor
from dglang.autograd.op import Op
from dglang.autograd.table import FUNCTIONS, PublicFunction
from dglang.autograd.tensor import type_name

from .attributes import TENSOR_METHODS, TENSOR_PROPERTIES
from .habits import instead
from .keyword_help import KEYWORDS, WRITTEN
from .runtime import MISSING, BoundMethod, Builtin, Env, Function, Module, show, signature_text


class Example(NamedTuple):
    """One cell typed at the REPL (a line, or a `def` with its body) and what it prints."""

    code: str
    output: str = ""


class Help(NamedTuple):
    """What help says about one name.

    name       as it is looked up: "relu", "x.sum", "x.grad", "+", "if", ":step"
    kind       "builtin function", "tensor method", "tensor attribute", "operator", "keyword",
               "constant", "context" (for `with`), "REPL command", "debugger command", ...
    signature  how it is written: "relu(x)", "x.sum(axis=None, keepdims=False)", ":break LINE [if COND]"
    summary    one sentence
    rule       the derivative rule, where there is one: "Relu: a receives g where a > 0"
    example    cells typed at the REPL and what each prints
    also       the same thing reached another way: "also x.relu()"
    """

    name: str
    kind: str
    signature: str
    summary: str
    rule: str | None = None
    example: tuple[Example, ...] = ()
    also: str | None = None


ENTRIES: dict[str, Help] = {}  # what is not a function, by name: keywords, constants, contexts, commands
# The engine's functions by name; where a builtin and a method share one and are different functions
# (PyTorch's F.unfold and x.unfold), ENGINE holds the builtin and METHODS the method (elsewhere the same).
ENGINE: dict[str, PublicFunction] = {f.dg_name: f for f in sorted(FUNCTIONS, key=lambda f: f.builtin)}
METHODS: dict[str, PublicFunction] = ENGINE | {f.dg_name: f for f in FUNCTIONS if f.method}
# The operators and the engine functions that compute them on tensors (their rules are the ops').
OPERATORS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "mod", "**": "pow", "@": "matmul"}
GRADIENT = "g is the gradient arriving at the result"


def register(name: str, kind: str, signature: str, doc: str) -> Help:
    """Add help for a name that is not a function (a keyword, a constant, a command); `doc` is
    written as a docstring is: the summary, then the example."""
    summary, example = docstring_parts(doc)
    entry = ENTRIES[name] = Help(name, kind, signature, summary, example=example)
    return entry


def entries() -> dict[str, Help]:
    """ENTRIES, with the constants and contexts registered as text (keyword_help.WRITTEN) added."""
    for name, (kind, signature, doc) in WRITTEN.items():
        if name not in ENTRIES:
            register(name, kind, signature, doc)
    return ENTRIES


# ---- reading docstrings -----------------------------------------------------------------------
@functools.lru_cache(maxsize=1024)  # the completion menu asks for many summaries at a time
def docstring_parts(doc: str | None) -> tuple[str, tuple[Example, ...]]:
    """(summary, example) from a docstring: its first line, and the REPL session written in it, as
    doctest writes one: each cell after `>>> ` (its further lines after `... `), and under it what
    it prints, up to a blank line or the next `>>> `."""
    lines = inspect.cleandoc(doc or "").splitlines()
    summary = lines[0].strip() if lines else ""
    cells: list[tuple[list[str], list[str]]] = []
    reading = False
    for line in lines[1:]:  # an output of "..." stands for any output (a picture shown elsewhere)
        if line.startswith(">>> "):
            cells.append(([line[4:]], []))
            reading = True
        elif line.startswith("... ") and reading and not cells[-1][1]:
            cells[-1][0].append(line[4:])
        elif reading and line.strip():
            cells[-1][1].append(line)
        else:
            reading = False
    return summary, tuple(Example("\n".join(code), "\n".join(out)) for code, out in cells)


def documented(
    name: str,
    kind: str,
    signature: str,
    fn: Callable[..., Any] | None,
    rule: str | None = None,
    also: str | None = None,
) -> Help:
    summary, example = docstring_parts(getattr(fn, "__doc__", None))
    if not example and kind in ("builtin function", "tensor method"):
        example = sample_example(name.removeprefix("x."), method=kind == "tensor method")
    return Help(name, kind, signature, summary, rule, example, also)


def sample_example(name: str, method: bool) -> tuple[Example, ...]:
    """The example of an op whose docstring gives none: its sample call, as a program writes it
    (`softplus(tensor([0.5, 1.5, 2.5]))`), and what that gives. None for a sample of values a
    program cannot write (a convolution's geometry): such an op writes an example in its docstring."""
    engine = (METHODS if method else ENGINE).get(name)
    op = getattr(engine.fn, "op", None) if engine is not None else None
    sample = op.sample_arguments() if op is not None else None
    if engine is None or sample is None or not all(type(v) in (np.ndarray, int, float) for v in sample):
        return ()
    written = [f"tensor({v.tolist()})" if type(v) is np.ndarray else repr(v) for v in sample]
    call = f"{written[0]}.{name}({', '.join(written[1:])})" if method else f"{name}({', '.join(written)})"
    return (Example(call, show(engine.fn(*sample))),)


# ---- derivative rules, from the ops' declarations -----------------------------------------------
def rule_of(engine_name: str, method: bool = False) -> str | None:
    """The rule of the op the engine function `engine_name` (the method, with `method`) records
    ("Mul: a receives g·b, ...")."""
    function = (METHODS if method else ENGINE).get(engine_name)
    if function is None or not function.records:
        return None
    return "; ".join(op_rule(op) for op in function.records)


def op_rule(op: type[Op]) -> str:
    if op.variadic:
        return f"{op.name}: each {op.inputs[0]} receives {op.rules[0]}"
    parts = [f"{name} receives {rule}" for name, rule in zip(op.inputs, op.rules, strict=True)]
    return f"{op.name}: {', '.join(parts)}"


# ---- looking names up ---------------------------------------------------------------------------
def describe(name: str, builtins: Mapping[str, Any] | None = None) -> Help | None:
    """Help for `name` as a person writes it: "relu", "x.sum" or ".sum", "+", "if", ":step";
    `builtins` is a session's builtin scope (with the tools' builtins). None if nothing is known."""
    name = name.strip()
    builtins = builtins or {}
    known = entries()
    if name.startswith(":"):
        return known.get(name)
    if "." in name and name not in known:
        member = name.rpartition(".")[2]
        return tensor_member(member) or habit_help(member)
    if name in OPERATORS:
        return operator_help(name)
    if name in known and known[name].kind == "keyword":
        return known[name]
    if name in builtins:
        return builtin_help(name, builtins[name], builtins)
    found = tensor_member(name) or known.get(name) or known.get(":" + name)
    return found or habit_help(name)


def describe_in(name: str, env: Env, builtins: Mapping[str, Any]) -> Help | None:
    """What `:help NAME` says where `env` is the program's scope: of a function or module the
    program defined, its own help (a function's signature and docstring); else DG's help for the
    name; else what help(NAME) says of the variable's value. None if there is nothing."""
    owner, _, member = name.rpartition(".")
    module = env.lookup(owner) if owner.isidentifier() else MISSING
    if isinstance(module, Module) and member in module.env.vars:  # :help nn.linear
        return describe_value(module.env.vars[member], builtins)
    value = env.lookup(name) if name.isidentifier() else MISSING
    own = value is not MISSING and value is not builtins.get(name, MISSING)
    if own and isinstance(value, Function | Module):
        return describe_value(value, builtins)
    found = describe(name, builtins)
    return describe_value(value, builtins) if found is None and own else found


HABIT_EXAMPLES = {
    "backward": docstring_parts(
        """backward

        >>> x = tensor(2.0, requires_grad=True)
        >>> loss = x * x
        >>> grad loss
        >>> x.grad
        tensor(4.)
        """
    )[1]
}


def habit_help(name: str) -> Help | None:
    """`:help backward`: a PyTorch or NumPy name DG does not have, and what DG writes instead."""
    found = instead(name)
    if found is None:
        return None
    written, what = found
    return Help(name, "PyTorch's or NumPy's, not DG's", written, what, example=HABIT_EXAMPLES.get(name, ()))


def builtin_help(name: str, value: Any, builtins: Mapping[str, Any]) -> Help:
    if isinstance(value, Builtin):
        method, engine = TENSOR_METHODS.get(name), ENGINE.get(name)
        same = method is not None and (engine is None or engine.method)  # (x.unfold is another function)
        also = f"also {signature_text(name, method, method=True)}" if same else None
        return documented(name, "builtin function", value.signature, value.fn, rule_of(name), also)
    if name in entries():
        return entries()[name]
    return Help(name, type_name(value), name, f"a builtin {type_name(value)}: {show(value)}")


def tensor_member(name: str) -> Help | None:
    if name in TENSOR_PROPERTIES:
        return documented(f"x.{name}", "tensor attribute", f"x.{name}", TENSOR_PROPERTIES[name])
    fn = TENSOR_METHODS.get(name)
    if fn is None:
        return None
    engine = METHODS.get(name)
    also = f"also {signature_text(name, engine.fn)}" if engine is not None and engine.builtin else None
    signature = signature_text(name, fn, method=True)
    return documented(f"x.{name}", "tensor method", signature, fn, rule_of(name, method=True), also)


def operator_help(symbol: str) -> Help:
    engine = ENGINE[OPERATORS[symbol]]
    return documented(symbol, "operator", f"a {symbol} b", engine.fn, rule_of(engine.dg_name))


def describe_value(value: Any, builtins: Mapping[str, Any]) -> Help:
    """Help for a value, as `help(value)` gives it: a builtin, a method, a function, a tensor..."""
    if value is None or value is True or value is False:
        return entries()[str(value)]
    if isinstance(value, str):
        found = describe(value, builtins)
        if found is not None:
            return found
        return Help(value, "unknown", value, f"no help for '{value}'; help() lists what there is")
    for name, builtin in builtins.items():
        if builtin is value:
            return builtin_help(name, value, builtins)
    if isinstance(value, BoundMethod):
        if isinstance(value.obj, Tensor):
            return tensor_member(value.name) or Help(value.name, "method", value.name, "")
        kind = f"{type_name(value.obj)} method"
        return Help(
            value.name, kind, f"{type_name(value.obj)}.{value.name}(...)", f"a method of every {type_name(value.obj)}"
        )
    if isinstance(value, Function):
        return function_help(value)
    if isinstance(value, Module):
        names = sorted(value.env.vars)
        listed = ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")
        summary = f"the module read from {value.path}."
        return Help(value.name, "module", f"import {value.name}", summary, also=f"its names: {listed or 'none'}")
    if isinstance(value, Tensor):
        state = " that requires grad" if value.requires_grad and value.is_leaf else ""
        if value.grad_fn is not None:
            state = f" computed by {value.grad_fn.op.name}"
        summary = f"a {value.dtype} tensor of shape {value.shape}{state}"
        return Help("tensor", "value", "x", summary, also="its attributes and methods: " + ", ".join(tensor_names()))
    return Help(type_name(value), "value", show_value(value), f"a value of type {type_name(value)}")


def function_help(f: Function) -> Help:
    """A function the program defined: its signature, where, and its docstring (one line: DG's
    strings are written on one line)."""
    signature, where = f"def {f.signature()}", f"defined at {f.span}"
    if not f.doc or not f.doc.strip():
        return Help(f.name, "function", signature, f"a function {where}")
    return Help(f.name, "function", signature, f.doc.strip(), also=where)


def show_value(value: Any) -> str:
    text = show(value)
    return text if len(text) <= 40 else text[:37] + "..."


def tensor_names() -> list[str]:
    return [*TENSOR_PROPERTIES, *TENSOR_METHODS]


def everything(builtins: Mapping[str, Any]) -> Iterator[Help]:
    """Help for every name there is help for, grouped: keywords, builtins, tensor members, operators, commands."""
    yield from (e for e in entries().values() if e.kind == "keyword")
    for name, value in builtins.items():
        yield builtin_help(name, value, builtins)
    for name in tensor_names():
        found = tensor_member(name)
        if found is not None:
            yield found
    for symbol in OPERATORS:
        yield operator_help(symbol)
    yield from (e for e in entries().values() if e.name.startswith(":"))


# ---- as text --------------------------------------------------------------------------------------
def render(entry: Help) -> str:
    """Plain text, as `:help NAME` and `help(NAME)` print it."""
    head = f"{entry.signature}    ({entry.kind}{'; ' + entry.also if entry.also else ''})"
    lines = [head, f"    {entry.summary}"] if entry.summary else [head]
    if entry.rule:
        lines.append(f"    derivative  {entry.rule}   ({GRADIENT})")
    if entry.example:
        lines.append("    example")
        prompt = "(dg) " if entry.kind == "debugger command" else ">>> "
        lines.extend(f"      {line}" for line in transcript(entry.example, prompt))
    return "\n".join(lines)


def transcript(example: tuple[Example, ...], prompt: str = ">>> ") -> list[str]:
    """The example as a REPL session shows it: the prompt before each cell, `... ` before its
    further lines, and what it prints (an output of "...", shown elsewhere, is left out)."""
    lines = []
    for cell in example:
        code = cell.code.split("\n")
        lines.append(prompt + code[0])
        lines.extend("... " + line for line in code[1:])
        lines.extend(cell.output.split("\n") if cell.output and cell.output != "..." else [])
    return lines


for _keyword, (_signature, _doc) in KEYWORDS.items():
    register(_keyword, "keyword", _signature, _doc)

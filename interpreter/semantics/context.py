"""What running a program needs from whoever hosts it: the evaluator's whole view of the world.

A Session owns one RunContext and hands it to the compiler; nothing else outside the program's
own values reaches the evaluator, so this class lists everything a run can touch.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from dglang.interpreter.diagnostics.errors import CallFrame
from dglang.interpreter.diagnostics.source import LoopRun, Span
from dglang.interpreter.library.runtime import Module

from . import ast_nodes as ast


@dataclass(slots=True, eq=False)
class ModuleInterface:
    """A module as the programs importing it know it before anything runs: found, read, parsed,
    resolved and compiled, but not run. The linker (linking.py) checks what is imported against
    `names`; an `import` statement runs `code` the first time it runs (ModuleFinder.load)."""

    name: str  # as imported: "nn"
    display: str  # its file as messages name it: "nn.dg", "../lib/nn.dg"
    file: Path  # its file, links followed
    names: frozenset[str]  # what its top level binds, read from its text
    code: Callable[[Any], Any]  # its top level, compiled: called with the module's own scope
    # False for a module whose missing names are each its importer's problem only where used (the
    # submission, under `dg grade`: a student who left out one function loses only its tests)
    checked: bool = True


class ModuleFinder(Protocol):
    """Whoever hosts a run and lets it import modules (host/modules.py): finds a module's file
    and compiles it once (raising a located ImportError, or the module's own error), and runs it
    once (`load`), in a scope of its own."""

    def find(self, imported: ast.ImportedName) -> ModuleInterface: ...

    def load(self, module: ModuleInterface, at: Span) -> Module: ...


@dataclass(eq=False)
class RunContext:
    """frames       the DG call stack, innermost last (error messages, `breakpoint()`, recursion depth)
    loops        the loops running, innermost last, each counting its iterations (for pictures)
    max_depth    deepest nesting of DG calls before a RecursionError
    max_steps    loop iterations, comprehension items and calls a run may make (None: no limit)
    inside_builtins  how many builtins that may call back into the program (gradcheck, breakpoint)
                 are running, one inside another; each holds C frames on the stack (see calls.py)
    steps        how many it has made so far (counted only when there is a limit)
    show         shows the value of an expression statement in a REPL cell
    pause        what `breakpoint()` does (open a debugger), or None to carry on
    rebound_parameter  where a program last rebound a parameter inside `no_grad`, for `grad`'s hint
    why_not      set by a builtin that answered no (gradcheck returning False): its message and help,
                 which an `assert` of that answer shows instead of "assertion failed"
    warn         reports a warning (through the one formatter, to standard error)

    The debugger's statement events, compiled in only where a debugger may stop (see
    CompilerBase.observed); a program compiled without them pays nothing:
    debugger     a debugger is attached: programs that name `breakpoint` get the events
    debug_everything  every program gets them (the REPL, where a pause may step into code typed before)
    on_statement called with (span, env) before each statement of such a program; None: no one listens
    scopes       (depth, env) of each DG call under way in such a program, for the debugger's :up
    modules      what `import` finds and runs (None: a run that cannot import)
    evaluator    "accelerator" (compiled closures, evaluator.py) or "reference" (the tree walked,
                 reference.py): which runs the programs compiled for this context (see pipeline.py)
    """

    frames: list[CallFrame] = field(default_factory=list)
    loops: list[LoopRun] = field(default_factory=list)
    max_depth: int = 10_000
    max_steps: int | None = None
    inside_builtins: int = 0
    steps: int = 0
    show: Callable[[Any], None] = lambda value: None
    pause: Callable[[Any], None] | None = None
    rebound_parameter: tuple[str, Span] | None = None
    why_not: tuple[str, str | None] | None = None
    warn: Callable[[Any], None] = lambda warning: None
    debugger: bool = False
    debug_everything: bool = False
    on_statement: Callable[[Span, Any], None] | None = None
    scopes: list[tuple[int, Any]] = field(default_factory=list)
    modules: ModuleFinder | None = None
    evaluator: str = field(default_factory=lambda: evaluator_chosen())


def evaluator_chosen() -> str:
    """The evaluator the environment asks for: DG_EVAL=reference walks the tree (reference.py);
    anything else, or nothing, runs the accelerator (evaluator.py)."""
    return "reference" if os.environ.get("DG_EVAL") == "reference" else "accelerator"

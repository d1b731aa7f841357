"""What the text alone shows will fail when it runs, found without running it: names nothing
defines, and calls with the wrong arguments. Each problem is the DGError the run would raise there,
in the same words (semantics/expressions.py's NameError, semantics/calls.py's binding), so the editor and `dg`
agree.

Only what is certain is reported: a name counts as unknown only if the program assigns it nowhere
and no builtin has it (the resolver's free names); a call is checked only when its name can mean
one thing, a builtin the program never assigns, or a function defined once and bound no other way.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Mapping
from typing import Any

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.library.runtime import MISSING, Builtin, Env, Function
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.semantics.calls import bind_arguments, binding_problem
from dglang.interpreter.semantics.hints import library_prefix, unknown_name
from dglang.interpreter.semantics.resolver import Resolution

from .symbols import Definition, nodes, signature

PLACEHOLDER: Any = object()  # an argument whose value the check does not need
SUGGESTIONS = 50_000  # names compared in all for "did you mean" in one reading (a tenth of a second)


def unknown_names(
    resolution: Resolution, found: list[Definition], builtins: Mapping[str, Any], most: int
) -> list[DGError]:
    """A NameError at each of the first `most` reads (in the order of the text) of a name that
    neither the program nor the builtins define. A "did you mean" compares the name with every
    name defined, so the comparisons have a budget (SUGGESTIONS): 2,500 unknown names among
    2,500 defined ones, each given its suggestion, took a minute."""
    unknown = resolution.free_names - builtins.keys()
    if not unknown:
        return []
    reads = heapq.nsmallest(most, (n for n in resolution.lookups if n.name in unknown), key=lambda n: place(n.span))
    visible = list(dict.fromkeys([*(d.name for d in found), *builtins]))  # the program's own first ("did you mean")
    problems, budget = [], SUGGESTIONS
    for node in reads:
        compared = visible if budget >= len(visible) else ()  # a keyword's help needs no comparison
        budget -= len(compared)
        help = library_prefix(node) or unknown_name(node.name, compared)  # (as a run's error says: hints.explain)
        problems.append(DGError("NameError", f"name '{node.name}' is not defined", node.span, help=help))
    return problems


def place(span: Any) -> tuple[int, int]:
    return (span.line, span.column)


def argument_counts(
    module: ast.Module,
    found: list[Definition],
    builtins: Mapping[str, Any],
    imported: Mapping[str, Mapping[str, ast.FunctionDef]] | None = None,
) -> list[DGError]:
    """A TypeError at each call of a builtin, of the program's own function, or of a function of a
    module it imports (`imported`: for each name the program binds by importing, the functions it
    means: {"linear": {"linear": def}} for `from nn import linear`, {"nn": {...}} for `import nn`),
    whose arguments cannot bind to its parameters."""
    calls, targets = [], []  # one walk over the tree for both
    for node in nodes(module):
        if isinstance(node, ast.Call):
            calls.append(node)
        elif isinstance(node, (ast.ListComprehension, ast.DictComprehension)):
            targets.extend(node.targets)
    bound = Counter(d.name for d in found) + Counter(targets)
    functions = {d.name: d.node for d in found if d.node is not None and bound[d.name] == 1}
    for name, defs in (imported or {}).items():
        if bound[name] == 1 and name in defs:  # `from nn import linear`, bound no other way
            functions[name] = defs[name]
    problems = []
    for node in calls:
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.obj, ast.Name):  # nn.linear(...)
            owner = node.func.obj.name
            module_defs = (imported or {}).get(owner, {})
            function = module_defs.get(node.func.name) if bound[owner] == 1 else None
            problem = user_call_problem(function, node) if function is not None else None
            if problem is not None:
                problem.span = node.span
                problems.append(problem)
            continue
        if not isinstance(node.func, ast.Name):
            continue
        name = node.func.name
        function = functions.get(name)
        if function is not None:
            problem = user_call_problem(function, node)
        elif bound[name] == 0 and isinstance(builtins.get(name), Builtin):
            problem = builtin_call_problem(name, builtins[name], node)
        else:
            continue
        if problem is not None:
            problem.span = node.span
            problems.append(problem)
    return problems


def user_call_problem(function: ast.FunctionDef, call: ast.Call) -> DGError | None:
    """What calling the `def` with these arguments raises (semantics/calls.py's bind_arguments), if anything."""
    params = tuple(p.name for p in function.params)
    defaults = tuple(MISSING if p.default is None else PLACEHOLDER for p in function.params)
    stand_in = Function(function.name, params, defaults, lambda env: None, Env({}, None), function.span)
    try:
        bind_arguments(stand_in, [PLACEHOLDER] * len(call.args), {key: PLACEHOLDER for key, _ in call.kwargs})
    except DGError as e:
        if e.help is not None and e.help.startswith("def "):  # with the defaults as written, not as values
            e.help = f"def {signature(function)}"
        return e
    return None


def builtin_call_problem(name: str, builtin: Builtin, call: ast.Call) -> DGError | None:
    """What calling the builtin with these arguments raises (semantics/calls.py's binding_problem), if anything."""
    args = [PLACEHOLDER] * (len(call.args) + builtin.wants_context)
    problem = binding_problem(builtin.fn, args, {key: PLACEHOLDER for key, _ in call.kwargs})
    if problem is None:
        return None
    message, help = problem
    return DGError("TypeError", f"{name}() {message}", help=help or builtin.signature)

"""Linking: what each `import` of a program means, settled after the resolver and before the
compiler, so that a mistake about a module stops the program before its first line runs.

The resolver knows, from the text alone, which statements import which modules and which reads
`nn.x` can only mean a module's `x`. The linker asks whoever hosts the run (RunContext.modules,
host/modules.py) for each module: the host finds its file, reads, parses, resolves, links and
compiles it (its own imports first, so this recursion is the whole import graph, and a cycle is
found there), once per session. Then the linker checks each name taken from a module against the
names the module's text binds at its top level:

    from nn import linaer     ImportError: cannot import name 'linaer' from nn (nn.dg); did you mean 'linear'?
    nn.layer_nrom(x)          AttributeError: module 'nn' has no attribute 'layer_nrom'; did you mean ...

What the module does when it runs is not the linker's business: `import` runs it (statements.py).
A module whose names are not `checked` (the submission a tests file imports under `dg grade`) has
its names checked where they are used instead, so that a missing one fails only what uses it.
"""

from __future__ import annotations

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.library.habits import in_course_module
from dglang.interpreter.library.runtime import suggest

from . import ast_nodes as ast
from .context import ModuleInterface, RunContext
from .resolver import Resolution


def link(resolution: Resolution, context: RunContext) -> None:
    """Find the modules a resolved program imports and check the names it takes from them;
    the first problem is raised, located where the program names the module or the name."""
    if not resolution.imports:
        return
    finder = context.modules
    by_name: dict[str, ModuleInterface] = {}
    for node in resolution.imports:
        named = node.modules if isinstance(node, ast.Import) else [node.module]
        if finder is None:
            raise DGError("ImportError", "nothing can be imported here", named[0].span)
        found = [finder.find(imported) for imported in named]
        resolution.modules[node] = found
        if isinstance(node, ast.Import):
            by_name.update((imported.name, module) for imported, module in zip(named, found, strict=True))
        elif found[0].checked:
            for name in node.names:
                if name.name not in found[0].names:
                    raise cannot_import(name, found[0])
    for read in resolution.module_reads:
        module = by_name[read.obj.name]  # type: ignore[attr-defined]
        if module.checked and read.name not in module.names:
            raise no_attribute(read, module)


def cannot_import(name: ast.ImportedName, module: ModuleInterface) -> DGError:
    return DGError(
        "ImportError",
        f"cannot import name '{name.name}' from {module.name} ({module.display})",
        name.span,
        help=in_course_module(name.name, module.names) or suggest(name.name, module.names) or defines(module),
    )


def no_attribute(read: ast.Attribute, module: ModuleInterface) -> DGError:
    return DGError(
        "AttributeError",
        f"module '{module.name}' has no attribute '{read.name}'",
        read.span,
        help=in_course_module(read.name, module.names) or suggest(read.name, module.names) or defines(module),
    )


def defines(module: ModuleInterface, most: int = 8) -> str:
    """`nn.dg defines linear, layer_norm and relu_layer` (cut after `most` names)."""
    names = sorted(module.names)
    if not names:
        return f"{module.display} defines no names at its top level"
    shown = names if len(names) <= most else [*names[:most], f"{len(names) - most} more"]
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
    return f"{module.display} defines {listed}"

"""The resolver: one pass over the AST before anything runs, as jlox's Resolver.

It settles what can be known from the text alone, so the evaluator only has to run:
- the static errors: `return` outside a function, `break` or `continue` outside a loop;
- where each variable read looks its name up (a function's own local, or the scopes around it);
- which assignments sit inside a `with no_grad:` block (for the hint about `w = w - lr * w.grad`);
- which names the program reads without ever assigning them (builtins it may call);
- which arms of which `if`s each statement sits in (so a picture of the graph can say which branch
  made a node, and draw the arms that did not run).
- which statements import modules, and which reads `nn.name` name a module's name, for the
  linker (linking.py) to check once it knows what each module defines.

Scopes are as in Python: a function's locals are the names it assigns anywhere in its body
(so a local read before its assignment is an error, not the global of the same name); a
comprehension's variables live in a scope of its own; the top level of a program, a REPL cell
or a breakpoint's cell reads its own scope first, then the ones around it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Arm, Branch

from . import ast_nodes as ast
from .context import ModuleInterface


class Lookup(Enum):
    """Where a variable read starts looking for its name."""

    LOCAL = "local"  # a function's own variable: its scope only ("used before assigned" if unset)
    ENCLOSING = "enclosing"  # read in a function, assigned outside it: the scopes around the function
    HERE = "here"  # read at top level or in a comprehension: this scope, then the ones around it


@dataclass(eq=False)
class Resolution:
    """What the resolver found, for the evaluator: keyed by the AST nodes themselves."""

    lookups: dict[ast.Name, Lookup] = field(default_factory=dict)
    in_no_grad: set[ast.Stmt] = field(default_factory=set)  # assignments written inside `with no_grad:`
    free_names: set[str] = field(default_factory=set)  # read somewhere, assigned nowhere in this text
    branches: dict[ast.Stmt, tuple[Branch, ...]] = field(default_factory=dict)  # the `if` arms around each statement
    body: list[ast.Stmt] = field(default_factory=list)  # the program's top level, as resolved
    imports: list[ast.Import | ast.FromImport] = field(default_factory=list)  # in the order written
    module_reads: list[ast.Attribute] = field(default_factory=list)  # `nn.x` where `nn` can only be a module
    # Filled by the linker: for each import statement, the module of each name it imports.
    modules: dict[ast.Stmt, list[ModuleInterface]] = field(default_factory=dict)

    @cached_property
    def top_names(self) -> frozenset[str]:
        """What the text's top level binds: a module's names (found when a module is compiled, so
        a program that is not one does not pay for a second walk of its top level)."""
        return assigned_names(self.body)


@dataclass(frozen=True)
class Scope:
    kind: str  # "module", "function", "comprehension"
    local_names: frozenset[str] = frozenset()
    in_loop: bool = False
    in_no_grad: bool = False
    branches: tuple[Branch, ...] = ()  # the `if` arms around the code, outermost first (a def starts afresh)


def resolve(module: ast.Module) -> Resolution:
    """Check and annotate a whole program (or REPL cell); raises the first static error."""
    resolver = Resolver()
    resolver.block(module.body, Scope("module"))
    found = resolver.found
    found.free_names = resolver.read - resolver.assigned - resolver.imported
    found.body = module.body
    # `nn.x` names a module's `x` only when nothing binds `nn` but `import nn` (no parameter, no
    # assignment, no `from m import nn` anywhere in the text): then the linker can check `x`.
    modules = resolver.imported_modules - resolver.assigned - resolver.imported_from
    found.module_reads = [a for a in resolver.attributes if a.obj.name in modules]  # type: ignore[attr-defined]
    return found


class Resolver:
    def __init__(self) -> None:
        self.found = Resolution()
        self.read: set[str] = set()
        self.assigned: set[str] = set()
        self.imported: set[str] = set()  # bound by an import (`import nn`, `from nn import linear`)
        self.imported_modules: set[str] = set()  # bound by `import nn`
        self.imported_from: set[str] = set()  # bound by `from nn import linear`
        self.attributes: list[ast.Attribute] = []  # `name.x` read anywhere

    # ---- statements ---------------------------------------------------------------------------
    def block(self, body: list[ast.Stmt], scope: Scope) -> None:
        for statement in body:
            self.statement(statement, scope)

    def statement(self, node: ast.Stmt, scope: Scope) -> None:
        if scope.branches:
            self.found.branches[node] = scope.branches
        match node:
            case ast.Assign(target=target, value=value) | ast.AugAssign(target=target, value=value):
                self.expr(value, scope)
                if isinstance(node, ast.AugAssign):
                    self.expr(target, scope)  # `x += 1` reads x before it stores
                self.target(target, scope)
                if scope.in_no_grad:
                    self.found.in_no_grad.add(node)
            case ast.ExprStmt(expr=expr):
                self.expr(expr, scope)
            case ast.Break() | ast.Continue():
                if not scope.in_loop:
                    word = "break" if isinstance(node, ast.Break) else "continue"
                    raise DGError("SyntaxError", f"'{word}' outside a loop", node.span)
            case ast.Return(value=value):
                if scope.kind != "function":
                    raise DGError("SyntaxError", "'return' outside a function", node.span)
                self.optional(value, scope)
            case ast.Grad(output=output, seed=seed):
                self.expr(output, scope)
                self.optional(seed, scope)
            case ast.Assert(test=test, message=message):
                self.expr(test, scope)
                self.optional(message, scope)
            case ast.If(branches=branches, orelse=orelse):
                arms = arms_of(node)
                for (condition, body), arm in zip(branches, arms, strict=False):
                    self.expr(condition, scope)
                    self.block(body, in_arm(scope, node, arm, arms))
                if orelse is not None:
                    self.block(orelse, in_arm(scope, node, arms[-1], arms))
            case ast.While(condition=condition, body=body):
                self.expr(condition, scope)
                self.block(body, replace(scope, in_loop=True))
            case ast.For(targets=targets, iterable=iterable, body=body):
                self.expr(iterable, scope)
                self.assigned.update(targets)
                self.block(body, replace(scope, in_loop=True))
            case ast.FunctionDef():
                self.function(node, scope)
            case ast.With(context=context, body=body):
                self.expr(context, scope)
                self.block(body, replace(scope, in_no_grad=scope.in_no_grad or names_no_grad(context)))
            case ast.Delete(targets=targets):
                self.exprs(targets, scope)  # `del d[k]` reads d and k
            case ast.Import() | ast.FromImport():
                if scope.kind != "module":
                    raise DGError(
                        "SyntaxError",
                        "import is only allowed at the top level of a file",
                        node.span,
                        help="move the import to the top of the file; its names are seen inside functions too",
                    )
                self.found.imports.append(node)
                if isinstance(node, ast.Import):
                    names = [m.name.split(".")[0] for m in node.modules]
                    self.imported_modules.update(names)
                else:
                    names = [n.name for n in node.names]
                    self.imported_from.update(names)
                self.imported.update(names)
            case ast.Pass():
                pass
            case _:  # a new kind of statement needs its case here, or its names go unresolved
                raise TypeError(f"the resolver has no case for {type(node).__name__}")

    def function(self, node: ast.FunctionDef, scope: Scope) -> None:
        """Defaults are read where the `def` runs; the body in a scope of the function's own."""
        for param in node.params:
            self.optional(param.default, scope)
        self.assigned.add(node.name)
        params = frozenset(p.name for p in node.params)
        self.assigned.update(params)
        self.block(node.body, Scope("function", params | assigned_names(node.body)))

    def target(self, target: ast.Expr, scope: Scope) -> None:
        """An assignment target: a name is stored, an x[i] or x.grad reads x (and i)."""
        match target:
            case ast.Name(name=name):
                self.assigned.add(name)
            case ast.TupleExpr(items=items):
                for item in items:
                    self.target(item, scope)
            case ast.Index(obj=obj, items=items):
                self.expr(obj, scope)
                self.exprs(items, scope)
            case ast.Attribute(obj=obj):
                self.expr(obj, scope)

    # ---- expressions --------------------------------------------------------------------------
    def optional(self, node: ast.Expr | None, scope: Scope) -> None:
        if node is not None:
            self.expr(node, scope)

    def exprs(self, nodes: list[ast.Expr], scope: Scope) -> None:
        for node in nodes:
            self.expr(node, scope)

    def expr(self, node: ast.Expr, scope: Scope) -> None:
        match node:
            case ast.Name(name=name):
                self.read.add(name)
                if scope.kind != "function":
                    self.found.lookups[node] = Lookup.HERE
                else:
                    self.found.lookups[node] = Lookup.LOCAL if name in scope.local_names else Lookup.ENCLOSING
            case ast.Constant():
                pass
            case ast.ListComprehension(element=element, targets=targets, iterable=iterable, condition=condition):
                self.expr(iterable, scope)
                inner = Scope("comprehension", frozenset(targets))
                self.assigned.update(targets)
                self.expr(element, inner)
                self.optional(condition, inner)
            case ast.Binary(left=left, right=right) | ast.And(left=left, right=right) | ast.Or(left=left, right=right):
                self.expr(left, scope)
                self.expr(right, scope)
            case ast.Unary(operand=operand) | ast.Not(operand=operand):
                self.expr(operand, scope)
            case ast.Compare(operands=operands) | ast.TupleExpr(items=operands) | ast.ListExpr(items=operands):
                self.exprs(operands, scope)
            case ast.Conditional(condition=condition, then=then, otherwise=otherwise):
                self.exprs([condition, then, otherwise], scope)
            case ast.Attribute(obj=obj):
                self.expr(obj, scope)
                if isinstance(obj, ast.Name):
                    self.attributes.append(node)
            case ast.Call(func=func, args=args, kwargs=kwargs):
                self.expr(func, scope)
                self.exprs(args, scope)
                self.exprs([value for _, value in kwargs], scope)
            case ast.Index(obj=obj, items=items):
                self.expr(obj, scope)
                self.exprs(items, scope)
            case ast.Slice(start=start, stop=stop, step=step):
                for part in (start, stop, step):
                    self.optional(part, scope)
            case ast.FString(parts=parts):
                self.exprs([p.expr for p in parts if isinstance(p, ast.FormattedValue)], scope)
            case ast.DictExpr(items=items):
                for key, value in items:
                    self.expr(key, scope)
                    self.expr(value, scope)
            case ast.DictComprehension(key=key, value=value, targets=targets, iterable=iterable, condition=condition):
                self.expr(iterable, scope)
                inner = Scope("comprehension", frozenset(targets))
                self.assigned.update(targets)
                self.exprs([key, value], inner)
                self.optional(condition, inner)
            case _:
                raise TypeError(f"the resolver has no case for {type(node).__name__}")


def arms_of(node: ast.If) -> tuple[Arm, ...]:
    """The arms of an `if` as written: then, each elif, else, with the lines each runs from and to."""
    arms = tuple(
        Arm("then" if i == 0 else "elif", condition.span.line, body[-1].span.end_line)
        for i, (condition, body) in enumerate(node.branches)
    )
    if node.orelse is not None:
        arms += (Arm("else", node.else_line or node.span.line, node.orelse[-1].span.end_line),)
    return arms


def in_arm(scope: Scope, node: ast.If, arm: Arm, arms: tuple[Arm, ...]) -> Scope:
    """The scope of one arm's body: the same, inside one more `if` arm."""
    return replace(scope, branches=(*scope.branches, Branch(node.span.line, arm.kind, arm.line, arms)))


def names_no_grad(node: ast.Expr) -> bool:
    """`no_grad` or `no_grad()`, as written (to spot the classic `w = w - lr * w.grad` inside it)."""
    if isinstance(node, ast.Call) and not node.args and not node.kwargs:
        node = node.func
    return isinstance(node, ast.Name) and node.name == "no_grad"


def assigned_names(stmts: list[ast.Stmt]) -> frozenset[str]:
    """The names a function body assigns (its locals), or a program's top level (a module's names),
    not looking inside the functions it defines."""
    names: set[str] = set()

    def targets(t: ast.Expr) -> None:
        if isinstance(t, ast.Name):
            names.add(t.name)
        elif isinstance(t, ast.TupleExpr):
            for item in t.items:
                targets(item)

    def visit(body: list[ast.Stmt]) -> None:
        for s in body:
            if isinstance(s, ast.Assign | ast.AugAssign):
                targets(s.target)
            elif isinstance(s, ast.For):
                names.update(s.targets)
                visit(s.body)
            elif isinstance(s, ast.FunctionDef):
                names.add(s.name)
            elif isinstance(s, ast.Import):  # only at a top level, whose names a module's are
                names.update(m.name.split(".")[0] for m in s.modules)
            elif isinstance(s, ast.FromImport):
                names.update(n.name for n in s.names)
            elif isinstance(s, ast.If):
                for _, branch in s.branches:
                    visit(branch)
                visit(s.orelse or [])
            elif isinstance(s, ast.While | ast.With):
                visit(s.body)

    visit(stmts)
    return frozenset(names)

"""Where the time goes in the two rows DG does not meet: parsing and start-up.

    uv run python bench/breakdown.py
    uv run python bench/breakdown.py start-up    # the start-up part alone

parse: the generated 10,000-line program of parse_program.py, timed stage by stage (best of 3):
the fast parser's tokens, then its LALR parse straight to the AST; the resolver; the AST compiled
to closures; and for comparison lark's path, which DG takes for a program the fast parser declines
(lark's lexer alone, its LALR parser with and without the source positions DG needs, its parse tree
turned into the AST).
start-up: fresh processes (bytecode caches warm) that import numpy, then more and more of DG, then
run a one-line program: 15 rounds, each running every command once, best of the 15.

Each line shows the wall time and the CPU time (of this process for a parse stage, of the child
process for start-up). On a busy machine the wall time includes waiting for a core and the CPU
time does not: compare the CPU column between runs made while other work was going on.
"""

from __future__ import annotations

import gc
import io
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))


Timing = tuple[float, float]  # (wall seconds, CPU seconds), each the best of the repeats


def best_of(n: int, fn: Callable[[], object]) -> Timing:
    walls, cpus = [], []
    for _ in range(n):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def children_cpu() -> float:
    """CPU seconds used by the child processes that have ended (where Python has `resource`)."""
    try:
        import resource
    except ModuleNotFoundError:  # Windows
        return float("nan")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def parse_stages() -> list[tuple[str, Timing]]:
    from lark import Lark
    from parse_program import generate

    from dglang.interpreter.diagnostics.source import Source
    from dglang.interpreter.host.session import Session
    from dglang.interpreter.semantics.evaluator import Compiler
    from dglang.interpreter.semantics.resolver import resolve
    from dglang.interpreter.syntax import parser
    from dglang.interpreter.syntax.fast import fast_parser
    from dglang.interpreter.syntax.grammar import LARK, TreeToAST

    text = generate(10_000)
    source = Source("generated.dg", text)
    fast = fast_parser.PARSER
    assert fast is not None, "interpreter/syntax/fast/dg_tables.py is missing or out of date"
    bare = Lark.open(
        str(parser.GRAMMAR), parser="lalr", postlex=parser.Indenter(), maybe_placeholders=True, start=["start", "test"]
    )
    tree = LARK.parse(text, start="start")
    module = parser.parse(source)
    resolution = resolve(module)
    session = Session(out=io.StringIO())
    gc.disable()  # as Session.compile does
    try:
        return [
            ("fast parser: tokens", best_of(3, lambda: fast.tokenize(text))),
            ("fast parser: tokens, LALR parse, AST", best_of(3, lambda: parser.parse(source))),
            ("resolver", best_of(3, lambda: resolve(module))),
            ("AST -> closures", best_of(3, lambda: Compiler(session.context, resolution).block(module.body))),
            ("Session.compile, all of it", best_of(3, lambda: session.compile(text, "generated.dg"))),
            ("lark: lexing only", best_of(3, lambda: sum(1 for _ in bare.lex(text)))),
            ("lark: LALR parse, no positions", best_of(3, lambda: bare.parse(text, start="start"))),
            ("lark: LALR parse with positions (DG's)", best_of(3, lambda: LARK.parse(text, start="start"))),
            ("lark: parse tree -> AST", best_of(3, lambda: TreeToAST(parser.builder(source)).transform(tree))),
        ]
    finally:
        gc.enable()


DG = "dglang.interpreter"
STEPS = [  # each imports what the one before did, and more
    ("python -c pass", "pass"),
    ("import numpy", "import numpy"),
    ("... dglang.autograd", "import dglang.autograd"),
    ("... semantics.ast_nodes", f"import dglang.autograd, {DG}.semantics.ast_nodes"),
    ("... host.session", f"import {DG}.host.session"),
    ("... syntax.parser (the fast parser's tables)", f"import {DG}.host.session, {DG}.syntax.parser"),
    ("... frontends.cli", f"import {DG}.host.session, {DG}.syntax.parser, {DG}.frontends.cli"),
    ("... frontends.sessions (the seeing tools)", f"import {DG}.syntax.parser, {DG}.frontends.sessions"),
    ("import numpy, lark (what lark would add)", "import numpy, lark"),
]


def start_up() -> list[tuple[str, Timing]]:
    from startup import dg_command, usual_environment

    env = usual_environment()
    commands = [(label, [sys.executable, "-c", code]) for label, code in STEPS]
    commands.append(("dg bench/hello.dg", [*dg_command(), str(BENCH / "hello.dg")]))
    times: dict[str, list[Timing]] = {label: [] for label, _ in commands}
    for _, command in commands:  # bytecode caches filled
        subprocess.run(command, check=True, capture_output=True, cwd=BENCH.parent, env=env)
    for _ in range(15):
        for label, command in commands:
            wall, cpu = time.perf_counter(), children_cpu()
            subprocess.run(command, check=True, capture_output=True, cwd=BENCH.parent, env=env)
            times[label].append((time.perf_counter() - wall, children_cpu() - cpu))
    return [(label, (min(w for w, _ in ts), min(c for _, c in ts))) for label, ts in times.items()]


def main() -> None:
    print(f"{'':47s} {'wall':>8s} {'CPU':>8s}")
    if sys.argv[1:] != ["start-up"]:
        print("parse: the 10,000-line program, stage by stage (best of 3)")
        for label, (wall, cpu) in parse_stages():
            print(f"  {label:45s} {wall * 1000:5.0f} ms {cpu * 1000:5.0f} ms")
    print("start-up: whole processes (best of 15)")
    timings = dict(start_up())
    for label, (wall, cpu) in timings.items():
        print(f"  {label:45s} {wall * 1000:5.0f} ms {cpu * 1000:5.0f} ms")
    (dg_wall, dg_cpu), (np_wall, np_cpu) = timings["dg bench/hello.dg"], timings["import numpy"]
    print(f"  {'dg bench/hello.dg / import numpy':45s} {dg_wall / np_wall:7.2f}x {dg_cpu / np_cpu:7.2f}x")


if __name__ == "__main__":
    main()

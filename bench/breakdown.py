"""Where the time goes in the two rows DG does not meet: parsing and start-up.

    uv run python bench/breakdown.py

parse: the generated 10,000-line program of parse_program.py, timed stage by stage (best of 3):
the fast parser's tokens, then its LALR parse straight to the AST; the resolver; the AST compiled
to closures; and for comparison lark's path, which DG takes for a program the fast parser declines
(lark's lexer alone, its LALR parser with and without the source positions DG needs, its parse tree
turned into the AST).
start-up: the wall time of fresh processes (best of 15, bytecode caches warm) that import numpy,
then DG's parts, then run a one-line program.
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


def best_of(n: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def parse_stages() -> list[tuple[str, float]]:
    from lark import Lark
    from parse_program import generate

    from dglang.interpreter.core import fast_parser, parser
    from dglang.interpreter.core.evaluator import Compiler
    from dglang.interpreter.core.grammar import LARK, TreeToAST
    from dglang.interpreter.core.resolver import resolve
    from dglang.interpreter.core.session import Session
    from dglang.interpreter.core.source import Source

    text = generate(10_000)
    source = Source("generated.dg", text)
    fast = fast_parser.PARSER
    assert fast is not None, "grammar/dg_tables.json is missing or out of date"
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


PARSER = "import dglang.interpreter.core.session, dglang.interpreter.core.parser"


def start_up() -> list[tuple[str, float]]:
    from startup import dg_command, usual_environment

    python = sys.executable
    hello = str(BENCH / "hello.dg")
    commands = [
        ("python -c pass", [python, "-c", "pass"], {}),
        ("import numpy", [python, "-c", "import numpy"], {}),
        ("import numpy, autograd", [python, "-c", "import numpy, autograd"], {}),
        ("import numpy, lark", [python, "-c", "import numpy, lark"], {}),
        ("import dglang.interpreter.core.session", [python, "-c", "import dglang.interpreter.core.session"], {}),
        ("... and core.parser (the fast parser's tables)", [python, "-c", PARSER], {}),
        ("dg bench/hello.dg", [*dg_command(), hello], {"DG_CACHE": "off"}),
    ]
    rows = []
    for label, command, changes in commands:
        env = usual_environment(**changes)
        subprocess.run(command, check=True, capture_output=True, cwd=BENCH.parent, env=env)  # caches filled
        times = []
        for _ in range(15):
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, cwd=BENCH.parent, env=env)
            times.append(time.perf_counter() - start)
        rows.append((label, min(times)))
    return rows


def main() -> None:
    print("parse: the 10,000-line program, stage by stage (best of 3)")
    for label, seconds in parse_stages():
        print(f"  {label:45s} {seconds * 1000:8.0f} ms")
    print("start-up: whole processes (best of 15)")
    for label, seconds in start_up():
        print(f"  {label:45s} {seconds * 1000:8.0f} ms")


if __name__ == "__main__":
    main()

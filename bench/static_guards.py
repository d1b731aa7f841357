"""What a static call's guards cost: processor time per call of each part of a call of the static
training step of bench/mlp_moons_static.dg, after its trace.

    uv run python bench/static_guards.py

key          the arguments bound and described, and the cache looked up (guards.Walk)
guards       the trace's guards on the names it read (12 here: the helper, six weights and
             their .grads, the parameter list, relu, zero_grad, lr), as generated code
guards, walk the same guards by describing each value (what decides when the code says no)
first try    what a call does first: the arguments tested against the key of the trace it
             replayed last, then that trace's guards, as one piece of generated code
replay       the generated forward, the result's node and the updates in place
call         the whole static call, from the DG call of the builtin on
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable

from measure import BENCH, dg_program

from dglang.autograd import hooks
from dglang.autograd.node import is_grad_enabled
from dglang.interpreter.host.guards import Guards
from dglang.interpreter.host.session import Session
from dglang.interpreter.static import static_builtins
from dglang.interpreter.static.guard_model import Walk
from dglang.interpreter.static.replaying import replay
from dglang.interpreter.static.static_builtins import static_function

CALLS = 20_000


def per_call(run: Callable[[], object], calls: int = CALLS) -> float:
    start = time.process_time()
    for _ in range(calls):
        run()
    return (time.process_time() - start) / calls


def main() -> None:
    setup, measured = dg_program("mlp_moons_static", steps=3)
    session = Session(out=io.StringIO(), base_dir=BENCH)
    session.err = io.StringIO()
    static_builtins.install(session)
    session.run(setup, "bench/mlp_moons_static.dg")
    session.run(measured, "bench/mlp_moons_static.dg")  # (its trace)
    fn = static_function(session.globals.vars["fast_step"])
    assert fn is not None
    X, t = session.globals.vars["X"], session.globals.vars["t"]
    entry = fn.cached()[-1]

    def key() -> Walk:
        walk = Walk()
        fn.entries[(tuple([walk.describe(a) for a in (X, t)]), is_grad_enabled())]
        return walk

    walk = key()
    assert entry.check is not None and entry.check(walk.fork())
    tensors = walk.fork()
    entry.check(tensors)
    hooks.install(Guards(None))  # the host's questions, as while a program runs (the bare forward's sizes)
    rows = [
        ("key", per_call(key)),
        ("guards", per_call(lambda: entry.check(walk.fork()))),
        ("guards, walk", per_call(lambda: entry.trace.outside.check(walk.fork()))),
        ("first try", per_call(lambda: entry.fast is not None and entry.fast(Walk(), [X, t]))),
        ("replay", per_call(lambda: replay(entry, tensors.tensors), CALLS // 10)),
        ("call", per_call(lambda: fn([X, t]), CALLS // 10)),
    ]
    print(f"static training step of mlp-moons: {len(entry.trace.outside.reads)} names read")
    for name, seconds in rows:
        print(f"  {name:<14}{seconds * 1e6:8.1f} µs per call")


if __name__ == "__main__":
    main()

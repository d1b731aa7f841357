"""Static code under the limits (steps, size and memory, time), its bare forward against the ops'
own, and the note about side effects a replay does not make."""

from __future__ import annotations

import io
import textwrap

import numpy as np
import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.host import guards
from dglang.interpreter.host.limits import Limits
from dglang.interpreter.static.guard_model import argument_walk
from dglang.interpreter.static.static_builtins import static_function


def run(program: str, **limits: object) -> tuple[str, str, object]:
    out, err = io.StringIO(), io.StringIO()
    session = new_session(out=out, limits=Limits(**limits))  # type: ignore[arg-type]
    session.err = err
    session.run(textwrap.dedent(program), "static.dg")
    return out.getvalue(), err.getvalue(), session


def failure(program: str, **limits: object) -> DGError:
    with pytest.raises(DGError) as caught:
        run(program, **limits)
    return caught.value


# ---- steps ---------------------------------------------------------------------------------------
LOOPING = """
def f(x):
    for i in range(100):
        x = x * 1.0
    return x
g = {wrap}
x = tensor([1.0])
for i in range(1000):
    y = g(x)
print("done")
"""


@pytest.mark.parametrize("wrap", ["f", "static(f)"])
def test_max_steps_counts_the_steps_a_replay_stands_for(wrap: str) -> None:
    """Each call stands for the 101 steps the function made when traced (100 iterations and its
    call), so the program stops at the limit as the dynamic one does, with the usual error."""
    error = failure(LOOPING.format(wrap=wrap), max_steps=20_000)
    assert error.kind == "LimitError" and "20,000 steps" in error.message
    assert error.help is not None and "--max-steps" in error.help
    out, _, _ = run(LOOPING.format(wrap=wrap), max_steps=200_000)  # 102,000 steps: within the limit
    assert out == "done\n"


# ---- sizes, memory, time -----------------------------------------------------------------------
def test_a_trace_with_large_values_runs_the_checked_ops_so_the_host_is_asked() -> None:
    """A bare form asks the host nothing: a step with a value as large as the host asks about
    calls its op's own forward in the bare forward too, and a limit lowered after tracing still
    stops it. (The element limit and --max-memory are the same question, Guards.allocating.)"""
    program = """
    def f(x):
        return (x * 2.0).sum()
    g = static(f)
    x = ones(200000)
    y = g(x)
    """
    _, _, session = run(program)
    fn = static_function(session.globals.vars["g"])  # type: ignore[attr-defined]
    assert fn is not None
    bare = fn.cached()[0].bare_source
    assert "op" in bare.replace("forward", "") and "c0.sum" not in bare  # the Mul and the Sum call their ops
    before = guards.max_elements
    guards.max_elements = 150_000
    try:
        with pytest.raises(DGError) as caught:
            session.run("y = g(x)", "static.dg")  # type: ignore[attr-defined]
    finally:
        guards.max_elements = before
    assert "more than the limit of 150,000" in caught.value.message
    assert fn.traces == 1  # the replay, not a new trace, was stopped


def test_timeout_stops_a_program_spending_its_time_in_static_calls() -> None:
    error = failure(
        """
        def f(x):
            return relu(x @ x.T).sum()
        g = static(f)
        x = ones(50, 50)
        while True:
            y = g(x)
        """,
        timeout=0.5,
    )
    assert error.kind == "TimeoutError"


# ---- the bare forward computes what the ops' forwards compute -------------------------------------
MANY_OPS = """
def f(x, w, b, k):
    h = relu(x @ w + b)
    z = (h * 2 - 1) / (h + 3) + -h
    s = z.sum(axis=0) + z.mean(axis=1, keepdims=True).sum() + exp(z).mean() + log(h + 1).sum()
    t = tanh(z).reshape(-1).sum() + transpose(z)[0].sum() + z[:, 1].sum() + z[k].sum() + z[[0, 0, 2]].sum()
    u = sqrt(h + 1).sum() + (x ** 2).sum() + z.reshape(1, 5, 4).transpose((2, 0, 1))[0].sum()
    loss = s.sum() + t + u
    w.grad = None
    b.grad = None
    grad loss
    with no_grad:
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
    return loss, z
g = static(f)
seed(1)
x = randn(5, 3)
w = randn(3, 4)
w.requires_grad = True
b = zeros(4, requires_grad=True)
for i in range(3):
    loss, z = g(x, w, b, 1)
"""


def test_the_bare_forward_is_the_checked_forward_bit_for_bit() -> None:
    _, err, session = run(MANY_OPS)
    fn = static_function(session.globals.vars["g"])  # type: ignore[attr-defined]
    assert fn is not None and fn.cached(), err
    grads = {id(t): t.grad for t in session.globals.vars.values() if hasattr(t, "grad")}  # type: ignore[attr-defined]
    for entry in fn.cached():
        assert "op" not in entry.bare_source.replace("forward", ""), entry.bare_source  # every step bare
        arguments = [*(session.globals.vars[n] for n in ("x", "w", "b")), 1]  # type: ignore[attr-defined]
        for t, described in zip(arguments[:3], entry.key[0], strict=False):  # .grad as when traced: None, or set
            t.grad = None if described[5] is None else grads[id(t)]
        walk = argument_walk(("x", "w", "b", "k"), arguments)[0]  # the tensors a call reads, as it reads them
        given = [walk.tensors[s] if type(s) is int else s for s in entry.plan.sources]
        values = [t.data for t in given]
        for argument, leaf in entry.plan.grad_reads:
            values[argument] = given[leaf].grad.data
        bare, checked = entry.bare(*values), entry.forward(*values)
        assert len(bare) == len(checked)
        for a, c in zip(bare, checked, strict=True):
            assert type(a) is type(c) and np.asarray(a).dtype == np.asarray(c).dtype
            assert np.array_equal(a, c, equal_nan=True), (a, c)


def test_static_training_gives_the_dynamic_results_bit_for_bit() -> None:
    out_static, err, _ = run(MANY_OPS + "print(loss.item(), w.tolist(), b.tolist(), z.tolist())\n")
    out_dynamic, _, _ = run(
        MANY_OPS.replace("g = static(f)", "g = f") + "print(loss.item(), w.tolist(), b.tolist(), z.tolist())\n"
    )
    assert out_static == out_dynamic, err


WIDE_RELU = """
def f(x, w):
    h = relu(x @ w)
    loss = (h * h).sum() + h.mean()
    w.grad = None
    grad loss
    return loss
g = {wrap}
seed(3)
x = randn(128, 8)
w = randn(8, 160)
w.requires_grad = True
for i in range(3):
    loss = g(x, w)
print(loss.item(), w.grad.tolist())
"""


def test_a_relu_over_a_large_array_replays_its_rule_through_kept_where_bit_for_bit() -> None:
    """Above functions.KEPT_WHERE elements relu's rule masks bits instead of calling np.where
    (tests/engine/test_kept_where.py): the replay's gradient is still the dynamic one's."""
    out_static, err, session = run(WIDE_RELU.format(wrap="static(f)"))
    out_dynamic, _, _ = run(WIDE_RELU.format(wrap="f"))
    assert out_static == out_dynamic, err
    bare = static_function(session.globals.vars["g"]).cached()[0].bare_source  # type: ignore[attr-defined]
    assert "> 0, t" in bare and ", 0.0)" not in bare  # (np.where's form ends in `, 0.0),)`)


# ---- BLAS threads ------------------------------------------------------------------------------
PRODUCTS = """
def f(x, w, v, u, s):
    y = ((x @ w) @ v).sum() + (x[0] @ w).sum() + (x.reshape(2, 64, 64) @ w).sum() + (u @ u.T).sum() + (u @ s).sum()
    return y + (u.T @ (u * 2.0)).sum()
g = {wrap}
seed(2)
x = randn(128, 64)
w = randn(64, 160)
v = randn(160, 3)
u = randn(40, 48)
s = randn(48, 40)
for i in range(3):
    y = g(x, w, v, u, s)
"""


@pytest.mark.parametrize("wrap", ["f", "static(f)"])
def test_a_replay_gives_blas_the_threads_each_product_deserves(wrap: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each product a replay makes asks threads.py for its threads first, with the multiply-adds
    MatMul's forward counts (a stack times one matrix: one product of all its rows), as the dynamic
    function does: all but those
    the library runs on one thread whatever its count (threads.threaded)."""
    from dglang.autograd import threads

    asked: list[int] = []
    monkeypatch.setattr(threads, "product", asked.append)
    run(PRODUCTS.format(wrap=wrap))
    # (x @ w) @ v, u @ s and u.T @ (u * 2.0): two matrices, below threads.GEMM; u @ u.T: one matrix
    # and its transpose (a trace writes the last without asking: a new array is not a view of u)
    assert asked == [128 * 64 * 160, 64 * 160, 2 * 64 * 64 * 160, 40 * 48 * 40] * 3


# ---- side effects --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("change", "what"),
    [
        ("losses.append(y)", "the list losses"),
        ("losses[0] = y", "the list losses"),
        ("counts['calls'] = 1 + len(losses)", "the dict counts"),
        ("nested[0].append(1)", "a list it did not make"),
    ],
)
def test_a_function_that_changes_a_list_or_dict_outside_runs_dynamically_with_one_note(change: str, what: str) -> None:
    program = f"""
    losses = [0]
    counts = {{}}
    nested = [[]]
    def f(x):
        y = (x * 2).sum()
        {change}
        return y
    g = static(f)
    for i in range(3):
        g(tensor([1.0, 2.0]))
    print(len(losses), counts, nested)
    """
    out, err, _ = run(program)
    assert out == run(program.replace("g = static(f)", "g = f"))[0]  # each change made, as f makes it
    assert err.count(f"runs f dynamically: it changes {what}") == 1 and err.count("Note:") == 1, err
    assert "help: return the new values" in err


def test_lists_the_function_makes_itself_are_no_side_effect() -> None:
    out, err, _ = run("""
    def f(x):
        parts = []
        for i in range(3):
            parts.append(x * i)
        return parts[2].sum()
    g = static(f)
    for i in range(3):
        print(g(tensor([1.0, 2.0])))
    """)
    assert out == "tensor(6.)\n" * 3 and "did not change" not in err, err


# ---- a trace too long to keep ---------------------------------------------------------------------
LONG_LOOP = """
def f(x, n):
    total = x * 0.0
    for i in range(n):
        total = total + x * 0.5
    return total.sum()
g = {wrap}
x = tensor([1.0, -0.0, 3.0], requires_grad=True)
for n in [10, 400, 400, 10]:
    y = g(x, n)
    x.grad = None
    grad y
    print(y.item(), x.grad.tolist())  # (a float as Python prints it: every bit, the sign of a zero too)
"""


def test_a_call_past_the_trace_length_runs_on_dynamically_with_one_note(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loop of many iterations inside a static function is not traced to the memory limit: past
    MAX_STEPS ops the tracer stops listening and the call goes on as the dynamic one, with a note
    and its help once; the next calls of that signature run dynamically, the shorter ones replay."""
    from dglang.autograd.tensor import recording
    from dglang.interpreter.library.runtime import watching
    from dglang.interpreter.static import tracing

    monkeypatch.setattr(tracing, "MAX_STEPS", 200)  # n = 400 makes 802 ops (800 in the loop), n = 10 makes 22
    heard = []
    listen = tracing.Tracer.on_op
    monkeypatch.setattr(tracing.Tracer, "on_op", lambda self, *event: heard.append(1) or listen(self, *event))
    out, err, session = run(LONG_LOOP.format(wrap="static(f)"))
    assert len(heard) == 22 + 201  # the trace of n = 10, and the first 201 ops of n = 400: no more
    assert out == run(LONG_LOOP.format(wrap="f"))[0]  # values and gradients, bit for bit
    assert err.count("runs f dynamically: one call ran more than 200 ops, more than a trace keeps") == 1, err
    assert err.count("Note:") == 1 and "help: make static a function of one step" in err, err
    fn = static_function(session.globals.vars["g"])  # type: ignore[attr-defined]
    assert fn.traces == 2 and fn.dynamic_calls == 2 and len(fn.cached()) == 1  # n = 10 traced, then replayed
    assert fn.cached()[0].calls == 2
    assert not recording.listeners and watching.listener is None  # nothing listens after the run


def test_the_trace_length_counts_the_steps_of_rules_run_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """relu's rule is one step of the trace (and one more for the gradient it sends), not ops the
    tracer hears: 150 relus and their 300 backward steps pass a limit of 200 inside the backward."""
    from dglang.interpreter.static import tracing

    monkeypatch.setattr(tracing, "MAX_STEPS", 200)
    program = """
    def f(x):
        h = x
        for i in range(150):
            h = relu(h)
        loss = h.sum()
        grad loss
        return loss
    g = {wrap}
    x = tensor([1.0, -1.0], requires_grad=True)
    for i in range(2):
        x.grad = None
        print(g(x), x.grad)
    """
    out, err, _ = run(program.format(wrap="static(f)"))
    assert out == run(program.format(wrap="f"))[0]
    assert err.count("one call ran more than 200 ops, more than a trace keeps") == 1, err


def test_listing_and_info_of_a_function_whose_calls_ran_dynamically_say_why(monkeypatch: pytest.MonkeyPatch) -> None:
    from dglang.interpreter.static import tracing
    from dglang.interpreter.static.listing import info_text, listings

    monkeypatch.setattr(tracing, "MAX_STEPS", 200)
    _, _, session = run(LONG_LOOP.format(wrap="static(f)").replace("[10, 400, 400, 10]", "[400]"))
    fn = static_function(session.globals.vars["g"])  # type: ignore[attr-defined]
    assert (
        listings(fn) == "static(f) has no traces: its calls ran dynamically (one call ran more than 200 ops, "
        "more than a trace keeps)\n"
    )
    info = info_text(fn)
    assert "calls run dynamically: 1\n    a trace refused: one call ran more than 200 ops" in info, info

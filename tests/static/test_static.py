"""static(f): guards and re-tracing, gradients through a static call, the cache's bound, and
generated code that no program text can reach."""

from __future__ import annotations

import io
import re
import textwrap

import numpy as np
import pytest

from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.static.guard_code import compile_check
from dglang.interpreter.static.static_builtins import static_function
from dglang.interpreter.static.static_calls import MAX_TRACES


def run(program: str) -> tuple[str, str, object]:
    out, err = io.StringIO(), io.StringIO()
    session = new_session(out=out)
    session.err = err
    session.run(textwrap.dedent(program), "static.dg")
    return out.getvalue(), err.getvalue(), session


def static_of(session: object, name: str) -> object:
    fn = static_function(session.globals.vars[name])  # type: ignore[attr-defined]
    assert fn is not None
    return fn


BRANCH = """
def f(x):
    if x.sum() > 0:
        return x * 2
    return -x
g = static(f)
"""


def test_a_guard_that_fails_retraces_with_a_note_and_the_result_follows_the_new_path() -> None:
    calls = "print(g(tensor([1.0, 2.0])))\nprint(g(tensor([3.0, 1.0])))\nprint(g(tensor([-3.0, 1.0])))\n"
    out, err, session = run(BRANCH + calls)
    assert out == "tensor([2., 4.])\ntensor([6., 2.])\ntensor([ 3., -1.])\n"
    assert (
        "Note: static(f) re-traced f: the condition `x.sum() > 0` on line 3 was True when traced and is False now"
    ) in err
    fn = static_of(session, "g")
    assert fn.traces == 2 and len(fn.failures) == 1  # type: ignore[attr-defined]


def test_a_replay_runs_the_generated_code_not_the_function() -> None:
    out, _, session = run(BRANCH + "for i in range(5):\n    y = g(tensor([1.0, float(i)]))\nprint(y)\n")
    fn = static_of(session, "g")
    assert fn.traces == 1 and fn.cached()[-1].calls == 5  # type: ignore[attr-defined]
    assert out == "tensor([2., 8.])\n"


def test_a_new_shape_is_a_new_cache_entry() -> None:
    _, err, session = run(BRANCH + "g(tensor([1.0]))\ng(tensor([1.0, 2.0]))\ng(tensor([1.0]))\n")
    fn = static_of(session, "g")
    assert fn.traces == 2 and len(fn.entries) == 2 and err == ""  # type: ignore[attr-defined]


GRADIENTS = """
w = tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
def f(x, b):
    h = (x @ w).tanh() + b
    y = h * h + h            # h used twice
    return (y * x.sum()).mean() + (b * b).sum()
g = static(f)
"""


def gradients(program: str, call: str) -> dict[str, np.ndarray]:
    text = (
        GRADIENTS
        + program
        + f"""
x = tensor([1.0, -2.0], requires_grad=True)
b = tensor([0.1, 0.2, 0.3], requires_grad=True)
for i in range(3):
    zero_grad(x, b, w)
    loss = {call}(x, b)
    grad loss
"""
    )
    _, _, session = run(text)
    env = session.globals.vars  # type: ignore[attr-defined]
    return {n: env[n].grad.data.copy() for n in ("x", "b", "w")} | {"loss": np.asarray(env["loss"].data)}


def test_gradients_through_a_static_call_are_the_dynamic_ones() -> None:
    dynamic, static = gradients("", "f"), gradients("", "g")
    for name in dynamic:
        np.testing.assert_allclose(static[name], dynamic[name], rtol=0, atol=1e-12)


def test_gradient_and_second_derivatives_flow_through_a_static_call() -> None:
    out, err, _ = run("""
    def cube(x):
        return (x * x * x).sum()
    c = static(cube)
    x = tensor([1.0, 2.0], requires_grad=True)
    c(x)
    d = gradient(c(x), x)
    print(d)
    print(gradient(d.sum(), x))
    print(gradcheck(c, tensor([0.5, -1.5], requires_grad=True), order=2))
    """)
    first, second = out.splitlines()[:2]
    assert first == "tensor([ 3., 12.], grad_fn=<AddBackward>)", out + err  # as gradient(cube(x), x) prints
    assert second == "tensor([ 6., 12.], grad_fn=<AddBackward>)", out + err
    assert out.rstrip().endswith("True"), out + err


def test_past_the_bound_calls_run_dynamically_with_one_note() -> None:
    out, err, session = run(BRANCH + f"for n in range(1, {MAX_TRACES + 4}):\n    y = g(ones(n))\nprint(y.sum())\n")
    assert out == f"tensor({2 * (MAX_TRACES + 3)}.)\n"
    assert err.count(f"has been traced {MAX_TRACES} times") == 1
    assert static_of(session, "g").dynamic_calls == 3  # type: ignore[attr-defined]


def test_a_print_inside_runs_when_tracing_and_a_note_says_so_once() -> None:
    out, err, _ = run("""
    def f(x):
        print("tracing")
        return x + 1
    g = static(f)
    for i in range(3):
        g(tensor(1.0))
    """)
    assert out == "tracing\n"
    assert err.count("did not print this time") == 1


# ---- no program text reaches the code that runs ------------------------------------------------
ALLOWED = re.compile(
    r"(?:def|return|if|is|not|None|True|axis|keepdims|reshape|T|sent|seen|forward|backward"
    r"|(?:t|g|op|c|k|as_|failed|W|R|acc|fit|shape|rule|s)\d+|\d+|[()\[\],:=!.+@*/>\- ]|:=)+"
)


@pytest.mark.parametrize(
    "body",
    [
        'x * 1e308 + x ** 3 - float("nan") * 0',
        "x.reshape(2, 1).sum(axis=0) + tensor([1.0])",
        "__import__ + x if False else x * 2",
    ],
)
def test_injection_through_names_strings_and_numbers_fails(body: str) -> None:
    program = f"""
    __import__ = 5
    nasty = {{"'); __import__('os').system('echo pwned'); ('": 2.0, "\\r\\nimport os": [1, "\\u2028"]}}
    def f(x, s):
        os = "\\r\\nimport os\\u2028os.system('echo pwned')  # "
        exec_ = os + s + str(nasty["\\r\\nimport os"][1])
        return {body} * nasty["'); __import__('os').system('echo pwned'); ('"]
    g = static(f)
    for i in range(3):
        y = g(tensor([1.0, 2.0]), "'); __import__('os').system('echo pwned'); ('")
    print(y)
    """
    out, err, session = run(program)
    fn = static_of(session, "g")
    assert fn.entries, err  # type: ignore[attr-defined]
    for entry in fn.cached():  # type: ignore[attr-defined]
        for line in (entry.source + "\n" + entry.bare_source).splitlines():  # the checked code and the bare
            assert ALLOWED.fullmatch(line.strip()), line
        check = compile_check(entry.trace.outside, *entry.trace.outside.start)  # (entry.check compiles it lazily)
        for line in (check.source + "\n" + entry.fast.source).splitlines():  # its guards (and its key's)
            assert CHECK_ALLOWED.fullmatch(line.strip()), line
        for line in entry.plan.call.source.splitlines():  # the call around the forward
            assert CALL_ALLOWED.fullmatch(line.strip()), line
    assert "pwned" not in out


# The call around the forward (replaying.call_code): the same.
CALL_ALLOWED = re.compile(
    r"(?:def|return|if|is|not|None|else|call|tensors|forward|entry|hang|values|out|data|grad|requires_grad"
    r"|(?:g|c|r|T|type|failed|changed|hung)\d+|\d+|[()\[\],:=.*\- ]|==)+"
)


# The guards on what a trace read (guard_code.py): its names and Python's words, nothing else.
CHECK_ALLOWED = re.compile(
    r"(?:def|return|if|is|not|in|and|None|True|False|try|except|KeyError|check|walk|tensors|seen|append|get|data|shape|dtype|kind"
    r"|requires_grad|grad_fn|grad|hex|Tensor|ndarray|generic|isinstance|or|type|id|len|list|dict|float|set|map"
    r"|args|grad_mode|(?:v|x|n|vars|k|t|o|m|a)\d+|\d+|[()\[\],:=!.\- ]|==)+"
)


def test_the_listing_escapes_control_characters_of_the_source() -> None:
    from dglang.interpreter.static.listing import listings

    _, _, session = run("def f(x):\n    return x + 1  # \u200b\ng = static(f)\ng(tensor(1.0))\n")
    text = listings(static_of(session, "g"))
    assert "\u200b" not in text and "\\u200b" in text and "t2 = Add(t0, t1)" in text


def test_softmax_and_logsumexp_follow_new_values() -> None:
    """Their shift (the largest value) is computed with tensor ops, so the trace recomputes it."""
    out, err, session = run("""
    def f(x):
        return x.log_softmax() + x.softmax() + logsumexp(x)
    g = static(f)
    for values in [[1.0, 2.0, 3.0], [5.0, -2.0, 3.0], [-inf, -inf, 3.0]]:
        print(g(tensor(values)), f(tensor(values)))
    """)
    for line in out.splitlines():
        static, dynamic = line.split(") tensor(")
        assert static + ")" == "tensor(" + dynamic, line
    assert static_of(session, "g").traces == 1, err  # type: ignore[attr-defined]


TRAINING = """
seed(0)
X, y = moons(64, noise=0.1)
W1 = randn(2, 16) * 0.5
W1.requires_grad = True
b1 = zeros(16, requires_grad=True)
W2 = randn(16, 1) * 0.5
W2.requires_grad = True
b2 = zeros(1, requires_grad=True)
params = [W1, b1, W2, b2]

def step(X, y):
    h = (X @ W1 + b1).relu()
    s = (h @ W2 + b2).reshape(-1)
    loss = (1 + (-y * s).exp()).log().mean()
    zero_grad(params)
    grad loss
    with no_grad:
        for p in params:
            p -= 0.5 * p.grad
    return loss

fast = static(step)
for i in range(12):
    loss = fast(X, y)
    print(loss.item())
print(W1, b2, W2.grad)
"""


def test_a_training_step_with_grad_and_updates_in_place_gives_the_dynamic_numbers() -> None:
    static_out, err, session = run(TRAINING)
    dynamic_out, _, _ = run(TRAINING.replace("fast = static(step)", "fast = step"))
    assert static_out == dynamic_out
    fn = static_of(session, "fast")
    # One trace for every call: zero_grad sets each .grad before the step reads it, so the .grad a
    # call comes in with (None at the first, set after) is not part of what the trace depends on.
    assert fn.traces == 1, err  # type: ignore[attr-defined]
    assert "re-traced" not in err, err
    assert fn.cached()[-1].calls == 12  # type: ignore[attr-defined]


def test_a_tensor_the_function_makes_is_a_new_one_at_each_call() -> None:
    out, err, _ = run("""
    def layer(n):
        W = zeros(n, requires_grad=True)
        b = tensor([1.0, 2.0]) * 2
        return W, b
    make = static(layer)
    W1, b1 = make(2)
    W2, b2 = make(2)
    with no_grad:
        W1 += 5
    print(W1, W2, b2)
    print(make(2)[0])
    """)
    assert out == (
        "tensor([5., 5.], requires_grad=True) tensor([0., 0.], requires_grad=True) tensor([2., 4.])\n"
        "tensor([0., 0.], requires_grad=True)\n"
    ), err


def test_random_numbers_drawn_inside_run_the_function_dynamically_with_a_note() -> None:
    out, err, session = run("""
    def noisy(x):
        return x + randn(2)
    g = static(noisy)
    seed(0)
    a = g(zeros(2))
    b = g(zeros(2))
    print((a == b).all())
    """)
    assert out == "tensor(False)\n"
    assert err.count("it draws random numbers") == 1
    assert static_of(session, "g").dynamic_calls == 2  # type: ignore[attr-defined]


@pytest.mark.parametrize(("returned", "named"), [("f", "function"), ('{"y": x}', "dict"), ("range(2)", "range")])
def test_a_function_returning_what_a_replay_cannot_rebuild_runs_dynamically_and_the_note_names_it(
    returned: str, named: str
) -> None:
    out, err, session = run(f"""
    def f(x):
        y = x * 2
        return {returned}
    g = static(f)
    print(g(tensor([1.0])), g(tensor([1.0])))
    """)
    assert (
        out
        == run(f"""
    def f(x):
        y = x * 2
        return {returned}
    print(f(tensor([1.0])), f(tensor([1.0])))
    """)[0]
    )
    assert err.count(f"runs f dynamically: it returns a {named}, which its trace cannot replay yet") == 1, err
    assert static_of(session, "g").dynamic_calls == 2  # type: ignore[attr-defined]


def test_an_index_of_tensors_in_a_tuple_follows_each_call() -> None:
    """x[rows, labels] with labels an argument: each call picks its own labels (the trace refuses
    to bake them in: the function runs dynamically, with a note)."""
    out, err, _ = run("""
    def pick(x, labels):
        return x[arange(2), labels].sum()
    g = static(pick)
    x = tensor([[1.0, 2.0], [3.0, 5.0]])
    print(g(x, tensor([0, 1], dtype="int")), g(x, tensor([1, 0], dtype="int")))
    """)
    assert out == "tensor(6.) tensor(5.)\n", err

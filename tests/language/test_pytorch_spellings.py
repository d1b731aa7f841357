"""PyTorch's spellings mean in DG what they mean in PyTorch (values PyTorch 2.13 printed for the
same programs), or stop with a located error: never a silent difference."""

from __future__ import annotations

import io
import re

import pytest

from dglang.interpreter.frontends.sessions import new_session


def run(*lines: str) -> dict:
    session = new_session(out=io.StringIO())
    session.run("x = tensor([[1.0, 5.0, 2.0], [7.0, 2.0, 0.0]])\n" + "\n".join(lines) + "\n")
    return session.globals.vars


def values(t) -> list:
    return t.tolist()


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("x.sum(dim=0)", [8.0, 7.0, 2.0]),
        ("x.sum(dim=1, keepdim=True)", [[8.0], [9.0]]),
        ("sum(x, dim=0)", [8.0, 7.0, 2.0]),
        ("mean(x, dim=1, keepdim=True)", [[8.0 / 3], [3.0]]),
        ("x.mean(dim=(0, 1))", 17.0 / 6),
        ("x.argmax(dim=1)", [1, 0]),
        ("x.prod(dim=1)", [10.0, 0.0]),
        ("x.cumsum(dim=1)", [[1.0, 6.0, 8.0], [7.0, 9.0, 9.0]]),
        ("(x > 1).any(dim=1)", [True, True]),
        ("(x > 1).all(dim=0)", [False, True, False]),
        ("softmax(tensor([[0.0, 0.0], [1.0, 1.0]]), dim=0)[0]", [0.2689414213699951, 0.2689414213699951]),
        ("x.log_softmax(dim=1).exp().sum(dim=1)", [1.0, 1.0]),
        ("x.flip(dims=0)[0]", [7.0, 2.0, 0.0]),
        ("x.permute(1, 0).shape", (3, 2)),
        ("ones(2, 3, 4).permute(2, 0, 1).shape", (4, 2, 3)),
        ("ones(2, 3, 4).transpose(1, 2).shape", (2, 4, 3)),
        ("x.transpose(0, 1).shape", (3, 2)),  # PyTorch swaps (NumPy would leave it as it is)
        ("x.t().shape", (3, 2)),
        ("ones(2, 1, 3).squeeze().shape", (2, 3)),
        ("ones(2, 1, 3).squeeze(0).shape", (2, 1, 3)),
        ("x.unsqueeze(1).shape", (2, 1, 3)),
        ("cat([x, x], dim=0).shape", (4, 3)),
        ("x.pow(2)[0]", [1.0, 25.0, 4.0]),
        ("x.clamp(min=2.0)[1]", [7.0, 2.0, 2.0]),
        ("clamp(x, 1.0, 4.0)[0]", [1.0, 4.0, 2.0]),
    ],
)
def test_pytorch_s_spelling_means_what_it_means_there(expression: str, expected) -> None:
    got = run(f"y = {expression}")["y"]
    got = got if isinstance(got, tuple) else got.tolist()
    if isinstance(expected, float):
        assert got == pytest.approx(expected)
    else:
        assert (
            got == pytest.approx(expected)
            if isinstance(expected, list) and isinstance(expected[0], float)
            else got == expected
        )


def test_max_with_a_dim_gives_values_and_indices_as_pytorch() -> None:
    scope = run(
        "values, idx = x.max(1)", "low, where = min(x, dim=0)", "kept = x.max(dim=1, keepdim=True)", "v = x.max(axis=1)"
    )
    assert values(scope["values"]) == [5.0, 7.0] and values(scope["idx"]) == [1, 0]
    assert values(scope["low"]) == [1.0, 2.0, 0.0] and values(scope["where"]) == [0, 1, 1]
    assert values(scope["kept"][0]) == [[5.0], [7.0]] and values(scope["kept"][1]) == [[1], [0]]
    assert values(scope["v"]) == [5.0, 7.0]  # axis= is DG's (NumPy's) reduction: the values alone


def test_the_values_of_max_with_a_dim_are_differentiable() -> None:
    scope = run("w = tensor([[1.0, 5.0], [7.0, 2.0]], requires_grad=True)", "best, at = w.max(1)", "grad best.sum()")
    assert values(scope["w"].grad) == [[0.0, 1.0], [1.0, 0.0]]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("y = ones(2, 3, 4).t()", "t() takes at most 2 dimensions"),
        ("y = x.transpose(0, 5)", "out of range"),
        ("y = x.permute(1)", "permute: 1 axes"),
        ("y = x.max(dim=1, axis=1)", "not both"),
    ],
)
def test_what_cannot_mean_the_same_is_a_located_error(line: str, message: str) -> None:
    with pytest.raises(Exception, match=re.escape(message)) as caught:
        run(line)
    assert getattr(caught.value, "span", None) is not None

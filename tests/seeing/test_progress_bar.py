"""progress(items): the loop sees the same items, the bar goes to standard error (never into
what the program prints), counts toward the output limit, and without tqdm a plain line remains."""

from __future__ import annotations

import io

import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.host.limits import Limits
from dglang.interpreter.library import extras

LOOP = "total = 0\nfor i in progress(range(5), desc='steps'):\n    total += i\nprint(total)\n"


def run(source: str, limits: Limits | None = None) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    session = new_session(out=out, limits=limits)
    session.err = err
    session.run(source, "progress.dg")
    return out.getvalue(), err.getvalue()


def test_the_loop_sees_the_items_and_the_bar_goes_to_standard_error() -> None:
    pytest.importorskip("tqdm", reason='the optional extra `progress` (uv pip install "tqdm>=4.66")')
    out, err = run(LOOP)
    assert out == "10\n"
    assert "steps: 100%" in err and "5/5" in err and "it/s" in err


def test_a_tensors_rows_a_dicts_keys_and_a_break() -> None:
    out, _ = run("for r in progress(eye(2)):\n    print(r)\nfor k in progress({'a': 1, 'b': 2}):\n    print(k)\n"
                 "for i in progress(range(10)):\n    if i == 2:\n        break\nprint(i)\n")  # fmt: skip
    assert out == "tensor([1., 0.])\ntensor([0., 1.])\na\nb\n2\n"


def without_tqdm(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_tqdm(name: str, *args: object, **kwargs: object) -> object:
        if name == "tqdm":
            raise ImportError("no tqdm")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_tqdm)


def test_without_tqdm_one_plain_line_at_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    without_tqdm(monkeypatch)
    monkeypatch.delenv("UV", raising=False)  # not under `uv run`: pip's command
    out, err = run(LOOP)
    assert out == "10\n"
    assert err.startswith("steps: 5 items in ") and 'pip install "dglang[progress]"' in err


def test_under_uv_the_line_names_uv_s_command_not_pip_s(monkeypatch: pytest.MonkeyPatch) -> None:
    without_tqdm(monkeypatch)
    monkeypatch.setenv("UV", "/usr/bin/uv")  # as `uv run dg FILE` sets it
    monkeypatch.setattr(extras, "in_checkout", lambda: True)
    assert run(LOOP)[1].endswith("(for a progress bar: uv sync --inexact --extra progress)\n")
    monkeypatch.setattr(extras, "in_checkout", lambda: False)  # DG installed in the student's own uv project
    assert run(LOOP)[1].endswith('(for a progress bar: uv add "dglang[progress]")\n')


def test_the_bar_counts_toward_the_output_limit() -> None:
    pytest.importorskip("tqdm", reason='the optional extra `progress` (uv pip install "tqdm>=4.66")')
    with pytest.raises(DGError) as caught:
        run("for i in progress(range(3)):\n    pass\n", Limits(max_output=20))
    assert caught.value.kind == "LimitError"


def test_a_total_that_is_no_count_is_a_located_error() -> None:
    with pytest.raises(DGError) as caught:
        run("progress(range(3), total='many')")
    assert "total is a count of items" in caught.value.message and caught.value.span is not None

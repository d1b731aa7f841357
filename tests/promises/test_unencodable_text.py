"""Text no stream can encode reaches every output escaped, never as a crash or a lost reply.

A DG string may hold lone surrogates ("\\ud800", or "\\udce9" as a byte that was not UTF-8 reads)
and any other character. Printed, put in an assert's message, echoed as a value or shown in a
signature, it must come out of `dg FILE` and the piped REPL (whatever the output's encoding), `dg
test`, the grader's worker and its results.json, the Jupyter kernel and the language server as
text with escapes. Hypothesis draws the strings: random lone surrogates among random characters.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dglang.interpreter.diagnostics.escaping import escaped

SURROGATES = st.integers(0xD800, 0xDFFF).map(chr)
ODD = st.sampled_from(["\x00", "\x1b", "\x85", "\u2028", "\ufeff", "\U0001f600", "é", "\\", '"', "\n"])
TEXT = st.lists(st.one_of(SURROGATES, ODD, st.characters(codec="utf-8")), min_size=1, max_size=12).map("".join)
FEW = settings(max_examples=12, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def literal(text: str) -> str:
    """`text` as a DG string literal (every character but plain ASCII as an escape)."""
    return (
        '"'
        + "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else f"\\U{ord(c):08x}" for c in text)
        + '"'
    )


def shown(text: str) -> str:
    """How `print` shows `text` through any output: surrogates as escapes."""
    return escaped(text)


def program(text: str) -> str:
    return f"s = {literal(text)}\nprint(s)\nassert False, s\n"


@pytest.mark.slow
@FEW
@given(text=TEXT, encoding=st.sampled_from(["utf-8", "ascii", "latin-1"]))
def test_dg_file_and_the_piped_repl(tmp_path_factory: pytest.TempPathFactory, text: str, encoding: str) -> None:
    folder = tmp_path_factory.mktemp("dg")
    (folder / "p.dg").write_text(program(text))
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    for command, stdin in ((["p.dg"], None), ([], program(text).encode())):
        result = subprocess.run(
            [sys.executable, "-m", "dglang.interpreter", *command],
            input=stdin,
            capture_output=True,
            cwd=folder,
            timeout=120,
            env=env,
        )
        assert result.returncode == 70, result.stderr
        err = result.stderr.decode(encoding)
        assert "AssertionError" in err and "Traceback" not in err and "InternalError" not in err
        out = result.stdout.decode(encoding)
        assert (out.endswith("\n") and "\\ud" not in shown(text)) or "\\ud" in out


@pytest.mark.slow
@FEW
@given(text=TEXT)
def test_dg_test_reports_and_summarizes(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    folder = tmp_path_factory.mktemp("dg")
    (folder / "t.dg").write_text(f"def test_it():\n    s = {literal(text)}\n    print(s)\n    assert False, s\n")
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", "test", "t.dg"], capture_output=True, cwd=folder, timeout=120
    )
    assert result.returncode == 1, result.stderr
    out = result.stdout.decode("utf-8")
    assert out.endswith("1 failed\n") and "--- what test_it printed ---" in out


@FEW
@given(text=TEXT)
def test_the_grader_s_worker_and_results(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    from dglang.interpreter.diagnostics.escaping import escaped_data
    from dglang.interpreter.frontends.grading import worker
    from dglang.interpreter.frontends.grading.collecting import Case
    from dglang.interpreter.frontends.grading.grader import Graded, TestResult
    from dglang.interpreter.frontends.grading.gradescope import results_json
    from dglang.interpreter.frontends.grading.submissions import Submission

    folder = tmp_path_factory.mktemp("work")
    (folder / "work.dg").write_text(f"s = {literal(text)}\nprint(s)\n")
    tests = f"from submission import s\n\ndef test_it():\n    print(s)\n    assert False, {literal(text)}\n"
    request = worker.Request(str(folder / "work.dg"), "tests.dg", tests, [("test_it", 1.0, 1)])
    channel = io.BytesIO()
    wrapper = io.TextIOWrapper(channel, encoding="utf-8", write_through=True)  # strict: as the worker's stdout
    worker.grade(request, wrapper)
    events = [json.loads(line) for line in channel.getvalue().decode("utf-8").split("\n") if line]
    wrapper.detach()
    assert [e["event"] for e in events] == ["program", "tests_file", "test", "done"]
    test = events[2]
    assert not test["passed"] and shown(text).replace("\n", "") in test["output"].replace("\n", "")
    graded = Graded(Submission("w", folder), "ok", test["output"], [TestResult(Case("test_it", 1, 1), False, text)], 0)
    json.dumps(escaped_data(results_json(graded)), ensure_ascii=False).encode("utf-8")


# ---- the Jupyter kernel -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from optional_tools import need

    need("ipykernel", "kernel")
    from kernel_util import write_kernelspec

    folder = tmp_path_factory.mktemp("jupyter")
    write_kernelspec(folder)
    before = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = str(folder)
    from jupyter_client.manager import start_new_kernel

    try:
        manager, client = start_new_kernel(kernel_name="dglang")
    finally:
        if before is None:
            del os.environ["JUPYTER_PATH"]
        else:
            os.environ["JUPYTER_PATH"] = before
    yield client
    client.stop_channels()
    manager.shutdown_kernel()


def cell(client: Any, code: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    outputs: list[dict[str, Any]] = []
    reply = client.execute_interactive(code, timeout=30, output_hook=outputs.append, allow_stdin=False)
    return reply["content"], [m for m in outputs if m["msg_type"] in ("stream", "error", "execute_result")]


@pytest.mark.slow  # a Jupyter kernel
@pytest.mark.parametrize(
    ("code", "status", "expected"),
    [
        ('print("\\ud800")', "ok", "\\ud800\n"),
        ('print("caf\\udce9")', "ok", "caf\\udce9\n"),
        ('assert False, "\\ud800"', "error", "\\ud800"),
        ('"x\\udfff"', "ok", "'x\\udfff'"),
    ],
)
def test_the_kernel_replies_and_shows_the_text_escaped(kernel: Any, code: str, status: str, expected: str) -> None:
    reply, outputs = cell(kernel, code)  # no reply within 30 seconds raises: nbclient would wait for ever
    assert reply["status"] == status
    [output] = outputs
    content = output["content"]
    assert expected in (content.get("text") or content.get("evalue") or content["data"]["text/plain"])


@pytest.mark.slow  # a Jupyter kernel
def test_the_kernel_inspects_a_signature_holding_a_surrogate(kernel: Any) -> None:
    cell(kernel, 'def f(x="\\ud800"):\n    return x\n')
    kernel.inspect("f", 1)
    reply = kernel.get_shell_msg(timeout=30)
    assert "\\ud800" in reply["content"]["data"]["text/plain"]


@pytest.mark.slow  # a Jupyter kernel
@FEW
@given(text=TEXT)
def test_the_kernel_with_random_text(kernel: Any, text: str) -> None:
    reply, outputs = cell(kernel, program(text))
    assert reply["status"] == "error" and reply["ename"] == "AssertionError"
    assert [m["msg_type"] for m in outputs][-1] == "error"


# ---- the language server ------------------------------------------------------------------------
@pytest.mark.slow  # a language server
def test_the_language_server_reads_a_document_holding_a_surrogate() -> None:
    from optional_tools import need

    need("pygls", "lsp")
    from lsp_util import Editor, talk

    async def conversation(editor: Editor) -> None:
        [problem] = await editor.open('s = "caf\udce9"\nprint(s)\n')
        assert problem.message.startswith("SyntaxError: this line is not UTF-8 text: the byte 0xe9")

    talk(conversation)


def test_the_checks_see_the_text_as_printed() -> None:
    assert shown("caf\udce9") == "caf\\udce9" and literal("\ud800") == '"\\U0000d800"'
    assert Path  # used by the fixtures above

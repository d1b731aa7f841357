"""The DG kernel through Jupyter's messaging protocol, as a notebook or console uses it: the
protocol's own checks (jupyter_kernel_test) and what DG adds: its located errors, interrupting a
loop that never ends, a picture inline, and breakpoint() answered through the input box."""

from __future__ import annotations

import json
import os
import queue
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from graph_util import can_draw
from kernel_util import dg_kernel, write_kernelspec  # noqa: F401  (dg_kernel: a fixture)
from optional_tools import need

jupyter_kernel_test = need("jupyter_kernel_test", "kernel")
need("ipykernel", "kernel")  # the kernel the tests start

pytestmark = pytest.mark.usefixtures("dg_kernel")
GRAPHVIZ = can_draw()


@pytest.mark.slow  # a Jupyter kernel
class TestDGKernel(jupyter_kernel_test.KernelTests):
    kernel_name = "dglang"
    language_name = "dg"
    file_extension = ".dg"

    code_hello_world = 'print("hello, world")'
    code_stderr = "a = tensor(1.0, requires_grad=True)\nb = a * 2\nprint(b.grad)"  # a warning
    completion_samples = [  # noqa: RUF012  (jupyter_kernel_test reads class attributes)
        {"text": "zero_g", "matches": {"zero_grad"}},
        {"text": "w = tensor([1.0])\nw.resh", "matches": {"reshape"}},
        {"text": ":he", "matches": {":help"}},
    ]
    complete_code_samples = ["x = 1", "print(1)", "def f(x):\n    return x\n", ":vars"]  # noqa: RUF012
    incomplete_code_samples = ["def f(x):", "y = (1 +", "for i in range(3):\n    print(i)"]  # noqa: RUF012
    invalid_code_samples = ["x = = 1"]  # noqa: RUF012
    code_generate_error = "y = 1 +* 2"
    code_execute_result = [  # noqa: RUF012
        {"code": "1 + 2", "result": "3"},
        {"code": "tensor([1.0, 2.0]) * 2", "result": "tensor([2., 4.])"},
        {"code": "tensor([[1.0, 2.0], [3.0, 4.0]])", "mime": "text/html"},
    ]
    code_display_data = [  # noqa: RUF012
        {"code": "x = tensor(2.0, requires_grad=True)\ny = x * x\ngrad y\ngraph(y)", "mime": "text/plain"},
        *([{"code": "graph(tensor(1.0, requires_grad=True) * 3)", "mime": "image/svg+xml"}] if GRAPHVIZ else []),
    ]
    code_inspect_sample = "relu"

    # ---- what DG adds ---------------------------------------------------------------------------
    def cell(self, code: str, timeout: float = 30, **options: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        self.flush_channels()
        outputs: list[dict[str, Any]] = []
        reply = self.kc.execute_interactive(code, timeout=timeout, output_hook=outputs.append, **options)
        wanted = ("stream", "display_data", "execute_result", "error")
        return reply["content"], [m for m in outputs if m["msg_type"] in wanted]

    def test_an_error_is_dgs_located_message_and_the_state_stays(self) -> None:
        self.cell("kept = 41")
        reply, outputs = self.cell("kept = kept + 1\nprint(kept)\nz = kept + nothing")
        assert reply["status"] == "error" and reply["ename"] == "NameError"
        [printed, error] = outputs
        assert printed["content"]["text"] == "42\n"
        traceback = "\n".join(error["content"]["traceback"])
        assert traceback.startswith("<cell ") and ":3:12: NameError: name 'nothing' is not defined" in traceback
        assert "3 | z = kept + nothing" in traceback and "^^^^^^^" in traceback
        assert "Traceback" not in traceback and ".py" not in traceback
        reply, outputs = self.cell("kept")
        assert reply["status"] == "ok" and outputs[0]["content"]["data"]["text/plain"] == "42"

    def test_interrupt_stops_an_endless_loop_and_keeps_the_state(self) -> None:
        self.cell("before = 7")
        timer = threading.Timer(1.0, self.km.interrupt_kernel)
        timer.start()
        started = time.monotonic()
        reply, outputs = self.cell("while True: pass", timeout=60)
        timer.join()
        assert time.monotonic() - started < 30
        assert reply["status"] == "error" and reply["ename"] == "KeyboardInterrupt"
        assert "1 | while True: pass" in "\n".join(outputs[-1]["content"]["traceback"])
        _, outputs = self.cell("before * 6")
        assert outputs[0]["content"]["data"]["text/plain"] == "42"

    def test_only_a_final_expression_is_the_result(self) -> None:
        _, outputs = self.cell("3 * 3\nprint('after')")
        assert [m["msg_type"] for m in outputs] == ["stream"]
        assert outputs[0]["content"]["text"] == "9\nafter\n"

    def test_inspect_inside_a_call_and_on_a_method(self) -> None:
        self.cell("w = tensor([1.0, 2.0], requires_grad=True)")
        for code, expected in [("sigmoid(w, ", "sigmoid(a)"), ("w.sum", "x.sum("), ("w", "tensor")]:
            self.flush_channels()
            self.kc.inspect(code, len(code))
            reply = self.get_non_kernel_info_reply(timeout=10)
            assert reply is not None and reply["content"]["found"], code
            assert expected in reply["content"]["data"]["text/plain"], reply["content"]

    def test_help_and_inspect_of_a_notebook_function_show_its_docstring(self) -> None:
        self.cell('def square(x):\n    """x times x, elementwise."""\n    return x * x\n')
        _, outputs = self.cell(":help square")  # was: "no help for 'square'"
        text = outputs[0]["content"]["text"]
        assert text.startswith("def square(x)    (function; defined at ") and "\n    x times x, elementwise.\n" in text
        self.flush_channels()
        self.kc.inspect("square", 6)
        reply = self.get_non_kernel_info_reply(timeout=10)
        assert reply is not None and "x times x, elementwise." in reply["content"]["data"]["text/plain"]

    def test_breakpoint_reads_debugger_commands_from_the_input_box(self) -> None:
        self.flush_channels()
        msg_id = self.kc.execute("def f(n):\n    m = n * 2\n    breakpoint()\n    return m\n\nf(21)", allow_stdin=True)
        answers = iter(["m", ":continue"])
        prompts = []
        while True:
            try:
                request = self.kc.get_stdin_msg(timeout=15)
            except queue.Empty:
                break
            prompts.append(request["content"]["prompt"])
            self.kc.input(next(answers))
            if len(prompts) == 2:
                break
        reply = self.get_non_kernel_info_reply(timeout=15)
        assert reply is not None and reply["parent_header"]["msg_id"] == msg_id
        assert reply["content"]["status"] == "ok" and prompts == ["(dg) ", "(dg) "]
        texts = []
        while True:
            try:
                message = self.kc.get_iopub_msg(timeout=2)
            except queue.Empty:
                break
            if message["msg_type"] == "stream":
                texts.append(message["content"]["text"])
            elif message["msg_type"] == "execute_result":
                texts.append(message["content"]["data"]["text/plain"])
        shown = "".join(texts)
        assert "paused at <cell" in shown and "42\n" in shown and shown.endswith("42")

    def test_the_debugger_shows_each_answer_before_asking_for_the_next_command(self) -> None:
        """At `(dg)`, `a` shows 3 before the next input request (it showed only after the next
        command was typed: the echo was held back as the cell's possible result)."""
        self.flush_channels()
        self.kc.execute("def f(a):\n    breakpoint()\n    return a\n\nf(3)", allow_stdin=True)
        shown: list[str] = []  # iopub text, in the order received, with each input request marked
        for answer in ["a", "a * 10", ":continue"]:
            self.kc.get_stdin_msg(timeout=15)
            shown += [*self.iopub_text(), "<input>"]
            self.kc.input(answer)
        self.get_non_kernel_info_reply(timeout=15)
        shown += self.iopub_text()
        asked = [i for i, text in enumerate(shown) if text == "<input>"]
        assert len(asked) == 3
        before_second = "".join(shown[asked[0] + 1 : asked[1]])
        before_third = "".join(shown[asked[1] + 1 : asked[2]])
        assert before_second.strip() == "3" and before_third.strip() == "30", shown

    def iopub_text(self) -> list[str]:
        """The text sent on iopub so far (stream output and results), waiting briefly for more."""
        texts = []
        while True:
            try:
                message = self.kc.get_iopub_msg(timeout=1)
            except queue.Empty:
                return texts
            if message["msg_type"] == "stream":
                texts.append(message["content"]["text"])
            elif message["msg_type"] == "execute_result":
                texts.append(message["content"]["data"]["text/plain"])

    def test_command_lines_run_in_order_with_the_cells_code(self) -> None:
        reply, outputs = self.cell("a = tensor([1.0, 2.0], requires_grad=True)\nb = a.sum()\n:vars\nprint('then')")
        assert reply["status"] == "ok"
        text = "".join(m["content"]["text"] for m in outputs)
        assert re.search(r"^a +float tensor +\(2,\) +requires grad$", text, re.M) and text.endswith("then\n")
        reply, outputs = self.cell("c = 1\n:nosuch\nprint('never')")
        assert reply["status"] == "error" and reply["evalue"] == "no command ':nosuch'"
        assert [m["msg_type"] for m in outputs] == ["error"]
        reply, outputs = self.cell("\n\nd = e_not_defined\n:vars")
        assert ":3:5: NameError" in outputs[-1]["content"]["traceback"][0]  # lines counted from the cell's top

    def test_the_stepper_shows_in_a_frame_of_its_own(self) -> None:
        reply, outputs = self.cell("s = tensor([1.0, 2.0], requires_grad=True)\nt = (s * s).sum()\ngrad t\n:stepper t")
        if not GRAPHVIZ:
            assert reply["ename"] == "GraphvizError"
            return
        [shown] = [m for m in outputs if m["msg_type"] == "display_data"]
        page = shown["content"]["data"]["text/html"]
        assert page.startswith('<iframe sandbox="allow-scripts"') and "&lt;script&gt;" in page and "graph of t" in page

    def test_breakpoint_where_the_front_end_cannot_ask_goes_on(self) -> None:
        reply, outputs = self.cell("def g(n):\n    breakpoint()\n    return n + 1\n\ng(41)", allow_stdin=False)
        assert reply["status"] == "ok" and outputs[-1]["content"]["data"]["text/plain"] == "42"


@pytest.mark.slow  # a Jupyter kernel
def test_the_limits_are_kernel_settings(tmp_path: Path, dg_kernel: str) -> None:  # noqa: F811
    from jupyter_client.manager import start_new_kernel

    write_kernelspec(tmp_path, "dglang-limited", timeout=1.0, max_output=100)
    before = os.environ["JUPYTER_PATH"]
    os.environ["JUPYTER_PATH"] = os.pathsep.join([str(tmp_path), before])
    try:
        manager, client = start_new_kernel(kernel_name="dglang-limited")
    finally:
        os.environ["JUPYTER_PATH"] = before
    try:
        errors: list[dict[str, Any]] = []
        keep = lambda m: errors.append(m["content"]) if m["msg_type"] == "error" else None
        client.execute_interactive("while True: pass", timeout=30, output_hook=keep, allow_stdin=False)
        client.execute_interactive("for i in range(100): print(i)", timeout=30, output_hook=keep, allow_stdin=False)
        assert [e["ename"] for e in errors] == ["TimeoutError", "LimitError"]
        assert errors[0]["traceback"][-1] == "  = help: the limit was set with --timeout"
    finally:
        client.stop_channels()
        manager.shutdown_kernel()


def test_dg_kernel_install_writes_the_limits_into_the_kernelspec(tmp_path: Path) -> None:
    from dglang.interpreter.frontends.cli import main

    assert main(["kernel", "install", "--prefix", str(tmp_path), "--timeout", "60", "--max-memory", "2G"]) == 0
    spec = json.loads((tmp_path / "share" / "jupyter" / "kernels" / "dglang" / "kernel.json").read_text())
    assert spec["argv"][:5] == [sys.executable, "-m", "dglang.interpreter.frontends.kernel", "-f", "{connection_file}"]
    assert spec["argv"][5:] == ["--timeout", "60.0", "--max-memory", str(2 << 30)]
    assert spec["language"] == "dg" and spec["interrupt_mode"] == "signal"


def test_a_2d_tensor_result_is_also_a_table() -> None:
    from dglang.autograd import tensor
    from dglang.interpreter.frontends.kernel.output import table

    shown = table(tensor([[1.0, 2.0], [3.0, 4.5]], requires_grad=True) * 2)
    assert shown.startswith("<div>float tensor, shape (2, 2), computed by Mul</div><table>")
    assert shown.count("<td>") == 4 and "<td>9.0</td>" in shown

"""The stepper: `dg graph FILE --var NAME -o out.html`, one page that replays a graph.

What it replays is checked on its data; the page itself is driven in a real browser (Debian's
Chromium through Playwright, both installed by .ci/run): stepping with the buttons, the arrow keys
and the slider, forward and backward, checking what is highlighted and said, that nothing is
fetched from the network, and what a screenshot shows where the highlighted node is.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_util import BROWSER_ARGS, CHROMIUM
from graph_util import can_draw
from optional_tools import need

from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.seeing.collapse import MOST, collapse_loops
from dglang.interpreter.seeing.stepper import STEPPER_LIMIT, stepper_data
from dglang.interpreter.seeing.tools import install

ROOT = Path(__file__).resolve().parents[2]
needs_graphviz = pytest.mark.skipif(not can_draw(), reason="neither Graphviz's dot nor graphviz-pure is installed")


def data_of(text: str, var: str, name: str = "<t>") -> dict[str, Any]:
    session = new_session(out=io.StringIO(), base_dir=ROOT / "programs")
    seeing = install(session)
    seeing.keep_backward()
    session.run(text, name)
    return stepper_data(collapse_loops(seeing.graph(session.globals.vars[var], STEPPER_LIMIT)), var)


def lesson_07() -> dict[str, Any]:
    return data_of((ROOT / "programs" / "07_two_layer.dg").read_text(), "loss", "programs/07_two_layer.dg")


# ---- what it replays --------------------------------------------------------------------------------
def test_forward_replays_the_recording_in_order() -> None:
    forward = lesson_07()["forward"]
    assert [(s["title"], s["line"], s["code"]) for s in forward] == [
        ("MatMul", 12, "x @ W1"),
        ("Add", 12, "x @ W1 + b1"),
        ("h = Relu", 12, "relu(x @ W1 + b1)"),
        ("y = MatMul", 13, "h @ w2"),
        ("Sub", 14, "y - 1.0"),
        ("loss = Pow", 14, "(y - 1.0) ** 2"),
    ]
    assert forward[2]["value"] == "[1.5, 0.5, 0]" and forward[2]["node"] == "n6"


def test_backward_replays_each_step_with_its_numbers_and_the_leaves() -> None:
    backward = lesson_07()["backward"]
    assert [s["number"] for s in backward["steps"]] == [1, 2, 3, 4, 5, 6]
    assert (backward["line"], backward["code"], backward["root"], backward["seed"]) == (15, "grad loss", "n1", "1")
    third = backward["steps"][2]
    assert (third["node"], third["g"]) == ("n4", "-1")
    assert [(s["edge"], s["rule"], s["numbers"], s["to"]) for s in third["sends"]] == [
        ("e4_0", "a: g @ bᵀ", "= (-1) @ [1, -2, 3]ᵀ = [-1, 2, -3]", "[6] h = Relu"),
        ("e4_1", "b: aᵀ @ g", "= [1.5, 0.5, 0]ᵀ @ (-1) = [-1.5, -0.5, 0]", "[7] w2"),
    ]
    assert third["leaves"] == [{"id": "n7", "name": "w2", "total": "[-1.5, -0.5, 0]"}]
    assert [(a["name"], a["received"], a["grad"]) for a in backward["accumulate"]] == [
        ("W1", "[[-1, 2, 0], [-2, 4, 0]]", "[[-1, 2, 0], [-2, 4, 0]]"),
        ("b1", "[-1, 2, 0]", "[-1, 2, 0]"),
        ("w2", "[-1.5, -0.5, 0]", "[-1.5, -0.5, 0]"),
    ]


def test_a_leaf_used_twice_shows_its_running_total() -> None:
    data = data_of("a = tensor(3.0, requires_grad=True)\nb = a + a\nc = b * a\ngrad c\n", "c")
    totals = [leaf["total"] for step in data["backward"]["steps"] for leaf in step["leaves"]]
    assert totals == ["6", "9", "12"]  # c = 2a·a: 6 from the product, then 3 and 3 through the sum


def test_a_graph_never_backpropagated_has_nothing_to_replay_backward() -> None:
    data = data_of("x = tensor(2.0, requires_grad=True)\ny = x * x\n", "y")
    assert data["backward"] is None and len(data["forward"]) == 1


def test_a_long_loop_is_collapsed_with_a_note() -> None:
    data = data_of(
        "w = tensor(0.5, requires_grad=True)\ny = tensor(1.0)\nfor i in range(3000):\n    y = y * w + 0.001\ngrad y\n",
        "y",
    )
    assert len(data["nodes"]) <= MOST
    collapsed = [n for n in data["nodes"] if n["kind"] == "collapsed"]
    assert len(collapsed) == 1 and re.fullmatch(
        r"iterations \d+ to \d+ of the for on line 3: [\d,]+ nodes", collapsed[0]["title"]
    )
    assert any("drawn as one node" in note for note in data["notes"])
    assert len(data["backward"]["steps"]) == 6000  # every step still replays, inside the collapsed node too
    assert sum(s["node"] == collapsed[0]["id"] for s in data["backward"]["steps"]) > 1000
    assert any(n["copies"] for n in data["nodes"])  # w, used everywhere, is drawn beside each use


# ---- the page -------------------------------------------------------------------------------------
def write_page(tmp_path: Path, program: str, var: str, *options: str) -> Path:
    out = tmp_path / f"{var}.html"
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", "graph", program, "--var", var, "-o", str(out), *options],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return out


@needs_graphviz
def test_the_page_is_self_contained(tmp_path: Path) -> None:
    page = write_page(tmp_path, "programs/07_two_layer.dg", "loss").read_text()
    assert page.startswith("<!doctype html>") and "<svg" in page and '<g id="n4" class="node">' in page
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\(", page)  # nothing to fetch
    assert set(re.findall(r"https?://[^\s\"'<>]+", page)) <= {
        "http://www.w3.org/2000/svg",
        "http://www.w3.org/1999/xlink",
    }
    data = json.loads(re.search(r'<script type="application/json" id="dg-data">(.*?)</script>', page, re.S)[1])
    assert data["name"] == "loss" and len(data["backward"]["steps"]) == 6
    assert '<span class="line" id="s0-l12"><span class="no">12</span>h = relu(x @ W1 + b1)' in page


@needs_graphviz
def test_program_text_cannot_break_out_of_the_page(tmp_path: Path) -> None:
    program = tmp_path / "evil.dg"
    program.write_text(
        'x = tensor(1.0, requires_grad=True)\nnote = "</script><script>alert(1)</script><!--SCRIPT-->"\n'
        "y = x * 2   # </pre></section><img src=x onerror=alert(2)>\ngrad y\n"
    )
    page = write_page(tmp_path, str(program), "y").read_text()
    assert "<script>alert" not in page and "<img" not in page and page.count("</script>") == 2
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in page  # shown, as text, in the source beside the graph


# ---- in a real browser ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (.ci/run installs Debian's chromium)")
    if not can_draw():
        pytest.skip("neither Graphviz's dot nor graphviz-pure is installed")
    playwright = need("playwright.sync_api", "browser")
    with playwright.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield launched
        launched.close()


class Page:
    """A stepper page open in the browser, recording every request it makes and every error."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1300, "height": 850})
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.goto(path.as_uri())
        self.url = path.as_uri()

    def classes(self, element_id: str) -> set[str]:
        return set((self.page.get_attribute(f"[id='{element_id}']", "class") or "").split())

    def with_class(self, name: str) -> list[str]:
        return self.page.eval_on_selector_all(f"svg .{name}", "els => els.map(e => e.id)")

    def info(self) -> str:
        return self.page.inner_text("#info")

    def position(self) -> str:
        return self.page.inner_text("#position")

    def current_line(self) -> str:
        return self.page.inner_text(".line.current")

    def visible(self, element_id: str, text: str) -> bool:
        """Is the text line `text` of a node or edge shown (not hidden until its step)?"""
        return self.page.evaluate(
            """([id, text]) => [...document.getElementById(id).querySelectorAll('text')]
                 .some(t => t.textContent === text && getComputedStyle(t).visibility === 'visible')""",
            [element_id, text],
        )


@pytest.fixture(scope="module")
def lesson_07_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not can_draw():
        pytest.skip("neither Graphviz's dot nor graphviz-pure is installed")
    return write_page(tmp_path_factory.mktemp("stepper"), "programs/07_two_layer.dg", "loss")


@pytest.mark.slow  # a browser
def test_forward_steps_highlight_the_line_and_the_node_made(browser: Any, lesson_07_page: Path) -> None:
    page = Page(browser, lesson_07_page)
    assert page.position() == "before record 1 of 6"
    assert "n1" in page.with_class("future") and "n7" not in page.with_class("future")  # leaves exist already
    page.page.keyboard.press("ArrowRight")
    page.page.keyboard.press("ArrowRight")
    page.page.keyboard.press("ArrowRight")
    assert page.position() == "record 3 of 6"
    assert page.with_class("current") == ["n6"]
    assert page.current_line().startswith("12h = relu(x @ W1 + b1)")
    assert "made [6] h = Relu, shape (3,)" in page.info() and "value [1.5, 0.5, 0]" in page.info()
    assert {"n9", "n8"}.isdisjoint(page.with_class("future")) and "n4" in page.with_class("future")
    page.page.click("#prev")
    assert page.with_class("current") == ["n8"] and page.position() == "record 2 of 6"
    assert not page.visible("n8", "step 5: g = [-1, 2, 0]")  # forward shows no gradients
    assert page.errors == [] and page.requests == [page.url]


@pytest.mark.slow  # a browser
def test_backward_steps_show_the_gradient_the_rule_and_the_numbers(browser: Any, lesson_07_page: Path) -> None:
    page = Page(browser, lesson_07_page)
    page.page.click("#mode-backward")
    assert page.page.get_attribute("#mode-backward", "aria-pressed") == "true"
    assert page.position() == "start" and page.with_class("current") == ["n1"]
    assert page.current_line().startswith("15grad loss")
    assert not page.visible("e4_1", "= [-1.5, -0.5, 0]")  # nothing sent yet
    page.page.fill("#slider", "3")  # the slider jumps
    page.page.dispatch_event("#slider", "input")
    assert page.position() == "step 3 (3 of 6)"
    assert page.with_class("current") == ["n4"]
    assert sorted(page.with_class("active")) == ["e4_0", "e4_1"]
    assert {"n1", "n2"} <= set(page.with_class("done")) and "n4" not in page.with_class("done")
    assert page.with_class("received") == ["n7"]  # w2 has received its gradient
    info = page.info()
    assert "[4] y = MatMul receives g = -1" in info
    assert "b: aᵀ @ g = [1.5, 0.5, 0]ᵀ @ (-1) = [-1.5, -0.5, 0] to [7] w2" in info
    assert "w2 has received [-1.5, -0.5, 0]" in info
    assert page.visible("e4_1", "= [-1.5, -0.5, 0]") and page.visible("n4", "step 3: g = -1")
    assert not page.visible("n6", "step 4: g = [-1, 2, -3]")  # the next step has not happened
    page.page.keyboard.press("End")
    assert page.position() == "into .grad"
    assert "W1.grad += [[-1, 2, 0], [-2, 4, 0]], now [[-1, 2, 0], [-2, 4, 0]]" in page.info()
    assert set(page.with_class("current")) == {"n7", "n10", "n12"}
    assert {"n1", "n2", "n4", "n6", "n8", "n9"} <= set(page.with_class("done"))
    page.page.keyboard.press("Home")
    page.page.keyboard.press("f")
    assert page.position() == "before record 1 of 6"  # each mode keeps its own place
    page.page.keyboard.press("b")
    assert page.position() == "start"
    assert page.errors == [] and page.requests == [page.url]


@pytest.mark.slow  # a browser
def test_the_controls_are_usable_from_the_keyboard(browser: Any, lesson_07_page: Path) -> None:
    page = Page(browser, lesson_07_page)
    focused = []
    for _ in range(4):  # the mode buttons, then (first and previous are disabled at the start) next
        page.page.keyboard.press("Tab")
        focused.append(page.page.evaluate("document.activeElement.id"))
    assert focused == ["mode-forward", "mode-backward", "next", "last"]
    page.page.keyboard.press("Shift+Tab")
    page.page.keyboard.press("Enter")
    assert page.position() == "record 1 of 6"
    page.page.keyboard.press("Tab")
    page.page.keyboard.press("Tab")
    assert page.page.evaluate("document.activeElement.id") == "slider"
    page.page.keyboard.press("ArrowRight")  # the slider's own arrow keys move it one step
    assert page.position() == "record 2 of 6"
    assert page.page.get_attribute("#first", "aria-label") == "First step"
    assert page.page.get_attribute("#info", "aria-live") == "polite"  # each step is read out


def red_pixels(browser: Any, screenshot: bytes, box: dict[str, float]) -> int:
    """How many pixels of the screenshot, in `box` and a little around it, are the highlight red
    (counted in a blank page of its own, so the stepper's page makes no request for it)."""
    counter = browser.new_page()
    try:
        return counter.evaluate(
            """async ([src, x, y, w, h]) => {
                 const img = new Image(); img.src = src; await img.decode();
                 const canvas = document.createElement('canvas');
                 canvas.width = img.width; canvas.height = img.height;
                 const g = canvas.getContext('2d'); g.drawImage(img, 0, 0);
                 const d = g.getImageData(x, y, w, h).data;
                 let red = 0;
                 for (let i = 0; i < d.length; i += 4) if (d[i] > 180 && d[i+1] < 90 && d[i+2] < 90) red++;
                 return red;
               }""",
            [
                "data:image/png;base64," + base64.b64encode(screenshot).decode(),
                int(box["x"]) - 3,
                int(box["y"]) - 3,
                int(box["width"]) + 6,
                int(box["height"]) + 6,
            ],
        )
    finally:
        counter.close()


@pytest.mark.slow  # a browser
def test_screenshots_show_the_highlighted_node(browser: Any, lesson_07_page: Path, tmp_path: Path) -> None:
    page = Page(browser, lesson_07_page)
    page.page.click("#mode-backward")
    # the start (the seed at the output), then steps 1 to 3
    for position, (current, other) in enumerate([("n1", "n4"), ("n1", "n4"), ("n2", "n4"), ("n4", "n2")]):
        if position:
            page.page.keyboard.press("ArrowRight")
        shot = page.page.screenshot(path=str(tmp_path / f"position{position}.png"))
        boxes = {
            n: page.page.locator(f"[id='{n}'] path, [id='{n}'] polygon").first.bounding_box() for n in (current, other)
        }
        assert red_pixels(browser, shot, boxes[current]) > 100, f"position {position}: {current} is not drawn in red"
        # (a red edge ends at the other node's border: a few dozen pixels of it fall in that node's box)
        assert red_pixels(browser, shot, boxes[other]) < 60, f"position {position}: {other} is drawn in red"
        assert len(set(shot[::97])) > 50  # a page, not a blank
    assert "[4] y = MatMul receives g = -1" in page.info()
    assert page.requests == [page.url]


@pytest.mark.slow  # a browser
def test_a_graph_never_backpropagated_offers_forward_only(browser: Any, tmp_path: Path) -> None:
    program = tmp_path / "forward.dg"
    program.write_text("x = tensor(2.0, requires_grad=True)\ny = x * x + 1\n")
    page = Page(browser, write_page(tmp_path, str(program), "y"))
    assert page.page.is_disabled("#mode-backward")
    page.page.keyboard.press("b")
    assert page.page.get_attribute("#mode-forward", "aria-pressed") == "true"
    page.page.keyboard.press("End")
    assert page.position() == "record 2 of 2" and page.with_class("current") == ["n1"]
    assert page.errors == []


@pytest.mark.slow  # a browser
def test_a_big_graph_still_steps(browser: Any, tmp_path: Path) -> None:
    program = tmp_path / "long.dg"
    program.write_text(
        "w = tensor(0.5, requires_grad=True)\ny = tensor(1.0)\nfor i in range(3000):\n    y = y * w + 0.001\ngrad y\n"
    )
    page = Page(browser, write_page(tmp_path, str(program), "y"))
    assert "drawn as one node" in page.page.inner_text(".notes")
    page.page.keyboard.press("b")
    page.page.keyboard.press("End")
    assert page.position() == "into .grad" and "w.grad +=" in page.info()
    page.page.fill("#slider", "3000")
    page.page.dispatch_event("#slider", "input")
    collapsed = page.page.evaluate(
        "JSON.parse(document.getElementById('dg-data').textContent).nodes.find(n => n.kind === 'collapsed').id"
    )
    assert page.with_class("current") == [collapsed] and "(inside iterations" in page.info()
    assert page.errors == [] and page.requests == [page.url]


@pytest.mark.slow  # a browser
def test_an_op_made_in_a_module_highlights_the_module_s_line(browser: Any, tmp_path: Path) -> None:
    """The page holds each source a node came from, the imported module's under its own name, and a
    step through an op the module made marks the module's line."""
    (tmp_path / "layers.dg").write_text("def dense(x, w):\n    return relu(x @ w)\n")
    (tmp_path / "main.dg").write_text(
        "from layers import dense\nw = tensor([[1.0, -1.0]], requires_grad=True)\n"
        "y = dense(tensor([[2.0]]), w)\nloss = y.sum()\ngrad loss\n"
    )
    page = Page(browser, write_page(tmp_path, str(tmp_path / "main.dg"), "loss"))
    headings = page.page.eval_on_selector_all(".source-name", "els => els.map(e => e.textContent)")
    assert headings == [str(tmp_path / "main.dg"), os.path.join(str(tmp_path), "layers.dg")]
    page.page.keyboard.press("ArrowRight")  # the first op recorded: x @ w, in layers.dg
    assert page.current_line().startswith("2    return relu(x @ w)")
    assert page.page.get_attribute(".line.current", "id") == "s1-l2"  # the second source's line 2
    assert "layers.dg:2" in page.info() or "line 2" in page.info()
    assert page.errors == [] and page.requests == [page.url]


STATIC_PROGRAM = """\
def f(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 2
    return (y * y).sum()

fast = static(f)
x = tensor([1.0, 2.0], requires_grad=True)
first = fast(x)
out = fast(x)
grad out
"""


@pytest.mark.slow  # a browser
def test_a_static_call_s_generated_code_steps_line_by_line_beside_the_graph(browser: Any, tmp_path: Path) -> None:
    program = tmp_path / "fast.dg"
    program.write_text(STATIC_PROGRAM)
    listing = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", "static", str(program), "--fn", "f"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    ).stdout
    page = Page(browser, write_page(tmp_path, str(program), "out"))
    assert page.page.is_visible("#mode-static") and not page.page.is_visible("#listing-panel")
    page.page.keyboard.press("s")
    assert page.page.get_attribute("#mode-static", "aria-pressed") == "true"
    assert page.page.is_visible("#listing-panel") and not page.page.is_visible("#source-panel")
    shown = page.page.eval_on_selector_all("#listing-panel .line", "els => els.map(e => e.textContent)")
    assert "\n".join(shown) + "\n" == listing  # the listing as dg static prints it
    guard_line = next(i for i, text in enumerate(shown) if text.strip().startswith("guard bool("))
    mul_line = next(i for i, text in enumerate(shown) if "= Mul(t0," in text)
    for _ in range(guard_line + 1):
        page.page.keyboard.press("ArrowRight")
    assert page.current_line().strip().startswith("guard bool(")
    assert page.with_class("current") == ["s1g1"]  # the guard's diamond
    assert "guard x.sum() > 0 was True when traced" in page.info()
    assert "on failure: re-trace if x.sum() > 0 is False" in page.info()
    for _ in range(mul_line - guard_line):
        page.page.keyboard.press("ArrowRight")
    mul = page.page.evaluate(
        "JSON.parse(document.getElementById('dg-data').textContent).nodes.find(n => n.title === 'y = Mul').id"
    )
    assert page.with_class("current") == [mul] and "made [" in page.info() and "y = Mul: [2, 4]" in page.info()
    page.page.keyboard.press("f")  # back to the recording: the program's source again
    assert page.page.is_visible("#source-panel") and not page.page.is_visible("#listing-panel")
    assert page.errors == [] and page.requests == [page.url]


@pytest.mark.slow  # a browser
def test_a_function_call_drawn_as_a_box_steps_inside_it(browser: Any, tmp_path: Path) -> None:
    program = tmp_path / "boxes.dg"
    program.write_text(
        "def layer(x, w):\n    return relu(x @ w)\n\n"
        "w = tensor([[1.0, -1.0], [0.5, 2.0]], requires_grad=True)\n"
        "loss = layer(tensor([[1.0, 2.0]]), w).sum()\ngrad loss\n"
    )
    page = Page(browser, write_page(tmp_path, str(program), "loss", "--boxes"))
    assert not page.page.is_visible("#mode-static")  # no static call: no third mode
    box = page.page.evaluate(
        "JSON.parse(document.getElementById('dg-data').textContent).nodes.find(n => n.kind === 'call').id"
    )
    assert "layer() called at line 5" in page.page.text_content(f"[id='{box}']")
    page.page.keyboard.press("ArrowRight")  # the first op, x @ w, made inside the call
    assert page.with_class("current") == [box] and "(inside layer())" in page.info()
    page.page.click(f"[id='{box}']")  # opened: what it stands for, listed
    info = page.info()
    assert "Inside [" in info and "layer()" in info and "dg graph --open layer draws them" in info
    assert "Relu (1, 2) [[2, 3]]" in info and "MatMul (1, 2) [[2, 3]]" in info and "w (2, 2)" in info
    assert page.errors == [] and page.requests == [page.url]

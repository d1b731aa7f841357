"""A teacher's first minute with DG in JupyterLab, in a real browser: the launcher offers the DG
kernel, a new notebook runs `graph(y)`, and the picture appears in the page (SVG from Graphviz; the
text picture where Graphviz is missing); then a cell pauses at `breakpoint()`, and each command
typed in JupyterLab's input box shows its answer before the box asks for the next one. Debian's
Chromium, driven by Playwright; skipped only where Chromium is missing (.ci/run installs it).
Starting JupyterLab takes some seconds: one test."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_util import BROWSER_ARGS, CHROMIUM
from graph_util import can_draw
from kernel_util import write_kernelspec
from optional_tools import need

pytestmark = pytest.mark.slow  # JupyterLab in a browser
TOKEN = "dg-test"
CELL = "x = tensor(2.0, requires_grad=True)\ny = x * x + 1\ngrad y\ngraph(y)"
PAUSING = "a = 3\nbreakpoint()\nprint('went on with', a)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def jupyterlab(tmp_path: Path) -> Iterator[str]:
    """A JupyterLab server that knows only the DG kernel's kernelspec of this test; its address."""
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (.ci/run installs Debian's chromium)")
    need("ipykernel", "kernel")
    need("jupyterlab", "lab")
    write_kernelspec(tmp_path / "data")
    (tmp_path / "work").mkdir()
    port = free_port()
    env = {
        **os.environ,
        "JUPYTER_PATH": str(tmp_path / "data"),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),  # no settings or workspaces of the machine's
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
    }
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1"]
    command += [f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={tmp_path / 'work'}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    log = (tmp_path / "lab.log").open("w")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=5):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start:\n{(tmp_path / 'lab.log').read_text()}")
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def test_jupyterlab_runs_graph_y_in_a_dg_notebook_and_shows_the_picture_and_the_debugger(jupyterlab: str) -> None:
    playwright = need("playwright.sync_api", "browser")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{jupyterlab}/lab/workspaces/dg-test?reset&token={TOKEN}")
            page.locator('.jp-LauncherCard[title="DG"]').first.click(timeout=120_000)  # a notebook with DG
            page.get_by_text("DG | Idle").wait_for(timeout=120_000)
            page.locator(".jp-Notebook .jp-Cell .cm-content").first.click()
            page.keyboard.type(CELL)
            page.keyboard.press("Shift+Enter")
            if can_draw():
                picture = page.locator('.jp-RenderedSVG img[src^="data:image/svg+xml"]').first
                picture.wait_for(timeout=60_000)
                svg = urllib.parse.unquote(picture.get_attribute("src") or "")
                assert "<svg" in svg and "x * x + 1" in svg and "requires grad" in svg
                assert picture.bounding_box()["height"] > 100  # type: ignore[index]
            else:
                page.locator(".jp-OutputArea-output pre", has_text="graph of y: 4 nodes").wait_for(timeout=60_000)
            the_debugger_answers_before_asking_again(page)
        finally:
            browser.close()


def the_debugger_answers_before_asking_again(page: Any) -> None:
    """At the `(dg)` prompt, `a` shows 3 while the input box waits for the next command (it showed
    only once the next command was typed), `a * 10` shows 30, and `:continue` lets the cell end."""
    page.locator(".jp-Notebook .jp-Cell .cm-content").nth(1).click()
    page.keyboard.type(PAUSING)
    page.keyboard.press("Shift+Enter")
    cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
    boxes = cell.locator(".jp-Stdin-input")  # an answered box stays in the output, the new one below it
    for asked, (command, answer) in enumerate([("a", "3"), ("a * 10", "30"), (":continue", None)]):
        box = boxes.nth(asked)
        box.wait_for(timeout=60_000)
        box.fill(command)
        box.press("Enter")
        if answer is not None:  # shown while the next box waits: nothing more is typed until then
            boxes.nth(asked + 1).wait_for(timeout=60_000)
            shown = lines_shown(cell, lambda lines, answer=answer: answer in lines)
            assert answer in shown, f"`{command}` did not show {answer} before the next command: {shown}"
    assert "went on with 3" in lines_shown(cell, lambda lines: "went on with 3" in lines)


def lines_shown(cell: Any, done: Callable[[list[str]], bool], seconds: float = 30) -> list[str]:
    """The lines of the cell's output once `done` holds of them, or after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        lines = [line.strip() for line in cell.locator(".jp-OutputArea").inner_text().splitlines()]
        if done(lines) or time.monotonic() > deadline:
            return lines
        time.sleep(0.2)

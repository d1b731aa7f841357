"""stepper-page: how long the stepper's page of one training step of the tiny GPT takes to open.

Writes the page with `dg graph` (programs/18_tiny_gpt.dg with its training loop cut to one step,
importing programs/nn.dg), then opens it in Chromium through Playwright (the browser the tests
use: tests/support/browser_util.py) and times, for each of `--repeats` fresh pages, from asking
for the file to the stepper's first step drawn (its position shown), and the first move backward.
Needs the `browser` dependency group and a Chromium: `uv run --group browser python
bench/stepper_page.py`. Nothing here is a test: the figures go to docs/performance.md.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from browser_util import BROWSER_ARGS, CHROMIUM  # noqa: E402


def one_step_program(folder: Path) -> Path:
    text = (ROOT / "programs" / "18_tiny_gpt.dg").read_text(encoding="utf-8")
    cut = text.replace("for step in range(1, 1001):", "for step in range(1, 2):")
    cut = cut[: cut.index("plot(losses")]  # the step is what is drawn: no sample, no validation
    assert cut != text
    program = folder / "gpt_step.dg"
    program.write_text(cut, encoding="utf-8")
    return program


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        program, page_path = one_step_program(folder), folder / "gpt_step.html"
        start = time.perf_counter()
        command = [sys.executable, "-m", "dglang.interpreter", "graph", str(program), "--var", "loss"]
        subprocess.run(
            [*command, "--lib", str(ROOT / "programs"), "-o", str(page_path)],
            check=True,
            capture_output=True,
        )
        written = time.perf_counter() - start
        size = page_path.stat().st_size
        opened, stepped = [], []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
            for _ in range(args.repeats):
                page = browser.new_page(viewport={"width": 1300, "height": 850})
                start = time.perf_counter()
                page.goto(page_path.as_uri())
                page.wait_for_selector("#position:not(:empty)")
                opened.append(time.perf_counter() - start)
                start = time.perf_counter()
                page.keyboard.press("b")
                page.keyboard.press("End")
                page.wait_for_function("document.getElementById('position').textContent === 'into .grad'")
                stepped.append(time.perf_counter() - start)
                page.close()
            browser.close()
    print(f"page written by dg graph (running the program, drawing) in {written:.1f} s, {size / 1000:.0f} kB")
    print(f"opened in Chromium: median {statistics.median(opened):.2f} s, slowest {max(opened):.2f} s")
    print(f"backward to its last step: median {statistics.median(stepped) * 1000:.0f} ms")


if __name__ == "__main__":
    main()

"""The docs cannot drift: every ```console block in README.md and docs/*.md starts with `$ command`,
and the command's output must be exactly the rest of the block. `dg` means this checkout's DG."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```console\n\$ (?P<command>[^\n]*)\n(?P<output>.*?)```", re.DOTALL)
DG = f"{shlex.quote(sys.executable)} -m interpreter"


def console_blocks() -> list[tuple[str, str, str]]:
    return [(doc.name, m["command"], m["output"]) for doc in DOCS for m in BLOCK.finditer(doc.read_text())]


BLOCKS = console_blocks()


@pytest.mark.parametrize(("doc", "command", "output"), BLOCKS, ids=[f"{d}: {c[:50]}" for d, c, _ in BLOCKS])
def test_console_block_output(doc: str, command: str, output: str) -> None:
    shell = re.sub(r"(^|\| )dg ", lambda m: f"{m.group(1)}{DG} ", command)
    result = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.stdout == output, f"{doc}: `{command}` printed:\n{result.stdout}\n{result.stderr}"


def test_there_are_console_blocks() -> None:
    assert len(BLOCKS) >= 5

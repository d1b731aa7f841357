"""Every help line that names a DG function names one that exists.

The help lines are read from the source: every `help=` given to an error (DGError, the engine's
errors, syntax-error messages), and every text in the hints (interpreter/semantics/hints.py and
interpreter/library/habits.py).
Each `name(` in them must be a builtin of a session (the tools' too), and each `.name(` a tensor
method, unless the text defines the name itself (`def f(`) or names what DG leaves out on
purpose (PyTorch's `.cuda()`: "leave `.cuda()` out"). The help lines written from what the program
said (`torch.cat(...)` -> `cat(...)`) are run, and the names they give are checked the same way.
"""

from __future__ import annotations

import ast
import io
import re
from pathlib import Path

import pytest

from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.library.attributes import TENSOR_METHODS
from dglang.interpreter.library.keyword_help import KEYWORDS

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*ROOT.glob("interpreter/**/*.py"), *ROOT.glob("autograd/*.py")])
CALL = re.compile(r"(?<![\w.])(\.?)([A-Za-z_]\w*)\(")
# PyTorch methods a help line tells the program to leave out, by name
LEFT_OUT = {".cuda", ".to", ".float", ".double"}


def help_texts() -> list[tuple[str, str]]:
    found = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = str(path.relative_to(ROOT))
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "help":
                found += [(where, c.value) for c in ast.walk(node.value) if isinstance(c, ast.Constant)]
            elif path.name in ("hints.py", "habits.py") and isinstance(node, ast.Constant):
                found.append((where, node.value))
    return [(where, text) for where, text in found if isinstance(text, str)]


BUILTINS = new_session(out=io.StringIO()).builtins.vars


def unknown_names(text: str) -> list[str]:
    defined = set(re.findall(r"def (\w+)\(", text))
    unknown = []
    for dot, name in CALL.findall(text):
        if name in defined or dot + name in LEFT_OUT or name in KEYWORDS or len(name) == 1:  # f(x): a placeholder
            continue
        if not (name in TENSOR_METHODS if dot else name in BUILTINS or name in TENSOR_METHODS):
            unknown.append(dot + name)
    return unknown


def test_the_source_holds_help_lines_to_check() -> None:
    texts = help_texts()
    assert len(texts) > 150 and sum(bool(CALL.search(t)) for _, t in texts) > 40


def test_every_help_line_names_functions_that_exist() -> None:
    wrong = [f"{where}: {name} in {text!r}" for where, text in help_texts() for name in unknown_names(text)]
    assert not wrong, "\n".join(wrong)


def test_an_unknown_name_is_caught() -> None:
    assert unknown_names("write `autograd(y, x)`") == ["autograd"]
    assert unknown_names("use `.view(2, 3)`") == [".view"]
    assert unknown_names("write `gradient(y, x)` or `x.reshape(2, 3)`, or def f(x): ...; f(1)") == []


@pytest.mark.parametrize(
    "line",
    [
        "y = torch.autograd.grad(x.sum(), x)",
        "y = torch.cat([x, x])",
        "y = torch.exp(x)",
        "y = torch.manual_seed(0)",
        "y = np.array([1.0])",
        "y = F.relu(x)",
        "y = torch.linalg.norm(x)",
        "y = x.unsqueeze(0).view(2)",
    ],
)
def test_a_help_line_written_from_the_program_names_what_exists(line: str) -> None:
    out = io.StringIO()
    session = new_session(out=out)
    session.run("x = ones(2, requires_grad=True)\n")
    with pytest.raises(Exception) as caught:
        session.run(line + "\n")
    help_line = getattr(caught.value, "help", None)
    assert help_line, f"{line}: no help line"
    assert not unknown_names(help_line), f"{line}: {help_line}"

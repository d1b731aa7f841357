"""Which `.dg` file of a submission's copy is its program: the one named with --entry, else the
only candidate, else, when the program is split over files that import each other, the one no
other file imports.

A candidate is any `.dg` file but a tests file: one that imports `submission` and defines
`test_...` functions at its top level. That is the handout's tests file a student hands in beside
the program (or tests of their own written the same way): run as the program, it would import
itself as `submission`. The files are read, not parsed, here in the grader: only the lines that
start with `import`, `from` or `def test_` count, as no DG runs on a student's files outside a worker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePath

from dglang.interpreter.diagnostics.escaping import shown_name

from .collecting import PREFIX, SUBMISSION
from .submissions import Copied, SubmissionProblem

IMPORTED = re.compile(r"^[ \t]*(?:import[ \t]+([\w \t,]+)|from[ \t]+(\w+)[ \t]+import\b)", re.MULTILINE)
TEST_DEF = re.compile(rf"^def[ \t]+{PREFIX}", re.MULTILINE)  # at the top level: column 1
MAX_SCANNED = 1 << 20  # bytes of each file looked at: as much as DG would read of a program


@dataclass(frozen=True)
class Scanned:
    """What a file's lines say of it: the modules it imports, and whether it defines tests."""

    imports: frozenset[str]
    defines_tests: bool

    @property
    def is_tests_file(self) -> bool:
        return SUBMISSION in self.imports and self.defines_tests


def find_program(copied: Copied, folder: Path, entry: str | None) -> PurePath:
    """The program to run in a submission's copy (in `folder`); SubmissionProblem says why there is none."""
    programs = sorted(copied.programs)
    notes = f"\n{copied.notes()}" if copied.left_out else ""
    if entry is not None:
        return named(programs, entry, notes)
    if not programs:
        raise SubmissionProblem(f"the submission has no .dg file{notes}")
    scanned = {p: scan(folder / p) for p in programs}
    candidates = [p for p in programs if not scanned[p].is_tests_file]
    if not candidates:
        are = "is a tests file" if len(programs) == 1 else "are tests files"
        raise SubmissionProblem(
            f"the submission has no program: {listing(programs)} {are} (importing {SUBMISSION}, defining "
            f"{PREFIX}... functions), which the grader runs on the program; hand in the program beside it"
        )
    if len(candidates) == 1:
        return candidates[0]
    imported = set().union(*(scanned[p].imports for p in candidates))
    roots = [p for p in candidates if p.stem not in imported]
    if len(roots) == 1:
        return roots[0]
    raise SubmissionProblem(
        f"the submission has several .dg files ({listing(candidates)}) and not one that imports the "
        "others; submit only the one to grade (or the teacher names it with --entry)"
    )


def named(programs: list[PurePath], entry: str, notes: str) -> PurePath:
    """The file `--entry` names: one at the top beats others deeper down."""
    found = [p for p in programs if p.name == entry]
    if len(found) > 1:
        found = [p for p in found if len(p.parts) == 1] or found
    if len(found) == 1:
        return found[0]
    if not found:
        raise SubmissionProblem(f"the submission has no file named {entry}{notes}")
    raise SubmissionProblem(f"the submission has several files named {entry}: {listing(found)}")


def scan(path: Path) -> Scanned:
    """The imports and tests a file's lines show (nothing, if it cannot be read: it will say so when run)."""
    try:
        with path.open("rb") as f:
            text = f.read(MAX_SCANNED).decode("utf-8", "replace")
    except OSError:
        return Scanned(frozenset(), False)
    imports = set()
    for names, module in IMPORTED.findall(text):
        imports.update(n.strip() for n in (names.split(",") if names else [module]) if n.strip())
    return Scanned(frozenset(imports), TEST_DEF.search(text) is not None)


def listing(paths: list[PurePath]) -> str:
    names = [shown_name(str(p)) for p in paths]
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")

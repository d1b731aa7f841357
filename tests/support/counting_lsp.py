"""`dg lsp` with its work counted (work_counts.py), for tests that hold the server to work in
proportion to a document's length rather than to a clock:

    python tests/support/counting_lsp.py COUNTS_FILE

After each reading of a document (documents.py's, in the reading thread) a line of JSON goes to
COUNTS_FILE: what that reading cost, before its diagnostics are sent."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import work_counts

from dglang.interpreter.frontends import cli
from dglang.interpreter.frontends.lsp import documents


def counted_readings(counts_file: Path) -> None:
    analyze = documents.analyze

    def counted(*args: Any) -> Any:
        work_counts.COUNTS.clear()
        try:
            return analyze(*args)
        finally:
            with counts_file.open("a") as out:
                out.write(json.dumps(dict(work_counts.COUNTS)) + "\n")

    documents.analyze = counted  # type: ignore[assignment]


if __name__ == "__main__":
    work_counts.install()
    counted_readings(Path(sys.argv[1]))
    sys.exit(cli.main(["lsp", "--stdio"]))

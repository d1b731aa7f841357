"""Rewrite the ```text block under each ```dg block in docs/*.md with what the block prints now.

    uv run python tests/project/update_doc_outputs.py

For after a change that alters what examples print (an error message, a number format). Then read
`git diff docs/`: every changed output must still say what the prose around it claims.
"""

from __future__ import annotations

import re

from test_docs import DG_BLOCK, DOCS, run_example


def refreshed(match: re.Match[str]) -> str:
    """The block with its output block as the code prints it now (none if it prints nothing)."""
    if match["mark"].strip().startswith("from "):  # part of a file shown as it is: it prints nothing itself
        return match.group(0)
    printed, error = run_example(match["code"])
    if (error is not None) != (match["mark"].strip() == "error"):
        where = "stopped with an error" if error is not None else "ran without the error it is marked with"
        print(f"check this example, it {where}:\n{match['code']}{printed}")
    output = f"\n```text\n{printed}```\n" if printed else ""
    return f"```dg{match['mark']}\n{match['code']}```\n{output}"


def main() -> None:
    for doc in DOCS[1:]:
        text = doc.read_text()
        updated = DG_BLOCK.sub(refreshed, text)
        if updated != text:
            doc.write_text(updated)
            print(f"updated {doc.name}")


if __name__ == "__main__":
    main()

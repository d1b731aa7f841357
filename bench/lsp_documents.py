"""How long `dg lsp` takes to answer on large and deep documents, through a real pipe.

    uv run python bench/lsp_documents.py            # each document once: the table in docs/performance.md
    uv run python bench/lsp_documents.py --repeats 3

For each document: the seconds from opening it to its diagnostics, then to the answer of an
outline (documentSymbol), a hover and a completion request sent after the diagnostics came. The
documents (CASES) are also tests/promises/test_lsp_large_documents.py's, each with what its answers
must say.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

# ---- the documents ------------------------------------------------------------------------------


def one_f_string() -> str:
    """One f-string of a megabyte: 90,000 placeholders."""
    return 'x = 1.5\ns = f"' + "ab {x} cd {x:.2f} " * 45_000 + '"\nprint(s)\n'


def names() -> str:
    """2,500 names defined and 2,500 names used that nothing defines."""
    defined = "".join(f"defined_name_{i} = {i}\n" for i in range(2500))
    return defined + "".join(f"print(unknown_thing_{i})\n" for i in range(2500))


def assignments() -> str:
    """40,000 top-level assignments (about 870 kB)."""
    return "".join(f"variable_{i} = {i}\n" for i in range(40_000))


def nested_functions() -> str:
    """200 functions, each defined inside the one before."""
    return "".join("    " * i + f"def f{i}(a{i}):\n" for i in range(200)) + "    " * 200 + "return 1\n"


def broken_lines() -> str:
    """5,000 lines of the same mistake (40 kB): every one an error to read past."""
    return "x = = 1\n" * 5000


def no_problems(problems: list[Any], symbols: list[Any], hover: Any) -> None:
    assert problems == [], problems[:3]


def check_names(problems: list[Any], symbols: list[Any], hover: Any) -> None:
    assert len(problems) == 100  # the editor's list is cut at the first hundred
    assert problems[0].message.startswith("NameError: name 'unknown_thing_0' is not defined")
    assert len(symbols) == 2500


def check_assignments(problems: list[Any], symbols: list[Any], hover: Any) -> None:
    assert problems == [] and len(symbols) == 40_000
    assert symbols[-1].name == "variable_39999" and symbols[-1].range.start.line == 39_999


def check_nested(problems: list[Any], symbols: list[Any], hover: Any) -> None:
    assert problems == [] and symbols[0].name == "f0" and hover is not None


def check_broken(problems: list[Any], symbols: list[Any], hover: Any) -> None:
    assert len(problems) == 100  # the editor's list is cut at the first hundred
    assert problems[99].message == "SyntaxError: unexpected '='; expected an expression"
    assert problems[99].range.start.line == 99


CASES: dict[str, tuple[str, Callable[[list[Any], list[Any], Any], None]]] = {
    "one f-string of 1 MB": (one_f_string(), no_problems),
    "2,500 unknown among 2,500 defined names": (names(), check_names),
    "40,000 assignments": (assignments(), check_assignments),
    "200 nested functions": (nested_functions(), check_nested),
    "5,000 broken lines": (broken_lines(), check_broken),
}


# ---- measuring ----------------------------------------------------------------------------------
class Server:
    """`dg lsp` in a process of its own, spoken to in raw JSON-RPC: the time measured is the server's
    and the pipe's, not a client library's turning 10 MB of JSON into objects."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dglang.interpreter", "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.next_id = 0

    def send(self, method: str, params: Any, request: bool = True) -> int | None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return message.get("id")

    def receive(self) -> dict[str, Any]:
        out = self.process.stdout
        assert out is not None
        length = 0
        while (line := out.readline().strip()) != b"":
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(out.read(length))

    def until(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while not wanted(message := self.receive()):
            pass
        return message

    def ask(self, method: str, params: Any) -> dict[str, Any]:
        number = self.send(method, params)
        return self.until(lambda m: m.get("id") == number and "method" not in m)

    def close(self) -> None:
        self.ask("shutdown", None)
        self.send("exit", None, request=False)
        self.process.wait(timeout=30)


def measure(text: str) -> dict[str, float]:
    uri = "file:///bench/document.dg"
    document, at = {"uri": uri}, {"line": 0, "character": 1}
    server = Server()
    times = {}
    try:
        server.ask("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        server.send("initialized", {}, request=False)
        start = time.perf_counter()
        item = {"uri": uri, "languageId": "dg", "version": 1, "text": text}
        server.send("textDocument/didOpen", {"textDocument": item}, request=False)
        server.until(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        times["diagnostics"] = time.perf_counter() - start
        for name, method in (
            ("outline", "textDocument/documentSymbol"),
            ("hover", "textDocument/hover"),
            ("completion", "textDocument/completion"),
        ):
            start = time.perf_counter()
            server.ask(method, {"textDocument": document, "position": at})
            times[name] = time.perf_counter() - start
    finally:
        server.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    print(f"{'document':<42} {'kB':>5} {'diagnostics':>12} {'outline':>8} {'hover':>7} {'completion':>11}")
    for name, (text, _) in CASES.items():
        runs = [measure(text) for _ in range(args.repeats)]
        median = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        print(
            f"{name:<42} {len(text.encode()) // 1000:>5} {median['diagnostics']:>11.2f}s {median['outline']:>7.2f}s"
            f" {median['hover']:>6.2f}s {median['completion']:>10.2f}s"
        )


if __name__ == "__main__":
    main()

"""Gradescope's results.json, as its autograder specification documents it
(https://gradescope-autograders.readthedocs.io/en/latest/specs/, "Output format"): the fields it
lists, the types their examples have, and the values it names for status, visibility and format.
`problems(results)` lists every way a results file departs from it; an empty list means it follows."""

from __future__ import annotations

from typing import Any

VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}
STATUS = {"passed", "failed"}
TOP = {
    "score": "number",
    "execution_time": "number",
    "output": "string",
    "output_format": "format",
    "test_output_format": "format",
    "test_name_format": "format",
    "visibility": "visibility",
    "stdout_visibility": "visibility",
    "extra_data": "object",
    "tests": "tests",
    "leaderboard": "leaderboard",
}
TEST = {
    "score": "number",
    "max_score": "number",
    "status": "status",
    "name": "string",
    "name_format": "format",
    "number": "string",
    "output": "string",
    "output_format": "format",
    "tags": "strings",
    "visibility": "visibility",
    "extra_data": "object",
}


def problems(results: Any) -> list[str]:
    if not isinstance(results, dict):
        return ["results.json must hold an object"]
    found = check(results, TOP, "")
    tests = results.get("tests")
    if "score" not in results and (not isinstance(tests, list) or any("score" not in t for t in tests)):
        found.append("a score is required at the top level or on every test")
    if isinstance(tests, list):
        for i, test in enumerate(tests):
            if not isinstance(test, dict):
                found.append(f"tests[{i}] must be an object")
                continue
            found += check(test, TEST, f"tests[{i}].")
    return found


def check(data: dict[str, Any], fields: dict[str, str], where: str) -> list[str]:
    found = []
    for key, value in data.items():
        kind = fields.get(key)
        if kind is None:
            found.append(f"{where}{key} is not a field of the specification")
        elif not fits(value, kind):
            found.append(f"{where}{key} should be {kind}, not {value!r}")
    return found


def fits(value: Any, kind: str) -> bool:
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "string":
        return isinstance(value, str)
    if kind in ("format", "visibility", "status"):
        return isinstance(value, str) and value in {"format": FORMATS, "visibility": VISIBILITY, "status": STATUS}[kind]
    if kind == "object":
        return isinstance(value, dict)
    if kind == "tests":
        return isinstance(value, list)
    if kind == "strings":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return isinstance(value, list) and all(isinstance(e, dict) and isinstance(e.get("name"), str) for e in value)

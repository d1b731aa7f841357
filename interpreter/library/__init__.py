"""The library: what DG's values are and what they can do. Functions and scopes (`runtime.py`),
operators on numbers and tensors (`operators.py`), the attributes and methods a program may reach
(`attributes.py`), the builtins (`builtin_table.py`, with Python's own in `python_functions.py`),
and the help text for every name (`help.py`, `keyword_help.py`).

This is all of Python a DG program can reach: anything not named here does not exist for it.
"""

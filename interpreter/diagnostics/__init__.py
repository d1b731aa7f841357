"""What every stage shares to talk about a program: its text with spans into it (`source.py`),
errors as data (`errors.py`: a kind, a message, a span, the DG call stack, maybe a help line),
and the one formatter that turns an error into the text a person reads (`report.py`).

In: nothing of DG's own. Out: `Source`, `Span`, `DGError`, `format_error`. Every other folder of
the interpreter may import this one; it imports none of them.
"""

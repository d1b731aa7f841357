"""`dg lsp`: the language server editors start (LSP over standard input and output, with pygls).

What it knows of a document comes from reading it the way `dg` does before a run, never running it
(an editor may open anyone's file):
- analysis.py   read the text as `dg` would (the syntax and static errors), then the checks
- checks.py     what the text alone shows will fail: unknown names, wrong argument counts
- symbols.py    the functions, parameters and variables a program defines, and where
- answers.py    hover, completion and go-to-definition, as plain data
- documents.py  the open documents: their lines as DG counts them, their readings (in a thread)
- server.py     the protocol: pygls's server, positions and ranges in the editor's units
- command.py    `dg lsp` itself, and what it says when pygls is not installed
"""

import logging

# What the server logs goes where `dg lsp` sends it (its log, standard error); where no one set a
# place (`dg check`, `dg FILE` reading on after an error) it goes nowhere, never to the user.
logging.getLogger(__name__).addHandler(logging.NullHandler())

"""DG: a small language for learning how automatic differentiation works.

Installed, this folder is the `dglang` package: `dglang.autograd` (the engine, usable from Python
on its own), `dglang.interpreter` (the language and its tools) and `dglang.grammar` (dg.lark).
The command is `dg`.
"""

__version__ = "0.1.0"

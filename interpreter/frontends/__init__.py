"""What a person talks to: the `dg` command, the REPL (at a terminal and through a pipe) and the
debugger at a `breakpoint()`.
"""

from dglang.interpreter.host import blas_start

blas_start.before_numpy()  # NumPy's BLAS loads with one thread; DG gives a large product more

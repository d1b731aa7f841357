"""What a person talks to: the `dg` command, the REPL (at a terminal and through a pipe) and the
debugger at a `breakpoint()`.
"""

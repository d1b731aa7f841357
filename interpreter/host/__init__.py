"""The host: what wraps the pure stages so that anyone's program can be run safely.

A `Session` (`session.py`) holds a program's globals between runs and runs text through the
pipeline (../pipeline.py) under its limits. The stages never name a limit; the host's modules
put them around a run and take them away after it:

    limits.py           what a run may use (steps, time, memory, output) and what DG will read
                        (at most 1 MiB of text)
    limited_run.py      one run, start to end: budgets afresh, the engine's listeners and memory
                        ceiling, the watchdog started and surely stopped, the error reported; and
                        Python's recursion limit, cycle collector and NumPy's error state, for
                        compiling and for running
    watchdog.py         the thread that stops a run past its --timeout or --max-memory
                        (reading the process's memory on each OS with memory.py)
    guards.py           the hooks the engine asks before every large result (a tensor's size,
                        the memory left) and every long matrix product (computed in slices)
"""

"""The host: what wraps the pure stages so that anyone's program can be run safely.

A `Session` (`session.py`) holds a program's globals between runs and runs text through the
pipeline (../pipeline.py) under the limits of `limits.py`: steps, wall-clock time and memory
(watched from another thread by `watchdog.py`), output, and program size. The stages never name a
limit; the host installs them around a run and takes them away after. `bounded.py` holds work
that is not a run (printing a tree, drawing a graph, copying a state for a test) to the same
time and memory limits.
"""

"""The host: what wraps the pure stages so that anyone's program can be run safely.

A `Session` (`session.py`) holds a program's globals between runs and runs text through the
pipeline (../pipeline.py) under the limits of `limits.py`: steps, wall-clock time and memory
(watched from another thread by `watchdog.py`, read on each OS by `memory.py`), output, and
program size. The engine asks `guards.py` before every large result (the size of a tensor, the
memory left) and every long matrix product (computed in slices). The stages never name a limit;
the host installs them around a run and takes them away after.
"""

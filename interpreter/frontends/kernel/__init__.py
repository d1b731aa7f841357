"""DG in Jupyter: a kernel on ipykernel's wrapper-kernel API (the optional extra `jupyter`).

- `kernel.py`: the kernel, one DG session per kernel; each cell runs as a REPL cell.
- `output.py`: what a cell shows: streamed print output, the final expression's value, pictures, errors.
- `inspection.py`: Tab completion and Shift-Tab help, from the REPL's completion and `:help` data.
- `install.py`: the kernelspec, for `dg kernel install` (the package's wheel installs it too).
- `notebooks.py`: the lessons in programs/ as notebooks (`python -m dglang.interpreter.frontends.kernel.notebooks`).
- `__main__.py`: what the kernelspec starts, with DG's limits as options.
"""

"""The suite's folders: one per layer (engine/, language/, seeing/, frontends/), promises/ for what
holds across them (limits, the sandbox, fuzzing), project/ for the repository as a whole; the
helpers they share are in support/, expected outputs in golden/.

Helpers are imported by their module name (`from graph_util import graph_behind`): support/ is on
the path for every test.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

# One BLAS thread, here and in every DG process a test starts (they inherit the environment), set
# before NumPy is first imported: OpenBLAS's threads spin while they wait for work, and on a busy
# machine that made the lessons take several times the processor time, and longer (docs/performance.md).
for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")

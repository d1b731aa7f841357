"""The suite's folders: one per layer (engine/, language/, seeing/, frontends/), promises/ for what
holds across them (limits, the sandbox, fuzzing), project/ for the repository as a whole; the
helpers they share are in support/, expected outputs in golden/.

Helpers are imported by their module name (`from graph_util import graph_behind`): support/ is on
the path for every test, and so is the repository's tools/ (the writers of the files made from the
op declarations, which tests/project/test_generated.py runs).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))
sys.path.insert(1, str(Path(__file__).resolve().parents[1] / "tools"))

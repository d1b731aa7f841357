"""`python -m dglang.interpreter` is the `dg` command."""

import sys

from .frontends.cli import main

sys.exit(main())

"""`python -m dglang.interpreter` is the `dg` command."""

import sys

from dglang.interpreter.frontends.cli import main

sys.exit(main())

"""`python -m interpreter` is the `dg` command."""

import sys

from .cli import main

sys.exit(main())

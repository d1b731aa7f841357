"""What the kernelspec starts: `python -m dglang.interpreter.frontends.kernel -f CONNECTION_FILE`,
with DG's limits as options after it (`--timeout 60 --max-memory 2G`), and the folders of modules
cells may import (`--lib DIR`; `dg kernel install` writes them into the kernelspec)."""

from __future__ import annotations

import argparse
import sys

from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.frontends.missing import MissingPackage, need
from dglang.interpreter.frontends.options import library_option, limit_options, limits_from
from dglang.interpreter.host.limits import DEFAULT_MAX_OUTPUT


def settings_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m dglang.interpreter.frontends.kernel", add_help=False)
    limit_options(p, default_output=DEFAULT_MAX_OUTPUT)
    library_option(p)
    return p


def main(argv: list[str] | None = None) -> None:
    try:
        kernelapp = need("ipykernel.kernelapp", "python -m dglang.interpreter.frontends.kernel", "jupyter")
    except MissingPackage as e:  # Jupyter started the kernel in a Python without ipykernel
        sys.stderr.write(format_error(e))
        raise SystemExit(69) from None
    from .kernel import DGKernel, Settings

    args, rest = settings_parser().parse_known_args(argv)
    DGKernel.settings = Settings(limits_from(args), args.max_depth, args.lib)
    kernelapp.IPKernelApp.launch_instance(argv=rest, kernel_class=DGKernel)


if __name__ == "__main__":
    main()

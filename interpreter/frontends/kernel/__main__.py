"""What the kernelspec starts: `python -m dglang.interpreter.frontends.kernel -f CONNECTION_FILE`,
with DG's limits as options after it (`--timeout 60 --max-memory 2G`), and the folders of modules
cells may import (`--lib DIR`; `dg kernel install` writes them into the kernelspec)."""

from __future__ import annotations

import argparse

from dglang.interpreter.frontends.options import library_option, limit_options, limits_from
from dglang.interpreter.host.limits import DEFAULT_MAX_OUTPUT


def settings_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m dglang.interpreter.frontends.kernel", add_help=False)
    limit_options(p, default_output=DEFAULT_MAX_OUTPUT)
    library_option(p)
    return p


def main(argv: list[str] | None = None) -> None:
    from ipykernel.kernelapp import IPKernelApp

    from .kernel import DGKernel, Settings

    args, rest = settings_parser().parse_known_args(argv)
    DGKernel.settings = Settings(limits_from(args), args.max_depth, args.lib)
    IPKernelApp.launch_instance(argv=rest, kernel_class=DGKernel)


if __name__ == "__main__":
    main()

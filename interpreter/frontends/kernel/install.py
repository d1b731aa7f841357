"""`dg kernel install`: the DG kernelspec, for the Jupyter of this Python (`--sys-prefix`), of the user
(`--user`) or of the whole machine (the default, as `jupyter kernelspec install` has it).

The package's wheel installs the same kernelspec (kernelspec/kernel.json, as setuptools data-files
into share/jupyter/kernels/dglang); this command is for an editable checkout, another Jupyter, or
limits of the teacher's choosing (`dg kernel install --user --timeout 60 --max-memory 2G`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from dglang.interpreter.frontends.missing import need
from dglang.interpreter.frontends.options import ArgumentParser

KERNEL_NAME = "dglang"
SPEC = Path(__file__).parent / "kernelspec" / "kernel.json"
LIMIT_OPTIONS = ("max_depth", "max_steps", "timeout", "max_memory", "max_output")


def options() -> argparse.ArgumentParser:
    """The command's options (`dg ... --help` lists them)."""
    from dglang.interpreter.frontends.kernel.install import install_options

    p = ArgumentParser(prog="dg kernel", description="Install the DG kernel for Jupyter, with the limits of its cells.")
    install_options(p)
    return p


def kernelspec(args: argparse.Namespace) -> dict[str, object]:
    """kernel.json for this Python, with the limits given on the command line."""
    spec = json.loads(SPEC.read_text(encoding="utf-8"))
    spec["argv"] = [sys.executable, *spec["argv"][1:], *limit_arguments(args)]
    return spec


def limit_arguments(args: argparse.Namespace) -> list[str]:
    """The limit options as given (`--timeout 60`), for the kernel's command line."""
    given = []
    for name in LIMIT_OPTIONS:
        value = getattr(args, name, None)
        if value is not None and value != argparse_default(name):
            given += [f"--{name.replace('_', '-')}", str(value)]
    for folder in getattr(args, "lib", []):  # as a full path: the kernel starts in each notebook's folder
        given += ["--lib", str(Path(folder).expanduser().resolve())]
    return given


def argparse_default(name: str) -> object:
    from .__main__ import settings_parser

    return settings_parser().get_default(name)


def install_options(p: argparse.ArgumentParser) -> None:
    """`dg kernel install`'s options: where to install, the limits of each cell, the library path."""
    from dglang.interpreter.frontends.options import library_option, limit_options
    from dglang.interpreter.host.limits import DEFAULT_MAX_OUTPUT

    p.add_argument("action", choices=["install"], help="install the kernelspec")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="for this user only")
    where.add_argument("--sys-prefix", action="store_true", help="for the Jupyter of this Python environment")
    where.add_argument("--prefix", metavar="DIR", help="under DIR/share/jupyter/kernels")
    p.add_argument("--name", default=KERNEL_NAME, help=f"the kernelspec's name (default {KERNEL_NAME})")
    limit_options(p, default_output=DEFAULT_MAX_OUTPUT)
    library_option(p)


def install(args: argparse.Namespace) -> int:
    KernelSpecManager = need("jupyter_client.kernelspec", "dg kernel install", "jupyter").KernelSpecManager
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / KERNEL_NAME
        spec.mkdir()
        (spec / "kernel.json").write_text(json.dumps(kernelspec(args), indent=2) + "\n", encoding="utf-8")
        prefix = sys.prefix if args.sys_prefix else args.prefix
        where = KernelSpecManager().install_kernel_spec(str(spec), args.name, user=args.user, prefix=prefix)
    print(f"installed the DG kernel '{args.name}' in {where}")
    return 0

"""The DG kernel for tests: its kernelspec (for this Python, as `dg kernel install` writes it) in a
folder of its own that JUPYTER_PATH names, so Jupyter finds it without anything installed."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from dglang.interpreter.frontends.kernel.install import KERNEL_NAME, kernelspec


def write_kernelspec(folder: Path, name: str = KERNEL_NAME, **limits: object) -> Path:
    spec = folder / "kernels" / name
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps(kernelspec(argparse.Namespace(**limits))), encoding="utf-8")
    return spec


@pytest.fixture(scope="session")
def dg_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The name of the DG kernel, findable by Jupyter for the whole test session."""
    folder = tmp_path_factory.mktemp("jupyter")
    write_kernelspec(folder)
    before = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = os.pathsep.join([str(folder), *([before] if before else [])])
    yield KERNEL_NAME
    if before is None:
        del os.environ["JUPYTER_PATH"]
    else:
        os.environ["JUPYTER_PATH"] = before

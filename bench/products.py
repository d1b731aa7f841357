"""The matrix products of a tiny-GPT training step (bench/tiny_gpt.dg: batch 16, context 32, width 64,
four heads), each shape timed alone: NumPy's matmul (what DG calls), or PyTorch's when run with a
Python that has it. Float64, processor time, the fastest of five runs.

    OMP_NUM_THREADS=1 uv run python bench/products.py
    OMP_NUM_THREADS=1 /tmp/torchenv/bin/python bench/products.py --torch

The shapes: the linear layers' forward (a stack of 16 × 32 rows as one matrix of 512 rows, as DG
multiplies it), their weights' gradients (the rows transposed), the attention's batched products
(64 matrices each), and the head's product (65 letters).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

SHAPES = (
    ((512, 64), (64, 192)),
    ((512, 64), (64, 64)),
    ((512, 64), (64, 256)),
    ((512, 256), (256, 64)),
    ((512, 64), (64, 65)),
    ((64, 512), (512, 256)),
    ((256, 512), (512, 64)),
    ((64, 32, 16), (64, 16, 32)),
    ((64, 32, 32), (64, 32, 16)),
)


def fastest(run: Callable[[], object], count: int = 300) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(count):
            run()
        best = min(best, (time.process_time() - start) / count * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--torch", action="store_true", help="time PyTorch's matmul instead of NumPy's")
    use_torch = parser.parse_args().torch
    rng = np.random.default_rng(0)
    total = 0.0
    for left, right in SHAPES:
        a, b = rng.standard_normal(left), rng.standard_normal(right)
        if use_torch:
            import torch

            torch.set_num_threads(1)
            ta, tb = torch.from_numpy(a), torch.from_numpy(b)
            seconds = fastest(lambda: torch.matmul(ta, tb))  # noqa: B023 (timed before the next shape)
        else:
            seconds = fastest(lambda: np.matmul(a, b))  # noqa: B023
        total += seconds
        print(f"{left!s:>14} @ {right!s:<14} {seconds:8.1f} µs")
    print(f"{'all':>31} {total:8.1f} µs")


if __name__ == "__main__":
    main()

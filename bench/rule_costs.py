"""Where mlp-moons' backward pass goes, in the engine alone (no interpreter): processor time of its
forward, of `backward`, and of each op's rule inside that backward, against the same forward written
in NumPy. Each figure is the fastest of seven runs of `--count` steps, in one process.

    OMP_NUM_THREADS=1 uv run python bench/rule_costs.py

The network is bench/mlp_moons.dg's (2-16-16-1, relu, 100 points, the hinge loss), its weights and
data random: the arrays' shapes, not their values, decide the cost. The rules are timed by wrapping
each op's `backward` (the wrapper's own cost, a few tenths of a µs a rule, is in the rules' figures).
"""

from __future__ import annotations

import argparse
import collections
import time
from collections.abc import Callable

import numpy as np

from dglang import autograd as ag
from dglang.autograd.tensor import Tensor


def fastest(run: Callable[[], object], count: int, setup: Callable[[], object] | None = None) -> float:
    """µs per call of `run`, the fastest of seven rounds (processor time; `setup` untimed before each)."""
    best = float("inf")
    for _ in range(7):
        total = 0.0
        for _ in range(count):
            if setup is not None:
                setup()
            start = time.process_time()
            run()
            total += time.process_time() - start
        best = min(best, total / count * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=3000)
    count = parser.parse_args().count
    rng = np.random.default_rng(0)
    X, t = Tensor(rng.standard_normal((100, 2))), Tensor(np.sign(rng.standard_normal(100)))
    sizes = ((2, 16), (16,), (16, 16), (16,), (16, 1), (1,))
    params = [Tensor(rng.standard_normal(size) * 0.5, requires_grad=True) for size in sizes]
    W1, b1, W2, b2, W3, b3 = params

    def forward() -> Tensor:
        h = ag.relu(X @ W1 + b1)
        h = ag.relu(h @ W2 + b2)
        return ag.relu(1 - t * (h @ W3 + b3)[:, 0]).mean()

    x, s, w = X.data, t.data, [p.data for p in params]

    def numpy_forward() -> float:
        h = np.maximum(x @ w[0] + w[1], 0)
        h = np.maximum(h @ w[2] + w[3], 0)
        return float(np.maximum(1 - s * (h @ w[4] + w[5])[:, 0], 0).mean())

    graph: dict[str, Tensor] = {}

    def fresh() -> None:
        for p in params:
            p.grad = None
        graph["loss"] = forward()

    def backward() -> None:
        graph["loss"].backward()

    print(f"forward                 {fastest(forward, count):7.1f} µs")
    print(f"  the same, NumPy alone {fastest(numpy_forward, count):7.1f} µs")
    print(f"backward                {fastest(backward, count, fresh):7.1f} µs")
    spent: collections.Counter[str] = collections.Counter()
    calls: collections.Counter[str] = collections.Counter()
    fresh()
    ops, stack = set(), [graph["loss"]]
    while stack:
        node = stack.pop().grad_fn
        if node is not None:
            ops.add(node.op)
            stack.extend(node.inputs)
    for op in ops:

        def timed(*args: object, rule: Callable[..., object] = op.backward, name: str = op.name) -> object:
            start = time.process_time()
            sent = rule(*args)
            spent[name] += time.process_time() - start
            calls[name] += 1
            return sent

        op.backward = staticmethod(timed)
    for _ in range(count):
        fresh()
        backward()
    for name, seconds in spent.most_common():
        label = f"{name} rule ×{calls[name] // count}"
        print(f"  {label:22}{seconds / count * 1e6:7.1f} µs")
    print(f"  every rule            {sum(spent.values()) / count * 1e6:7.1f} µs (the rest: the walk, sum_to, the seed)")


if __name__ == "__main__":
    main()

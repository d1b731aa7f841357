"""Where an index that mixes ints, slices and index lists puts its axes: PyTorch's order, not NumPy's.

Both put the axes that index lists pick (the "block") where the lists stand when the lists are
next to each other, and first otherwise. They differ on ints: NumPy counts an int as an index
list of its own, PyTorch takes ints away first. So on a tensor of shape (2, 3, 4),

    x[0, :, [0, 1]]    PyTorch: (3, 2), as x[0][:, [0, 1]]; NumPy: (2, 3), the block first

since for NumPy the int and the list are separated by the slice. Where the two differ, the
index is written out as one list per axis, each shaped to where PyTorch puts its axis, so that
NumPy's indexing gives PyTorch's result (and the gradient's scatter, the same places).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def pytorch_places(index: tuple[Any, ...], shape: tuple[int, ...]) -> tuple[Any, ...]:
    """`index` (a NumPy index: ints, slices, None, int arrays), or one picking the same values
    with the axes where PyTorch puts them, when NumPy would put them elsewhere."""
    lists = [i for i, part in enumerate(index) if isinstance(part, np.ndarray)]
    ints = {i for i, part in enumerate(index) if type(part) is int}
    if not lists or not ints:
        return index  # no int among lists: NumPy's order is PyTorch's
    lists_together = all(i in ints or i in lists for i in range(lists[0], lists[-1] + 1))
    start = min(lists[0], min(ints))
    end = max(lists[-1], max(ints))
    numpy_together = all(i in ints or i in lists for i in range(start, end + 1))
    if numpy_together or not lists_together:
        return index  # both put the block in place, or both first
    try:
        block = np.broadcast_shapes(*(index[i].shape for i in lists))
    except ValueError:
        return index  # lists that do not broadcast: NumPy says so
    # the result's axes, in PyTorch's order: a slice's or None's where it stands, the block where
    # the first list stands, an int's nowhere; the axes the index leaves out follow, as in NumPy
    before = sum(1 for part in index[: lists[0]] if type(part) is not int)
    total = sum(1 for part in index if type(part) is not int and not isinstance(part, np.ndarray)) + len(block)
    written: list[Any] = []
    axis, place = 0, 0  # the tensor's axis, and the result's
    for i, part in enumerate(index):
        if part is None:
            place += 1
            continue
        if isinstance(part, slice):
            n = shape[axis] if axis < len(shape) else 0
            spot = [1] * total
            spot[place if place < before else place + len(block) - 1] = -1
            written.append(np.arange(*part.indices(n)).reshape(spot))
            place += 1
        elif type(part) is int:
            written.append(part)
        else:
            lead = before
            written.append(
                np.broadcast_to(part, block).reshape((1,) * lead + block + (1,) * (total - lead - len(block)))
            )
            place += i == lists[0]
        axis += 1
    return tuple(written)

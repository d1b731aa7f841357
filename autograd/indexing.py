"""Where an index that mixes ints, slices and index lists puts its axes: PyTorch's order, not NumPy's.

Both put the axes that index lists pick (the "block") where the lists stand when the lists are
next to each other, and first otherwise. They differ on ints: NumPy counts an int as an index
list of its own, PyTorch takes ints away first. So on a tensor of shape (2, 3, 4),

    x[0, :, [0, 1]]    PyTorch: (3, 2), as x[0][:, [0, 1]]; NumPy: (2, 3), the block first

since for NumPy the int and the list are separated by the slice. Where the two differ, the
index is written out as one list per axis, each shaped to where PyTorch puts its axis, so that
NumPy's indexing gives PyTorch's result (and the gradient's scatter, the same places).

`scattered` is that scatter: the gradient of indexing, g added at the places the index picked.
"""

from __future__ import annotations

import math
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


def scattered(a: Any, index: tuple[Any, ...], shape: tuple[int, ...], basic: bool) -> np.ndarray:
    """Zeros of `shape` with a added at index (x[index]'s gradient); a place picked twice gets both,
    added in the order the index names them, as np.add.at adds."""
    data = np.zeros(shape)
    if basic:  # (no place picked twice)
        data[index] = a
        return data
    k = len(index)
    if (
        0 < k <= len(shape)
        and all(type(p) is np.ndarray and p.dtype.kind in "iu" and p.size for p in index)
        and all(-n <= p.min() and p.max() < n for p, n in zip(index, shape, strict=False))
    ):
        # Only int arrays, for the leading axes (an embedding's rows, a loss's picks): each place's
        # number in the flattened result, and np.bincount adds in order onto zeros, in one pass:
        # np.add.at's sums, several times faster. (A place outside: np.add.at's IndexError.)
        row = math.prod(shape[k:])
        places = np.ravel_multi_index(np.broadcast_arrays(*index), shape[:k], mode="wrap")
        if row != 1:
            places = places[..., None] * row + np.arange(row)
        if places.shape == np.shape(a):
            return np.bincount(places.ravel(), weights=np.ravel(a), minlength=data.size).reshape(shape)
    np.add.at(data, index, a)  # repeated indices must add up, not overwrite
    return data

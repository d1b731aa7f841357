"""digits-cnn: seconds per training step of lesson 20's CNN on the 8×8 digits, in DG, PyTorch and NumPy.

The network of programs/20_digits_cnn.dg: conv 1→8 (3×3, padding 1), relu, max pool 2; conv
8→16, relu; linear 256→10; softmax cross-entropy on minibatches (`batch`, 24 as in the lesson)
taken in turn from the 1,347 training digits; plain SGD with lr 0.05, or with `adam=1` the
lesson's Adam with lr 0.01 (bench/digits_cnn.dg, optimisers.py). All three start from the same
weights (DG's seed(0) and randn, in the program's order) and report the final loss and the first
filters' sum; the time is per step (forward, backward, update).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from measure import Result, item, replayed_steps, run_dg_timed
from numpy.lib.stride_tricks import sliding_window_view
from optimisers import numpy_update, torch_update

DATA = Path(__file__).resolve().parents[1] / "data" / "digits_train.csv"


def rate(adam: int) -> float:
    return 0.01 if adam else 0.05


def dg(steps: int, batch: int = 24, adam: int = 0, fast: int = 0) -> Result:
    timed = run_dg_timed("digits_cnn", static=bool(fast), steps=steps, batch=batch, adam=adam, fast=fast)
    seconds, processor, session = timed
    env = session.globals.vars
    if fast:
        seconds, processor = replayed_steps(session, "train_step", seconds, processor, steps)
    else:
        seconds, processor = seconds / steps, processor / steps
    return Result(seconds, (item(env["loss"]), item(env["W1"].sum())), processor=processor)


def dg_static(steps: int, batch: int = 24, adam: int = 0) -> Result:
    """The same, its training step made static: the time of a replayed step (the traces' left out)."""
    return dg(steps, batch, adam, fast=1)


def data_and_weights() -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The training images (1347, 1, 8, 8) scaled to 0..1, their labels, and W1, b1, W2, b2, W3, b3
    exactly as bench/digits_cnn.dg makes them (read without DG's interpreter: the references'
    environment has only NumPy and PyTorch)."""
    from dglang import autograd as ag

    rows = np.loadtxt(DATA, delimiter=",", skiprows=1, dtype=np.int64)
    images, labels = (rows[:, :64].astype(float) / 16).reshape(-1, 1, 8, 8), rows[:, 64]
    ag.seed(0)
    w1 = ag.randn(8, 1, 3, 3).data * np.sqrt(2.0 / 9)
    w2 = ag.randn(16, 8, 3, 3).data * np.sqrt(2.0 / 72)
    w3 = ag.randn(256, 10).data * np.sqrt(2.0 / 256)
    return images, labels, [w1, np.zeros(8), w2, np.zeros(16), w3, np.zeros(10)]


def minibatch(images: np.ndarray, labels: np.ndarray, step: int, batch: int) -> tuple[np.ndarray, np.ndarray]:
    start = (step % (len(images) // batch)) * batch
    return images[start : start + batch], labels[start : start + batch]


def pytorch(steps: int, batch: int = 24, adam: int = 0) -> Result:
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(1)
    images_np, labels_np, params_np = data_and_weights()
    images, labels = torch.from_numpy(images_np), torch.from_numpy(labels_np)
    params = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in params_np]
    W1, b1, W2, b2, W3, b3 = params
    update = torch_update(params, rate(adam), bool(adam))

    def logits(x):
        h = F.max_pool2d(torch.relu(F.conv2d(x, W1, b1, padding=1)), 2)
        h = torch.relu(F.conv2d(h, W2, b2, padding=1))
        return h.reshape(h.shape[0], -1) @ W3 + b3

    start, processor = time.perf_counter(), time.process_time()
    for step in range(steps):
        x, y = minibatch(images, labels, step, batch)
        loss = -torch.log_softmax(logits(x), dim=1)[torch.arange(batch), y].mean()
        for p in params:
            p.grad = None
        loss.backward()
        update()
    seconds, processor = time.perf_counter() - start, time.process_time() - processor
    return Result(seconds / steps, (loss.item(), W1.sum().item()), processor=processor / steps)


# ---- NumPy, the backward pass written out by hand ---------------------------------------------
def columns(x: np.ndarray) -> np.ndarray:
    """im2col for a 3×3 kernel with padding 1: (N·H·W, C·9), each row one window of x."""
    n, c, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    windows = sliding_window_view(padded, (3, 3), axis=(2, 3))  # (N, C, H, W, 3, 3), a view
    return windows.transpose(0, 2, 3, 1, 4, 5).reshape(n * h * w, c * 9)


def uncolumns(cols: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """col2im, columns' adjoint: each window's values added back where they were read from."""
    n, c, h, w = shape
    windows = cols.reshape(n, h, w, c, 3, 3)
    padded = np.zeros((n, c, h + 2, w + 2))
    for i in range(3):
        for j in range(3):
            padded[:, :, i : i + h, j : j + w] += windows[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return padded[:, :, 1:-1, 1:-1]


def conv(x: np.ndarray, W: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the convolution (N, O, H, W), the columns it read)."""
    n, _, h, w = x.shape
    cols = columns(x)
    out = cols @ W.reshape(W.shape[0], -1).T + b  # (N·H·W, O)
    return out.reshape(n, h, w, -1).transpose(0, 3, 1, 2), cols


def conv_back(g: np.ndarray, cols: np.ndarray, W: np.ndarray, shape: tuple[int, ...] | None):
    """The gradients of a convolution's weight, bias and (when shape is given) input."""
    g2 = g.transpose(0, 2, 3, 1).reshape(-1, W.shape[0])  # (N·H·W, O)
    dW = (g2.T @ cols).reshape(W.shape)
    dx = uncolumns(g2 @ W.reshape(W.shape[0], -1), shape) if shape else None
    return dW, g2.sum(axis=0), dx


def pool(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """2×2 max pooling, and the mask of the element each window took (the first, on a tie)."""
    n, c, h, w = x.shape
    blocks = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, h // 2, w // 2, 4)
    taken = blocks.argmax(axis=-1)
    mask = np.zeros_like(blocks)
    np.put_along_axis(mask, taken[..., None], 1.0, axis=-1)
    return np.take_along_axis(blocks, taken[..., None], axis=-1)[..., 0], mask


def pool_back(g: np.ndarray, mask: np.ndarray) -> np.ndarray:
    n, c, ho, wo, _ = mask.shape
    blocks = mask * g[..., None]
    return blocks.reshape(n, c, ho, wo, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, 2 * ho, 2 * wo)


def hand_numpy(steps: int, batch: int = 24, adam: int = 0) -> Result:
    """The same network with im2col convolutions and its backward pass written out by hand."""
    images, labels, params = data_and_weights()
    W1, b1, W2, b2, W3, b3 = params
    update = numpy_update(params, rate(adam), bool(adam))
    start, processor = time.perf_counter(), time.process_time()
    for step in range(steps):
        x, y = minibatch(images, labels, step, batch)
        # forward
        z1, cols1 = conv(x, W1, b1)
        p1, mask1 = pool(np.maximum(z1, 0))
        z2, cols2 = conv(p1, W2, b2)
        r2 = np.maximum(z2, 0)
        flat = r2.reshape(batch, -1)
        scores = flat @ W3 + b3
        shifted = scores - scores.max(axis=1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        loss = -log_p[np.arange(batch), y].mean()
        # backward
        d_scores = np.exp(log_p)
        d_scores[np.arange(batch), y] -= 1
        d_scores /= batch
        dW3, db3 = flat.T @ d_scores, d_scores.sum(axis=0)
        d_z2 = (d_scores @ W3.T).reshape(r2.shape) * (z2 > 0)
        dW2, db2, d_p1 = conv_back(d_z2, cols2, W2, p1.shape)
        d_z1 = pool_back(d_p1, mask1) * (z1 > 0)
        dW1, db1, _ = conv_back(d_z1, cols1, W1, None)
        update([dW1, db1, dW2, db2, dW3, db3])  # in place, as the others do
    seconds, processor = time.perf_counter() - start, time.process_time() - processor
    return Result(seconds / steps, (float(loss), float(W1.sum())), processor=processor / steps)

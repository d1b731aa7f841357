"""tiny-gpt: seconds per training step of lesson 18's GPT, in DG and in PyTorch.

The model of programs/18_tiny_gpt.dg (character and position embeddings, two blocks of causal
self-attention with four heads and a two-layer perceptron, each with layer norm before and a
residual connection around it; 110,142 parameters), on batches of 16 random windows of 32
characters of Tiny Shakespeare (its first 200,000 characters), softmax cross-entropy, plain SGD
with lr 0.1, or with `adam=1` the lesson's Adam with lr 0.003 (bench/tiny_gpt.dg, optimisers.py).
PyTorch runs the same graph of ops (layer norm, attention and the loss written out as nn.dg
writes them), from the same weights and windows (DG's seed(0), randn and rand, in the program's
order); NumPy computes the same step with its backward pass written out by hand. All report the
final loss and the token embedding's sum. The time is per step.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from measure import Result, item, replayed_steps, run_dg_timed
from optimisers import torch_update

TEXT = Path(__file__).resolve().parents[1] / "data" / "tiny_shakespeare.txt"
T, D, H, BLOCKS, BATCH = 32, 64, 4, 2, 16


def rate(adam: int) -> float:
    return 0.003 if adam else 0.1


def dg(steps: int, characters: int, adam: int = 0, fast: int = 0) -> Result:
    timed = run_dg_timed("tiny_gpt", static=bool(fast), steps=steps, characters=characters, adam=adam, fast=fast)
    seconds, processor, session = timed
    env = session.globals.vars
    checks = (item(env["loss"]), item(env["params"]["token"].sum()))
    if fast:
        seconds, processor = replayed_steps(session, "train_step", seconds, processor, steps)
    else:
        seconds, processor = seconds / steps, processor / steps
    return Result(seconds, checks, processor=processor)


def dg_static(steps: int, characters: int, adam: int = 0) -> Result:
    """The same, its training step made static: the time of a replayed step (the traces' left out)."""
    return dg(steps, characters, adam, fast=1)


def data_and_weights(characters: int) -> tuple[np.ndarray, int, dict[str, np.ndarray]]:
    """The training text's codes, the vocabulary's size, and the parameters as bench/tiny_gpt.dg
    makes them (its seed(0) and randn calls, in its order)."""
    from dglang import autograd as ag

    text = TEXT.read_text(encoding="utf-8")[:characters]
    chars = sorted(set(text))
    index = {ch: i for i, ch in enumerate(chars)}
    codes = np.array([index[ch] for ch in text], dtype=np.int64)
    V = len(chars)
    ag.seed(0)
    params: dict[str, np.ndarray] = {}

    def linear(name: str, n_in: int, n_out: int) -> None:
        params[name + ".W"] = ag.randn(n_in, n_out).data * np.sqrt(2.0 / n_in)
        params[name + ".b"] = np.zeros(n_out)

    def layer_norm(name: str, n: int) -> None:
        params[name + ".gain"], params[name + ".bias"] = np.ones(n), np.zeros(n)

    params["token"] = ag.randn(V, D).data * 0.1
    params["position"] = ag.randn(T, D).data * 0.1
    for b in range(BLOCKS):
        layer_norm(f"{b}.norm1", D)
        for name in ["query", "key", "value", "proj"]:
            linear(f"{b}.{name}", D, D)
        layer_norm(f"{b}.norm2", D)
        linear(f"{b}.mlp1", D, 4 * D)
        linear(f"{b}.mlp2", 4 * D, D)
    layer_norm("norm", D)
    linear("head", D, V)
    return codes, V, params


def pytorch(steps: int, characters: int, adam: int = 0) -> Result:
    import torch

    from dglang import autograd as ag

    torch.set_num_threads(1)
    codes_np, V, params_np = data_and_weights(characters)
    codes = torch.from_numpy(codes_np)
    p = {name: torch.tensor(value, dtype=torch.float64, requires_grad=True) for name, value in params_np.items()}
    update = torch_update(list(p.values()), rate(adam), bool(adam))
    causal = torch.arange(T)[:, None] >= torch.arange(T)[None, :]

    def linear(name, x):
        return x @ p[name + ".W"] + p[name + ".b"]

    def layer_norm(name, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + 1e-5) * p[name + ".gain"] + p[name + ".bias"]

    def heads(x):
        return x.reshape(x.shape[0], x.shape[1], H, D // H).permute(0, 2, 1, 3)

    def self_attention(b, x):
        q, k, v = (heads(linear(f"{b}.{name}", x)) for name in ("query", "key", "value"))
        scores = q @ k.transpose(-1, -2) / np.sqrt(q.shape[-1])
        scores = torch.where(causal, scores, torch.tensor(-1e9, dtype=torch.float64))
        out = torch.softmax(scores, dim=-1) @ v
        return linear(f"{b}.proj", out.permute(0, 2, 1, 3).reshape(x.shape[0], x.shape[1], D))

    def logits(x):
        h = p["token"][x] + p["position"][: x.shape[1]]
        for b in range(BLOCKS):
            h = h + self_attention(b, layer_norm(f"{b}.norm1", h))
            h = h + linear(f"{b}.mlp2", torch.relu(linear(f"{b}.mlp1", layer_norm(f"{b}.norm2", h))))
        return linear("head", layer_norm("norm", h))

    start, processor = time.perf_counter(), time.process_time()
    for _ in range(steps):
        starts = torch.from_numpy((ag.rand(BATCH).data * (len(codes) - T - 1) // 1).astype(np.int64))
        at = starts[:, None] + torch.arange(T)[None, :]
        x, y = codes[at], codes[at + 1]
        scores = logits(x).reshape(-1, V)
        loss = -torch.log_softmax(scores, dim=1)[torch.arange(scores.shape[0]), y.reshape(-1)].mean()
        for t in p.values():
            t.grad = None
        loss.backward()
        update()
    seconds, processor = time.perf_counter() - start, time.process_time() - processor
    return Result(seconds / steps, (loss.item(), p["token"].sum().item()), processor=processor / steps)


# ---- NumPy, the backward pass written out by hand ---------------------------------------------
def layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """nn.dg's layer norm over the last axis, and what its backward needs."""
    centred = x - x.mean(axis=-1, keepdims=True)
    deviation = np.sqrt((centred**2).mean(axis=-1, keepdims=True) + 1e-5)
    normed = centred / deviation
    return normed * gain + bias, (normed, deviation, gain)


def layer_norm_back(g: np.ndarray, saved: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The gradients of layer_norm's input, gain and bias."""
    normed, deviation, gain = saved
    dnormed = g * gain
    dx = dnormed - dnormed.mean(axis=-1, keepdims=True) - normed * (dnormed * normed).mean(axis=-1, keepdims=True)
    return dx / deviation, (g * normed).sum(axis=(0, 1)), g.sum(axis=(0, 1))


def split_heads(x: np.ndarray) -> np.ndarray:
    return x.reshape(x.shape[0], x.shape[1], H, D // H).transpose(0, 2, 1, 3)


def merge_heads(x: np.ndarray) -> np.ndarray:
    return x.transpose(0, 2, 1, 3).reshape(x.shape[0], x.shape[2], D)


class Linear:
    """x @ W + b over the last axis of x, and its backward (which adds into the gradients)."""

    def __init__(self, p: dict[str, np.ndarray], grads: dict[str, np.ndarray], name: str) -> None:
        self.W, self.b, self.gW, self.gb = p[name + ".W"], p[name + ".b"], name + ".W", name + ".b"
        self.grads = grads

    def __call__(self, x: np.ndarray) -> np.ndarray:
        self.x = x
        return x @ self.W + self.b

    def back(self, g: np.ndarray) -> np.ndarray:
        rows = g.reshape(-1, g.shape[-1])
        self.grads[self.gW] = self.x.reshape(-1, self.x.shape[-1]).T @ rows
        self.grads[self.gb] = rows.sum(axis=0)
        return g @ self.W.T


def hand_numpy(steps: int, characters: int, adam: int = 0) -> Result:
    """The same step, forward and backward written out in NumPy (the floor for a NumPy engine)."""
    from optimisers import numpy_update

    from dglang import autograd as ag

    codes, V, p = data_and_weights(characters)
    names = list(p)
    update = numpy_update([p[name] for name in names], rate(adam), bool(adam))
    grads: dict[str, np.ndarray] = {}
    layers = {name[:-2]: Linear(p, grads, name[:-2]) for name in names if name.endswith(".W")}
    causal = np.arange(T)[:, None] >= np.arange(T)[None, :]
    root = np.sqrt(D // H)
    start, processor = time.perf_counter(), time.process_time()
    for _ in range(steps):
        starts = (ag.rand(BATCH).data * (len(codes) - T - 1) // 1).astype(np.int64)
        at = starts[:, None] + np.arange(T)[None, :]
        x, y = codes[at], codes[at + 1]
        # forward
        h = p["token"][x] + p["position"][:T]
        saved = []
        for b in range(BLOCKS):
            a1, norm1 = layer_norm(h, p[f"{b}.norm1.gain"], p[f"{b}.norm1.bias"])
            q, k, v = (split_heads(layers[f"{b}.{name}"](a1)) for name in ("query", "key", "value"))
            scores = np.where(causal, q @ k.transpose(0, 1, 3, 2) / root, -1e9)
            e = np.exp(scores - scores.max(axis=-1, keepdims=True))
            weights = e / e.sum(axis=-1, keepdims=True)
            h = h + layers[f"{b}.proj"](merge_heads(weights @ v))
            a2, norm2 = layer_norm(h, p[f"{b}.norm2.gain"], p[f"{b}.norm2.bias"])
            u = layers[f"{b}.mlp1"](a2)
            h = h + layers[f"{b}.mlp2"](np.maximum(u, 0))
            saved.append((norm1, q, k, v, weights, norm2, u))
        af, norm = layer_norm(h, p["norm.gain"], p["norm.bias"])
        scores = layers["head"](af).reshape(-1, V)
        shifted = scores - scores.max(axis=1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        rows = np.arange(len(log_p))
        loss = -log_p[rows, y.reshape(-1)].mean()
        # backward
        d_scores = np.exp(log_p)
        d_scores[rows, y.reshape(-1)] -= 1
        d_scores /= len(log_p)
        d_final = layers["head"].back(d_scores.reshape(BATCH, T, V))
        dh, grads["norm.gain"], grads["norm.bias"] = layer_norm_back(d_final, norm)
        for b in reversed(range(BLOCKS)):
            norm1, q, k, v, weights, norm2, u = saved[b]
            du = layers[f"{b}.mlp2"].back(dh) * (u > 0)
            da2 = layers[f"{b}.mlp1"].back(du)
            da2, grads[f"{b}.norm2.gain"], grads[f"{b}.norm2.bias"] = layer_norm_back(da2, norm2)
            dh = dh + da2
            do = split_heads(layers[f"{b}.proj"].back(dh))
            dweights = do @ v.transpose(0, 1, 3, 2)
            dv = weights.transpose(0, 1, 3, 2) @ do
            ds = weights * (dweights - (dweights * weights).sum(axis=-1, keepdims=True)) / root
            da1 = layers[f"{b}.query"].back(merge_heads(ds @ k))
            da1 += layers[f"{b}.key"].back(merge_heads(ds.transpose(0, 1, 3, 2) @ q))
            da1 += layers[f"{b}.value"].back(merge_heads(dv))
            da1, grads[f"{b}.norm1.gain"], grads[f"{b}.norm1.bias"] = layer_norm_back(da1, norm1)
            dh = dh + da1
        grads["token"] = np.zeros_like(p["token"])
        np.add.at(grads["token"], x, dh)
        grads["position"] = dh.sum(axis=0)
        update([grads[name] for name in names])
    seconds, processor = time.perf_counter() - start, time.process_time() - processor
    return Result(seconds / steps, (float(loss), float(p["token"].sum())), processor=processor / steps)

"""tiny-gpt: seconds per training step of lesson 18's GPT, in DG and in PyTorch.

The model of programs/18_tiny_gpt.dg (character and position embeddings, two blocks of causal
self-attention with four heads and a two-layer perceptron, each with layer norm before and a
residual connection around it; 110,142 parameters), on batches of 16 random windows of 32
characters of Tiny Shakespeare (its first 200,000 characters), softmax cross-entropy, plain SGD
(bench/tiny_gpt.dg). PyTorch runs the same graph of ops (layer norm, attention and the loss
written out as nn.dg writes them), from the same weights and windows (DG's seed(0), randn and
rand, in the program's order); both report the final loss and the token embedding's sum. The
time is per step.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from measure import Result, item, run_dg_timed

TEXT = Path(__file__).resolve().parents[1] / "data" / "tiny_shakespeare.txt"
T, D, H, BLOCKS, BATCH, LR = 32, 64, 4, 2, 16, 0.1


def dg(steps: int, characters: int) -> Result:
    seconds, processor, session = run_dg_timed("tiny_gpt", steps=steps, characters=characters)
    env = session.globals.vars
    checks = (item(env["loss"]), item(env["params"]["token"].sum()))
    return Result(seconds / steps, checks, processor=processor / steps)


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


def pytorch(steps: int, characters: int) -> Result:
    import torch

    from dglang import autograd as ag

    torch.set_num_threads(1)
    codes_np, V, params_np = data_and_weights(characters)
    codes = torch.from_numpy(codes_np)
    p = {name: torch.tensor(value, dtype=torch.float64, requires_grad=True) for name, value in params_np.items()}
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
        with torch.no_grad():
            for t in p.values():
                t -= LR * t.grad
    seconds, processor = time.perf_counter() - start, time.process_time() - processor
    return Result(seconds / steps, (loss.item(), p["token"].sum().item()), processor=processor / steps)

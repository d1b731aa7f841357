"""char-rnn: a typical lesson, programs/12_char_rnn.dg, against a PyTorch port of it.

A recurrent cell reads a 48-character text one character at a time; each epoch is one forward
pass through the text and one backward pass through all of it (about 600 small ops), then SGD.
Both train from the same initial weights (DG's seed(0) and randn, in the lesson's order) and
report the final loss and a weight's sum; the time is per epoch.
"""

from __future__ import annotations

import time

import numpy as np
from measure import Result, item, run_dg

TEXT = "the cat sat on the mat. the dog sat on the log. "
H = 24
LR = 0.5


def dg(epochs: int) -> Result:
    seconds, session = run_dg("char_rnn", epochs=epochs)
    env = session.globals.vars
    return Result(seconds / epochs, (item(env["loss"]), item(env["Wx"].sum())))


def weights() -> tuple[list[int], int, list[np.ndarray]]:
    """The codes of the text, the vocabulary's size, and Wx, Wh, bh, Wy, by as the lesson makes them."""
    from dglang import autograd as ag

    vocab = sorted(set(TEXT))
    V = len(vocab)
    ag.seed(0)
    Wx = ag.randn(H, V).data * 0.3
    Wh = ag.randn(H, H).data * 0.1
    Wy = ag.randn(V, H).data * 0.3
    return [vocab.index(ch) for ch in TEXT], V, [Wx, Wh, np.zeros(H), Wy, np.zeros(V)]


def pytorch(epochs: int) -> Result:
    import torch

    torch.set_num_threads(1)
    codes, V, params_np = weights()
    params = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in params_np]
    Wx, Wh, bh, Wy, by = params
    one_hot = torch.eye(V, dtype=torch.float64)

    def step(h, code):
        h = torch.tanh(Wx @ one_hot[code] + Wh @ h + bh)
        return h, Wy @ h + by

    def text_loss():
        h = torch.zeros(H, dtype=torch.float64)
        loss = 0
        for i in range(len(codes) - 1):
            h, logits = step(h, codes[i])
            loss = loss + -torch.log_softmax(logits, dim=-1)[codes[i + 1]]
        return loss / (len(codes) - 1)

    start = time.perf_counter()
    for epoch in range(epochs):
        loss = text_loss()
        for p in params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= LR * p.grad
        if epoch % 20 == 0:
            _ = f"epoch {epoch:3d}  loss per character {loss.item():.4f}"  # the lesson prints this
    seconds = time.perf_counter() - start
    return Result(seconds / epochs, (loss.item(), Wx.sum().item()))

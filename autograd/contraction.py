"""einsum: products and sums named by letters, as PyTorch spells it (`einsum("ij,jk->ik", a, b)`).

Each operand's axes get a letter; a letter shared by operands pairs their values; a letter left
out of the output is summed over. So "ij,jk->ik" is a matrix product, "bij,bjk->bik" a batch of
them, "ij->ji" a transpose, "ii->" a trace, "i,j->ij" an outer product, "ij->j" a sum over axis
0. `...` stands for any number of leading axes, which broadcast (as do axes of length 1).

Its rule is einsums too: what operand k receives is the product of g with every other operand,
summed down to k's letters ("ij,jk->ik" sends a `g @ bᵀ`, written "ik,jk->ij"). A letter only k
has (summed away in the forward) is given back by broadcasting; a letter k repeats ("ii", the
diagonal) by multiplying with an identity, so the gradient lands on the diagonal alone.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import hooks, threads
from .exceptions import ShapeError, TensorTypeError, TensorValueError
from .op import Op, value_shape

EQUATION_FIRST = 'einsum: the first argument is the equation, a string such as "ij,jk->ik"'
Subscripts = tuple[list[str], str]  # each operand's letters, and the output's
# The letters an equation may use, as NumPy's einsum takes them (string.ascii_letters, spelled out:
# importing `string` compiles its Template class's pattern, at every start of DG).
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Einsum(Op):
    """Products of the operands summed over the letters the output leaves out, as PyTorch's einsum.

    einsum("ij,jk->ik", a, b) is a @ b; "ii->" is the trace, "i,j->ij" the outer product.

    >>> einsum("ij,jk->ik", tensor([[1.0, 2.0]]), tensor([[3.0], [4.0]]))
    tensor([[11.]])
    """

    inputs = ("operand",)
    rules = ("g times the other operands, summed to its letters",)
    note = (
        'einsums themselves: for "ij,jk->ik", `a` receives "ik,jk->ij" of g and b; a letter only one operand has '
        'comes back by broadcasting, a repeated one ("ii") through an identity, onto the diagonal'
    )
    variadic = True
    builtin = True

    @staticmethod
    def call(equation: str, *operands: Any) -> tuple[Any, str]:
        """PyTorch's order of arguments (the equation first; the operands one by one or as a list),
        in forward's."""
        if not isinstance(equation, str):
            raise TensorTypeError(EQUATION_FIRST, help='write einsum("ij,jk->ik", a, b), as PyTorch does')
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
        return list(operands), equation

    @staticmethod
    def forward(operands: list[Any], equation: str) -> Any:
        terms, output = subscripts(equation, [value_shape(v) for v in operands])
        sizes = letter_sizes(terms, operands)
        shape = tuple(sizes[c] for c in output)
        hooks.allocating(math.prod(shape), "the result of einsum()", shape=shape)
        return _computed(",".join(terms) + "->" + output, terms, output, operands)

    @staticmethod
    def backward(g: Any, out: Any, operands: tuple[Any, ...], equation: str) -> tuple[Any, ...]:
        terms, output = subscripts(equation, [t.shape for t in operands])
        sizes = letter_sizes(terms, [t.data for t in operands])
        return tuple(
            _received(k, g, operands, terms, output, sizes) if t.requires_grad else None for k, t in enumerate(operands)
        )


def _received(k: int, g: Any, operands: tuple[Any, ...], terms: list[str], output: str, sizes: dict[str, int]) -> Any:
    """What operand k receives: g times the other operands, summed to k's letters (see the module)."""
    own = terms[k]
    letters = "".join(dict.fromkeys(own))  # each once, in order
    others = [i for i in range(len(terms)) if i != k]
    reached = set(output).union(*(terms[i] for i in others))
    kept = "".join(c for c in letters if c in reached)
    equation = ",".join([output, *(terms[i] for i in others)]) + "->" + kept
    grad = g.einsum(equation, *(operands[i] for i in others))
    full = tuple(sizes[c] for c in letters)
    if grad.shape != full:  # letters only k has, or that broadcast elsewhere: the same gradient along each
        grad = grad.reshape(tuple(grad.shape[kept.index(c)] if c in kept else 1 for c in letters)).broadcast_to(full)
    if len(letters) != len(own):  # a repeated letter: onto the diagonal, by identities
        spare = iter(c for c in LETTERS if c not in letters)
        placed, eyes, names = [], [], [letters]
        for position, c in enumerate(own):
            if c in own[:position]:
                fresh = next(spare)
                placed.append(fresh)
                eyes.append(np.eye(sizes[c]))
                names.append(c + fresh)
            else:
                placed.append(c)
        grad = grad.einsum(",".join(names) + "->" + "".join(placed), *eyes)
    shape = operands[k].shape
    return grad if grad.shape == shape else grad.sum_to(shape)  # an axis of length 1 that broadcast


# ---- reading an equation ------------------------------------------------------------------------
def subscripts(equation: Any, shapes: list[tuple[int, ...]]) -> Subscripts:
    """Each operand's letters and the output's, with `...` written out as letters of its own and
    the output worked out when the equation gives none (the letters used once, in order)."""
    if not isinstance(equation, str):
        raise TensorTypeError(EQUATION_FIRST, help='write einsum("ij,jk->ik", a, b), as PyTorch does')
    text = equation.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(shapes):
        raise TensorValueError(
            f"einsum: the equation {equation!r} names {len(terms)} operands, and {len(shapes)} were given"
        )
    for part in (*terms, output):
        if part.count("...") > 1 or any(c not in LETTERS for c in part.replace("...", "", 1)):
            raise TensorValueError(
                f"einsum: {equation!r} is not an equation",
                help='a letter for each axis, "," between operands, "->" before the output, "..." for leading axes',
            )
    # `...` in an operand stands for the axes its letters leave over; they line up from the right
    leftover = [len(s) - len(t.replace("...", "")) if "..." in t else 0 for t, s in zip(terms, shapes, strict=True)]
    dots = "".join([c for c in LETTERS if c not in text][: max(leftover, default=0)])
    named = []
    for t, shape, n in zip(terms, shapes, leftover, strict=True):
        written = t.replace("...", dots[len(dots) - n :]) if n >= 0 else t
        if len(written) != len(shape):
            raise ShapeError(
                f"einsum: {t!r} names {len(t.replace('...', ''))} axes, for an operand of shape {shape}",
                help="give one letter to each axis (or '...' for the leading ones)",
            )
        named.append(written)
    if arrow:
        output = output.replace("...", dots)
        for c in output:
            if output.count(c) > 1 or not any(c in t for t in named):
                raise TensorValueError(
                    f"einsum: the output's letter {c!r} is "
                    + ("repeated" if output.count(c) > 1 else "in none of the operands"),
                    help="each letter of the output names one axis of an operand",
                )
    else:  # as PyTorch and NumPy: the axes of `...`, then the letters used once, in alphabetical order
        used = [c for t in named for c in t if c not in dots]
        output = dots + "".join(sorted(c for c in set(used) if used.count(c) == 1))
    return named, output


def letter_sizes(terms: list[Any], values: list[Any]) -> dict[str, int]:
    """Each letter's length: the same in every operand, or 1 where it broadcasts."""
    sizes: dict[str, int] = {}
    for t, value in zip(terms, values, strict=True):
        for c, n in zip(t, value_shape(value), strict=True):
            if sizes.get(c, 1) == 1:
                sizes[c] = n
            elif n not in (1, sizes[c]):
                raise ShapeError(
                    f"einsum: the letter {c!r} stands for axes of lengths {sizes[c]} and {n}",
                    help="axes with the same letter have the same length (or 1, to broadcast)",
                )
    return sizes


def _computed(plain: str, terms: list[str], output: str, operands: list[Any]) -> Any:
    """np.einsum(plain, *operands); a long one (as many multiply-adds as the hooks' long_product,
    counted naively) a slice of its longest letter at a time, each slice sliced again while it is
    still long, so that a timeout can stop it between two."""
    sizes = letter_sizes(terms, operands)
    work = math.prod(sizes.values())
    if work < hooks.long_product:  # (a letter of length 1 each: work is 1)
        if work >= threads.MULTITHREADED:
            threads.product(work)
        return np.einsum(plain, *operands, optimize=len(operands) > 1)
    letter = max(sizes, key=sizes.__getitem__)
    step = max(1, sizes[letter] * hooks.long_product // (2 * work))
    parts = []
    for start in range(0, sizes[letter], step):
        cut = slice(start, start + step)
        sliced = [
            v[tuple(cut if c == letter and n > 1 else slice(None) for c, n in zip(t, np.shape(v), strict=True))]
            for t, v in zip(terms, operands, strict=True)
        ]
        parts.append(_computed(plain, terms, output, sliced))
    if letter in output:
        return np.concatenate(parts, axis=output.index(letter))
    return sum(parts[1:], parts[0])

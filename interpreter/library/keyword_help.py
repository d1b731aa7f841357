"""Help written as text for what is not a function: each keyword of the grammar (KEYWORDS), and the
constants and `with` contexts registered with `written` by the modules that define them. Each is how
it is written, one sentence and an example, written as a docstring is (help.py reads them;
tests/language/test_help.py runs every example and checks that every keyword of grammar/dg.lark has
an entry)."""

from __future__ import annotations

# Constants and contexts by name: (kind, signature, doc), as `written` was told them. Plain data, so
# that registering costs nothing at start-up: help.py, which reads a doc into its summary and
# example, loads when help is first asked for.
WRITTEN: dict[str, tuple[str, str, str]] = {}


def written(name: str, kind: str, signature: str, doc: str) -> None:
    """Register help for `name`, which is not a function (a constant, a `with` context)."""
    WRITTEN[name] = (kind, signature, doc)


IF_EXAMPLE = """
    >>> x = 3
    >>> if x > 5:
    ...     print("big")
    ... elif x > 2:
    ...     print("medium")
    ... else:
    ...     print("small")
    medium
    >>> "odd" if x % 2 == 1 else "even"
    'odd'
"""

KEYWORDS: dict[str, tuple[str, str]] = {
    "if": (
        "if CONDITION: ... elif CONDITION: ... else: ...",
        "Run the block of the first condition that is true; `a if c else b` is the value a or b." + IF_EXAMPLE,
    ),
    "elif": ("elif CONDITION:", "Another condition of an if, tried when the ones above it were false." + IF_EXAMPLE),
    "else": ("else:", "The block of an if that runs when none of its conditions was true." + IF_EXAMPLE),
    "while": (
        "while CONDITION: ...",
        """Repeat the block as long as the condition is true.

        >>> n = 1
        >>> while n < 100:
        ...     n *= 3
        >>> n
        243
        """,
    ),
    "for": (
        "for NAME in ITEMS: ...",
        """Run the block once for each item of a list, tuple, string, range, or each row of a tensor.

        >>> for i, word in enumerate(["a", "b"]):
        ...     print(i, word)
        0 a
        1 b
        >>> [n * n for n in range(4) if n != 2]
        [0, 1, 9]
        """,
    ),
    "in": (
        "x in ITEMS",
        """True when the items hold x (`not in`: when they do not); also the `in` of a for loop.

        >>> 2 in [1, 2, 3], "z" not in "abc"
        (True, True)
        """,
    ),
    "def": (
        "def NAME(PARAMETERS): ...",
        """Define a function; a parameter may have a default value, `def f(x, scale=2):`.

        >>> def double(x, times=2):
        ...     return times * x
        >>> double(21), double(2, times=5)
        (42, 10)
        """,
    ),
    "return": (
        "return VALUE",
        """Leave the function, giving VALUE (or None, written without one).

        >>> def sign(x):
        ...     if x < 0:
        ...         return -1
        ...     return 1
        >>> sign(-5)
        -1
        """,
    ),
    "pass": (
        "pass",
        """Do nothing: for a block that must be there but has nothing to do.

        >>> def later():
        ...     pass
        >>> print(later())
        None
        """,
    ),
    "break": (
        "break",
        """Leave the innermost loop at once.

        >>> for n in range(10):
        ...     if n == 3:
        ...         break
        >>> n
        3
        """,
    ),
    "continue": (
        "continue",
        """Go on with the next round of the innermost loop, skipping the rest of the block.

        >>> for n in range(4):
        ...     if n % 2 == 0:
        ...         continue
        ...     print(n)
        1
        3
        """,
    ),
    "grad": (
        "grad Y    or    grad Y with SEED",
        """Add dY/dx into .grad of every leaf x that requires grad (with a SEED when Y is not a single number).

        >>> x = tensor([1.0, 2.0], requires_grad=True)
        >>> grad (x * x).sum()
        >>> x.grad
        tensor([2., 4.])
        """,
    ),
    "with": (
        "with CONTEXT: ...",
        """Run the block inside a context: no_grad (record nothing), enable_grad or detect_anomaly.

        >>> w = tensor(1.0, requires_grad=True)
        >>> with no_grad:
        ...     w -= 0.25
        >>> w
        tensor(0.7500, requires_grad=True)
        """,
    ),
    "assert": (
        "assert CONDITION, MESSAGE",
        """Stop with an AssertionError saying MESSAGE unless the condition is true.

        >>> loss = 0.5
        >>> assert loss < 1, f"the loss is still {loss}"
        """,
    ),
    "del": (
        "del ITEMS[KEY]",
        """Remove a key and its value from a dict, or an item from a list.

        >>> scores = {"ada": 3, "bob": 5}
        >>> del scores["ada"]
        >>> scores
        {'bob': 5}
        """,
    ),
    "import": (
        "import MODULE",
        """Run the module MODULE.dg (once) and name it: its functions are then MODULE.NAME.

        >>> import nn
        >>> nn.batches(5, 2)
        [(0, 2), (2, 4), (4, 5)]
        """,
    ),
    "from": (
        "from MODULE import NAME, ...",
        """Run the module MODULE.dg (once) and take the names it defines.

        >>> from nn import batches
        >>> batches(5, 2)
        [(0, 2), (2, 4), (4, 5)]
        """,
    ),
    "and": (
        "a and b",
        """True when both are: gives a if a is false, else b.

        >>> 1 < 2 and 2 < 3, 0 and 5
        (True, 0)
        """,
    ),
    "or": (
        "a or b",
        """True when either is: gives a if a is true, else b.

        >>> 0 or "default", 1 > 2 or 2 > 1
        ('default', True)
        """,
    ),
    "not": (
        "not a",
        """True when a is false, False when a is true.

        >>> not [], not 3
        (True, False)
        """,
    ),
    "True": (
        "True",
        """The truth value true, as comparisons give it.

        >>> 1 < 2
        True
        """,
    ),
    "False": (
        "False",
        """The truth value false, as comparisons give it.

        >>> 2 < 1
        False
        """,
    ),
    "None": (
        "None",
        """No value: what a function without return gives, and .grad before any grad reached it.

        >>> x = tensor(1.0, requires_grad=True)
        >>> print(x.grad)
        None
        """,
    ),
}


def as_a_name(word: str) -> str:
    """The help line for a keyword written where a name must be (`grad = x.grad`, `def grad(f):`)."""
    if word == "grad":
        return "`grad y` is the statement that computes gradients; call it something else (g, dw, grad_w)"
    return f"'{word}' is a keyword of DG; call it something else"

"""Some cases of a parametrized test marked slow, the others left fast (tests/conftest.py says which
tests are slow and how the fast run leaves them out).

    @pytest.mark.parametrize("program", slow_where(LESSONS, lambda p: p.stem in LONG_LESSONS))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

# The lessons that train for seconds or minutes: any test that runs one to its end is slow.
LONG_LESSONS = frozenset({"18_tiny_gpt", "20_digits_cnn", "21_autoencoder", "22_vae"})


def slow_where(values: Iterable[Any], is_slow: Callable[[Any], bool]) -> list[Any]:
    """`values` for @pytest.mark.parametrize, each one for which is_slow(value) marked slow."""
    return [pytest.param(value, marks=pytest.mark.slow) if is_slow(value) else value for value in values]

"""Memory freed between ops kept for the next ones, rather than handed back to the system.

A training step frees arrays and makes new ones of the same sizes, op after op. glibc's malloc
gives an array above 128 KiB pages of its own and returns them when it is freed (raising that
line as it goes, but at most to 32 MiB), and trims the heap whenever its free top is larger than
twice the line: the next op's array then takes its pages from the kernel again, one fault per
page (docs/performance.md, "Memory kept between ops"). DG sets both lines once, at start-up:
arrays up to MMAP_THRESHOLD come from the heap, and up to TRIM_THRESHOLD of freed heap stays
with the process for the next op. That much more can stay resident than a program holds, which
the memory guards count as used: a small part of any --max-memory a lesson runs under.

Only glibc has these settings (mallopt); elsewhere (macOS, Windows, musl) nothing changes. glibc's
own variables, MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_, win over DG's.
"""

from __future__ import annotations

import ctypes
import os

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's <malloc.h>
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 64 << 20


def keep_freed_memory() -> bool:
    """Set glibc's thresholds (once is enough: they hold for the process); False where there is no glibc."""
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):  # not a POSIX system, or not glibc
        return False
    if not libc.startswith("glibc"):
        return False
    mallopt = ctypes.CDLL(None).mallopt
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    for option, value, variable in (
        (M_MMAP_THRESHOLD, MMAP_THRESHOLD, "MALLOC_MMAP_THRESHOLD_"),
        (M_TRIM_THRESHOLD, TRIM_THRESHOLD, "MALLOC_TRIM_THRESHOLD_"),
    ):
        if variable not in os.environ:
            mallopt(option, value)
    return True

"""How much memory this process holds now, and how much the machine has: read cheaply, on every OS.

The guards on the engine (guards.py) compare the process's resident set (the memory it actually
occupies, NumPy's arrays and Python's objects alike) with the limit before each large allocation,
and the watchdog (watchdog.py) compares it every few milliseconds while a program runs. Each OS has its own
way to ask: Linux's /proc/self/statm (one read of a file kept open, about 2 µs), macOS's
task_info, Windows' GetProcessMemoryInfo (both through ctypes, which NumPy imports anyway). An OS
with none of these gets the peak resident size from `resource` (a limit then holds for the
largest the process has ever been), or, failing that, None: no total budget, only the per-tensor one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

GiB = 1 << 30


def resident_bytes() -> int | None:
    """The process's resident memory in bytes, or None where it cannot be read."""
    return _reader()()


def physical_bytes() -> int | None:
    """The machine's physical memory in bytes, or None where it cannot be read."""
    try:
        if sys.platform == "win32":
            return _windows_physical()
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def default_budget() -> int:
    """The memory a run may hold unless told otherwise: 4 GiB, or half the machine if that is less."""
    physical = physical_bytes()
    return min(4 * GiB, physical // 2) if physical else 4 * GiB


# ---- one reader per OS, chosen on first use -------------------------------------------------------
_chosen: Callable[[], int | None] | None = None


def _reader() -> Callable[[], int | None]:
    global _chosen
    if _chosen is None:
        for make in (*READERS.get(sys.platform, ()), _peak_reader):
            try:
                reader = make()
                if reader() is not None:
                    _chosen = reader
                    break
            except Exception:  # an API missing on this build of the OS: try the next way
                continue
        else:
            _chosen = lambda: None
    return _chosen


def _linux_reader() -> Callable[[], int | None]:
    page = os.sysconf("SC_PAGE_SIZE")
    opened = [os.getpid(), os.open("/proc/self/statm", os.O_RDONLY)]

    def read() -> int:
        if opened[0] != os.getpid():  # a forked child: /proc/self was resolved when the file was opened
            opened[:] = [os.getpid(), os.open("/proc/self/statm", os.O_RDONLY)]
        return int(os.pread(opened[1], 128, 0).split()[1]) * page

    return read


def _macos_reader() -> Callable[[], int | None]:
    import ctypes

    class TimeValue(ctypes.Structure):
        _fields_ = [("seconds", ctypes.c_int), ("microseconds", ctypes.c_int)]

    class MachTaskBasicInfo(ctypes.Structure):  # <mach/task_info.h>, MACH_TASK_BASIC_INFO
        _pack_ = 4
        _fields_ = [
            ("virtual_size", ctypes.c_uint64),
            ("resident_size", ctypes.c_uint64),
            ("resident_size_max", ctypes.c_uint64),
            ("user_time", TimeValue),
            ("system_time", TimeValue),
            ("policy", ctypes.c_int),
            ("suspend_count", ctypes.c_int),
        ]

    libc = ctypes.CDLL("/usr/lib/libSystem.B.dylib")
    task = ctypes.c_uint.in_dll(libc, "mach_task_self_")
    mach_task_basic_info = 20
    info = MachTaskBasicInfo()

    def read() -> int | None:
        count = ctypes.c_uint(ctypes.sizeof(info) // ctypes.sizeof(ctypes.c_uint))
        if libc.task_info(task, mach_task_basic_info, ctypes.byref(info), ctypes.byref(count)) != 0:
            return None
        return int(info.resident_size)

    return read


def _windows_counters() -> tuple[type, object, object]:
    import ctypes
    from ctypes import wintypes

    class ProcessMemoryCounters(ctypes.Structure):  # <psapi.h>, PROCESS_MEMORY_COUNTERS
        _fields_ = [
            ("cb", wintypes.DWORD),
            ("PageFaultCount", wintypes.DWORD),
            ("PeakWorkingSetSize", ctypes.c_size_t),
            ("WorkingSetSize", ctypes.c_size_t),
            ("QuotaPeakPagedPoolUsage", ctypes.c_size_t),
            ("QuotaPagedPoolUsage", ctypes.c_size_t),
            ("QuotaPeakNonPagedPoolUsage", ctypes.c_size_t),
            ("QuotaNonPagedPoolUsage", ctypes.c_size_t),
            ("PagefileUsage", ctypes.c_size_t),
            ("PeakPagefileUsage", ctypes.c_size_t),
        ]

    kernel32 = ctypes.WinDLL("kernel32")  # type: ignore[attr-defined]
    kernel32.GetCurrentProcess.restype = wintypes.HANDLE
    return ProcessMemoryCounters, kernel32, kernel32.GetCurrentProcess()


def _windows_reader() -> Callable[[], int | None]:
    import ctypes

    counters_type, kernel32, process = _windows_counters()
    counters = counters_type()
    counters.cb = ctypes.sizeof(counters)

    def read() -> int | None:
        if not kernel32.K32GetProcessMemoryInfo(process, ctypes.byref(counters), counters.cb):
            return None
        return int(counters.WorkingSetSize)

    return read


def _windows_physical() -> int | None:
    import ctypes

    class MemoryStatus(ctypes.Structure):  # <sysinfoapi.h>, MEMORYSTATUSEX
        _fields_ = [
            ("dwLength", ctypes.c_uint32),
            ("dwMemoryLoad", ctypes.c_uint32),
            ("ullTotalPhys", ctypes.c_uint64),
            ("ullAvailPhys", ctypes.c_uint64),
            ("ullTotalPageFile", ctypes.c_uint64),
            ("ullAvailPageFile", ctypes.c_uint64),
            ("ullTotalVirtual", ctypes.c_uint64),
            ("ullAvailVirtual", ctypes.c_uint64),
            ("ullAvailExtendedVirtual", ctypes.c_uint64),
        ]

    status = MemoryStatus()
    status.dwLength = ctypes.sizeof(status)
    if not ctypes.WinDLL("kernel32").GlobalMemoryStatusEx(ctypes.byref(status)):  # type: ignore[attr-defined]
        return None
    return int(status.ullTotalPhys)


def _peak_reader() -> Callable[[], int | None]:
    """The largest the process has been (ru_maxrss: kilobytes on Linux and BSD, bytes on macOS)."""
    import resource

    scale = 1 if sys.platform == "darwin" else 1024
    return lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


READERS: dict[str, tuple[Callable[[], Callable[[], int | None]], ...]] = {
    "linux": (_linux_reader,),
    "darwin": (_macos_reader,),
    "win32": (_windows_reader,),
}

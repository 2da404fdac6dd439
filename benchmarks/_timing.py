"""Small timing helpers shared by the benchmark scripts (not part of the package)."""

import platform
import time

import numpy as np


def best_time(function, *, repeat: int = 3) -> float:
    """Best wall-clock time of ``repeat`` calls, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def growth_exponent(sizes, seconds) -> float:
    """Slope of log(time) against log(n): 1 = linear, 2 = quadratic."""
    return float(np.polyfit(np.log(sizes), np.log(seconds), 1)[0])


def machine() -> str:
    import os

    return f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, {platform.machine()}"

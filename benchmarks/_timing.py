"""Small timing helpers shared by the benchmark scripts (not part of the package).

``Results`` records what a script prints (tables and key numbers) and writes it
to ``benchmarks/results/<script>.json``, which the book's performance appendix
reads::

    results = Results(__file__)
    results.table("graph build", "build_feasibility_graph on Adult samples", frame)
    results.value("growth exponent: graph build", 1.93, note="slope of log time on log n")
    results.target("RAGUEL 30,000 rows", seconds, "<=", 2.5, unit="s")
    results.save()
"""

import json
import math
import os
import platform
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import numpy as np

RESULTS_DIR = Path(__file__).resolve().parent / "results"
# dice-ml: only in benchmarks/dice_comparison.py's own environment
VERSIONED = ("numpy", "scipy", "scikit-learn", "pandas", "jax", "pulp", "networkx", "dice-ml")

# every repeated timing (best_time, or a script's own loop via note_repeats) of the running script
_REPEATS: list[list[float]] = []


def note_repeats(seconds) -> None:
    """Remember the individual times of one repeated measurement (for the run-to-run spread)."""
    seconds = [float(s) for s in seconds]
    if len(seconds) >= 2:
        _REPEATS.append(seconds)


def best_time(function, *, repeat: int = 3) -> float:
    """Best wall-clock time of ``repeat`` calls, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    note_repeats(times)
    return min(times)


def growth_exponent(sizes, seconds) -> float:
    """Slope of log(time) against log(n): 1 = linear, 2 = quadratic."""
    return float(np.polyfit(np.log(sizes), np.log(seconds), 1)[0])


def machine() -> str:
    python = f"{platform.python_implementation()} {platform.python_version()}"
    return f"{python}, {os.cpu_count()} cores, {platform.machine()}"


def _plain(value):
    """A JSON-ready copy: numpy scalars to Python, floats to 6 significant digits, NaN and infinities to None."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return float(f"{value:.6g}") if math.isfinite(value) else None  # 6 significant digits are plenty
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


class Results:
    """Collects one benchmark script's tables and key numbers and saves them as JSON.

    Parameters
    ----------
    script : str
        The script's ``__file__`` (or its name); the file written is
        ``benchmarks/results/<stem>.json``. Create the recorder first thing, so
        ``total_seconds`` covers the whole run.
    """

    def __init__(self, script: str):
        self.script = Path(script).stem
        self._start = time.perf_counter()
        self.tables: dict[str, dict] = {}
        self.values: dict[str, dict] = {}
        self.targets: dict[str, dict] = {}
        _REPEATS.clear()

    def table(self, key: str, title: str, frame, note: str = ""):
        """Record a printed table (a DataFrame) under ``key``; returns ``frame`` unchanged."""
        self.tables[key] = {"title": title, "note": note, "columns": [str(c) for c in frame.columns],
                            "records": _plain(frame.to_dict(orient="records"))}
        return frame

    def value(self, key: str, value, note: str = ""):
        """Record one number (a growth exponent, a ratio, a time) under ``key``; returns ``value``."""
        self.values[key] = {"value": _plain(value), "note": note}
        return value

    def target(self, key: str, measured, comparison: str, limit, *, unit: str = "", note: str = "") -> bool:
        """Record a target such as ``measured <= limit`` and whether it is met; returns ``met``."""
        met = {"<=": measured <= limit, ">=": measured >= limit}[comparison]
        self.targets[key] = {"measured": _plain(measured), "comparison": comparison, "limit": _plain(limit),
                             "unit": unit, "met": bool(met), "note": note}
        return bool(met)

    def save(self) -> Path:
        """Write ``benchmarks/results/<script>.json`` and return its path."""
        versions = {"python": platform.python_version()}
        for name in VERSIONED:
            try:
                versions[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                pass
        spreads = [max(t) / min(t) - 1 for t in _REPEATS if min(t) > 0]
        repeats = {"measurements": len(spreads),
                   "median spread": float(np.median(spreads)) if spreads else None,
                   "max spread": float(np.max(spreads)) if spreads else None,
                   "note": "spread = slowest / fastest - 1 over the repeats of one measurement "
                           "(the tables report the fastest, or the median where a table says so)"}
        out = {"script": self.script,
               "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "machine": machine(),
               "versions": versions,
               "total_seconds": round(time.perf_counter() - self._start, 2),
               "repeats": repeats,
               "tables": self.tables,
               "values": self.values,
               "targets": self.targets}
        RESULTS_DIR.mkdir(exist_ok=True)
        path = RESULTS_DIR / f"{self.script}.json"
        path.write_text(json.dumps(_plain(out), indent=1, ensure_ascii=False) + "\n")
        return path


def save_merged(results: Results) -> Path:
    """Merge one partial run (e.g. a script's ``--only`` part) into the script's saved JSON and return its path.

    The tables, values and targets of ``results`` replace those of the same key;
    every other key of the last full run is kept, with its date and repeats. The
    partial run's seconds are added to ``total_seconds``, and its date, seconds,
    keys and repeat spreads are appended to the list ``"partial runs"``. Without
    a saved file this is ``results.save()``.
    """
    path = RESULTS_DIR / f"{results.script}.json"
    if not path.exists():
        return results.save()
    out = json.loads(path.read_text())
    seconds = round(time.perf_counter() - results._start, 2)
    for part in ("tables", "values", "targets"):
        out[part].update(_plain(getattr(results, part)))
    keys = [*results.tables, *results.values, *results.targets]
    earlier = [run for run in out.get("partial runs", []) if run["keys"] == keys]   # a re-run replaces them
    out["partial runs"] = [run for run in out.get("partial runs", []) if run["keys"] != keys]
    out["total_seconds"] = round(out["total_seconds"] - sum(run["seconds"] for run in earlier) + seconds, 2)
    spreads = [max(t) / min(t) - 1 for t in _REPEATS if min(t) > 0]
    out["partial runs"].append(_plain({
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "machine": machine(),
        "seconds": seconds, "keys": keys,
        "repeats": {"measurements": len(spreads), "max spread": max(spreads) if spreads else None}}))
    path.write_text(json.dumps(_plain(out), indent=1, ensure_ascii=False) + "\n")
    return path


def _status_mb(field: str):
    """One memory field of /proc/self/status in MB (Linux), or None elsewhere."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def start_memory_peak():
    """Reset this process's peak resident memory (Linux) and return the resident memory now, in MB.

    Pair it with ``memory_peak()`` after the calls to measure: their peak is
    ``memory_peak()``, and what the calls added on top of what the process
    already held is the difference. Returns None where the kernel does not allow
    the reset (then ``memory_peak()`` is the process's peak since it started).
    """
    try:
        Path("/proc/self/clear_refs").write_text("5")   # 5 = reset the peak resident set size
    except OSError:
        return None
    return _status_mb("VmRSS")


def memory_peak():
    """Peak resident memory of this process in MB since ``start_memory_peak()`` (or since it started)."""
    import resource  # here, so the module's imports stay as they were

    peak = _status_mb("VmHWM")
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def shared_machine_note(load: float) -> str:
    """The note a table gets when other jobs ran beside the benchmark (1-minute load average above 1.5)."""
    if load <= 1.5:
        return ""
    return (f"; the machine was shared with other jobs (1-minute load average up to {load:.1f} on "
            f"{os.cpu_count()} cores), so the times are upper bounds")

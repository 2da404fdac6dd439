"""Execute one or more chapters top to bottom, as the book build does, and report errors and stderr.

Usage: .venv/bin/python tools/run_chapter.py book/fair_ranking.md [book/other.md ...]
(or `make chapter CH=fair_ranking`). Exits non-zero on a cell error, on any
stderr output (the book build treats stderr as a warning and fails), or on an
{eval} role in the prose that does not evaluate where it stands, or whose value would render as a numpy
repr ("np.int64(2)"): as in the book's
inline execution, each markdown cell's roles are evaluated right after the code
cells above it ran (a check cell is inserted before it), so a number shown before
the cell that computes it fails here as it fails the build.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

EVAL_ROLE = re.compile(r"\{eval\}`([^`]+)`")


# the book renders an {eval} value by its repr: a numpy scalar would show as "np.int64(2)"
EVAL_SHOWN = """def _eval_shown(value, expression):
    shown = repr(value)
    assert not shown.startswith(("np.", "array(")), (
        f"{{eval}}`{expression}` renders as {shown}: store a str or a Python number (int(), float(), f-string)")
"""


def with_eval_checks(notebook):
    """Insert, before every markdown cell with {eval} roles, a code cell that evaluates them."""
    cells = []
    for cell in notebook.cells:
        expressions = EVAL_ROLE.findall(cell.source) if cell.cell_type == "markdown" else []
        if expressions:
            check = "\n".join(f"_eval_shown({expression}, {expression!r})  # {{eval}} role of the next markdown cell"
                              for expression in expressions)
            cells.append(nbformat.v4.new_code_cell(EVAL_SHOWN + check + "\nNone", metadata={"tags": ["eval-check"]}))
        cells.append(cell)
    notebook.cells = cells
    return notebook


def run(path: Path) -> bool:
    if "{code-cell}" not in path.read_text():
        print(f"{path}: no code cells (a plain page), skipped")
        return True
    notebook = with_eval_checks(jupytext.read(path))
    client = NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    try:
        client.execute()
    except CellExecutionError as err:
        print(f"{path}: cell error after {time.perf_counter() - start:.1f} s\n{err}")
        return False
    problems = []
    for number, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                problems.append(f"cell {number}: stderr: {output.get('text', '')[:500]}")
    elapsed = time.perf_counter() - start
    if problems:
        print(f"{path}: {len(problems)} stderr output(s) in {elapsed:.1f} s")
        print("\n".join(problems))
        return False
    print(f"{path}: ok in {elapsed:.1f} s")
    return True


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    results = [run(Path(arg)) for arg in sys.argv[1:]]
    sys.exit(0 if all(results) else 1)

"""Store chapters exactly as jupytext (and so JupyterLab's save) writes them.

Usage: .venv/bin/python tools/normalize_chapters.py [book/chapter.md ...]   (default: every MyST notebook
under book/). Opening and saving a chapter in JupyterLab then changes no byte; `tests/test_book.py` checks
that every chapter round-trips unchanged.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jupytext

BOOK = Path(__file__).resolve().parent.parent / "book"
# the name JupyterLab gives the kernel when it saves a notebook (ipykernel's kernel.json)
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def notebooks(paths=None) -> list[Path]:
    """The MyST notebooks among ``paths`` (default: every page of the book with code cells)."""
    candidates = [Path(p) for p in paths] if paths else sorted(p for p in BOOK.rglob("*.md")
                                                                if ".ipynb_checkpoints" not in p.parts)
    return [p for p in candidates if "{code-cell}" in p.read_text()]


def normalized(text: str) -> str:
    """``text`` as jupytext writes it back, with the kernel named as JupyterLab names it."""
    notebook = jupytext.reads(text, fmt="md:myst")
    notebook.metadata["kernelspec"] = dict(KERNELSPEC)
    return jupytext.writes(notebook, fmt="md:myst")


if __name__ == "__main__":
    for path in notebooks(sys.argv[1:]):
        text = path.read_text()
        new = normalized(text)
        if new != text:
            path.write_text(new)
            print(f"normalized {path}")

"""Run each lesson's visible cells alone, in order, in a fresh kernel, and compare with the book's outputs.

DESIGN section 4: "A student who copies the visible cells in order into a fresh notebook gets the same
outputs." This drops every hidden cell (tags remove-cell / remove-input), executes the rest with nbclient
and compares each visible cell's text outputs (printed text, the plain-text form of tables and values,
and whether it drew a figure) with the same cell in the notebook the book build executed
(``_build/html/_sources/book/<page>.ipynb``; ``make book`` writes it). It also prints each lesson's
execution time in that fresh kernel: the lesson budget asks for at most 60 s.

Usage: .venv/bin/python tools/run_alone.py [--execute] [--compare] [book/page.md ...]
(default: both steps, on the lessons of _toc.yml that tools/lessons.py counts as rebuilt). ``make book``
runs ``--execute`` beside the build (on the second core) and ``--compare`` after it. Exits non-zero on a
cell error or a differing output.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lessons  # noqa: E402

ADDRESS = re.compile(r"0x[0-9a-f]{6,}")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _visible_code(notebook) -> list:
    return [cell for cell in notebook.cells if cell.cell_type == "code" and not lessons._hidden(cell)]


def _signature(cell) -> list[str]:
    """What a reader sees of a cell's outputs, as comparable text.

    The book merges a cell's streams (MyST-NB's ``merge_streams``) into the first place, yet its stored
    notebook keeps the later stream outputs too; so on both sides a stream is compared as its distinct
    lines in order of first appearance, at the place of its first output."""
    out, streams = [], {}
    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "stream":
            name = output.get("name")
            if name not in streams:
                streams[name] = (len(out), [])
                out.append("")
            place, chunks = streams[name]
            chunks.append(output.get("text", ""))  # a busy kernel may flush one printed line in two chunks
            out[place] = f"{name}: " + "\n".join(dict.fromkeys("".join(chunks).splitlines()))
        elif kind in ("execute_result", "display_data"):
            data = output.get("data", {})
            if "image/png" in data or "image/svg+xml" in data:
                out.append("[figure]")
            elif "text/plain" in data:
                out.append(str(data["text/plain"]))
        elif kind == "error":
            out.append(f"error: {output.get('ename')}")
    return [ADDRESS.sub("0x…", text) for text in out]


def run_alone(path: Path, out: Path) -> bool:
    """Execute the visible cells of ``path`` in a fresh kernel; store the notebook (and its seconds) in ``out``."""
    notebook = lessons.notebook(path)
    notebook.cells = _visible_code(notebook)
    client = NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    error = None
    try:
        client.execute()
    except CellExecutionError as err:
        error = (ANSI.sub("", str(err)).strip().splitlines() or ["error"])[-1]
    notebook.metadata["run_alone"] = {"seconds": round(time.perf_counter() - start, 1), "error": error}
    out.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, out / f"{path.stem}.ipynb")
    return error is None


def compare(path: Path, out: Path, built: Path) -> bool:
    """Compare the stored alone-run of ``path`` with the notebook the book build executed."""
    stored = out / f"{path.stem}.ipynb"
    if not stored.exists():
        print(f"{path.name}: no alone-run in {out}; run with --execute first")
        return False
    alone = nbformat.read(stored, as_version=4)
    seconds, error = alone.metadata["run_alone"]["seconds"], alone.metadata["run_alone"]["error"]
    if error:
        print(f"{path.name}: the visible cells alone fail after {seconds} s: {error}")
        return False
    executed = built / "_sources" / path.relative_to(lessons.ROOT).with_suffix(".ipynb")
    if not executed.exists():
        print(f"{path.name}: visible cells run alone in {seconds} s; no built notebook {executed} to compare with")
        return False
    cells, reference = alone.cells, _visible_code(nbformat.read(executed, as_version=4))
    if len(reference) != len(cells):
        print(f"{path.name}: {len(cells)} visible cells alone, {len(reference)} in {executed}; rebuild the book")
        return False
    differing = [i for i, (a, b) in enumerate(zip(cells, reference, strict=True)) if _signature(a) != _signature(b)]
    for i in differing[:3]:
        print(f"  visible cell {i}:\n    alone: {_signature(cells[i])[:2]}\n    book:  {_signature(reference[i])[:2]}")
    print(f"{path.name}: visible cells run alone in {seconds} s; "
          + ("same outputs as the book" if not differing else f"{len(differing)} cells differ from the book"))
    return not differing


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", type=Path)
    parser.add_argument("--execute", action="store_true", help="run the visible cells alone (store the notebooks)")
    parser.add_argument("--compare", action="store_true", help="compare the stored runs with the built book")
    parser.add_argument("--out", type=Path, default=lessons.ROOT / "_build" / "alone")
    parser.add_argument("--built", type=Path, default=lessons.ROOT / "_build" / "html")
    args = parser.parse_args(argv)
    pages = [p.resolve() for p in args.pages] or lessons.rebuilt_lessons()
    if not pages:
        print("no rebuilt lesson to run alone yet")
        return 0
    if not (args.execute or args.compare):
        args.execute = args.compare = True
    ok = True
    if args.execute:
        ok &= all([run_alone(page, args.out) for page in pages])
    if args.compare:
        ok &= all([compare(page, args.out, args.built) for page in pages])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

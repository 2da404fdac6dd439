"""The student edition of the book: every solution removed, from the pages and from the downloads.

Loaded by ``_config.yml`` (``sphinx.local_extensions``). It does nothing unless sphinx-exercise's
``hide_solutions`` is true, which ``make book-student`` sets (``tools/student_config.py``).

Two gaps of sphinx-exercise 1.2.1 that it closes:

* ``hide_solutions`` drops a ``{solution}`` block, but a *gated* solution (``{solution-start}`` ...
  ``{solution-end}``, the form our chapters use so that a solution can hold code cells) loses only
  its opening directive: the text and code cells between stay on the page and the orphaned end
  marker crashes the HTML writer (sphinx-exercise issue #89). Here the start directive leaves a
  marker when solutions are hidden, and a transform removes everything from the marker to the end
  marker.
* The page's download menu offers the chapter's source (``_sources/<page>.md``) and the executed
  notebook (``_sources/<page>.ipynb``, copied there by sphinx-book-theme); both still hold the
  solutions. When the build finishes, ``strip_solutions_*`` removes them from every file in
  ``_sources``.

It also removes the hidden cells (tagged ``remove-cell`` or ``remove-input``) from those downloads:
they assert the page's claims, and some compute an exercise's answer. The lessons' visible cells run
alone (``tools/run_alone.py``, checked by ``make book``), so a student's notebook still runs without
them. A page whose visible cells read a name that only a hidden cell binds (found statically by
``tools/lessons.py``; e.g. the practitioner's audit page, the RAGUEL report) keeps its hidden cells in the download.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import shutil
from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)

# a MyST fence that opens a directive: ```{name} ... or :::{name} ...
FENCE_OPEN = re.compile(r"^\s*(`{3,}|:{3,})\s*\{(solution|solution-start|solution-end)\}")


class hidden_solution_gate(nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """Where a hidden gated solution starts; removed with the solution by HideGatedSolutions."""


def _skip(translator, node):
    raise nodes.SkipNode


class HideGatedSolutions(SphinxTransform):
    """Remove each hidden gated solution: its marker, every sibling after it, and its end marker.

    Runs before sphinx-exercise merges gated solutions (priority 10), so that nothing of a
    hidden solution reaches the merge, the search index or the writers.
    """

    default_priority = 9

    def apply(self):
        from sphinx_exercise.nodes import solution_end_node

        for gate in list(self.document.findall(hidden_solution_gate)):
            parent = gate.parent
            start = parent.index(gate)
            end = next((i for i in range(start, len(parent.children))
                        if isinstance(parent.children[i], solution_end_node)), None)
            if end is None:
                LOGGER.error("a hidden {solution-start} has no {solution-end} after it at the same level",
                             location=gate)
                parent.remove(gate)
                continue
            for child in parent.children[start:end + 1]:
                parent.remove(child)


def _gated_start_directive():
    from sphinx_exercise.directive import SolutionStartDirective

    class HidingSolutionStartDirective(SolutionStartDirective):
        """``{solution-start}`` that leaves a marker when solutions are hidden (else unchanged)."""

        def run(self):
            result = super().run()
            if self.env.app.config.hide_solutions:
                marker = hidden_solution_gate()
                self.set_source_info(marker)
                return [marker]
            return result

    return HidingSolutionStartDirective


class _Stripper:
    """Line-by-line state machine that drops MyST solution blocks (plain and gated).

    States: ``None`` (keep), ``"solution"`` (inside a ``{solution}`` fence), ``"start"`` (inside
    the ``{solution-start}`` fence), ``"gated"`` (between the start and end fences: everything is
    dropped, code cells included), ``"end"`` (inside the ``{solution-end}`` fence).
    """

    def __init__(self):
        self.state = None
        self.closer = None

    @property
    def dropping(self) -> bool:
        return self.state is not None

    def keep(self, line: str) -> bool:
        """Feed one line; return whether it stays."""
        stripped = line.strip()
        if self.state in ("solution", "start", "end"):
            if stripped and set(stripped) == {self.closer[0]} and len(stripped) >= len(self.closer):
                self.state = "gated" if self.state == "start" else None
            return False
        match = FENCE_OPEN.match(line)
        if match and self.state is None and match.group(2) in ("solution", "solution-start"):
            self.state, self.closer = ("solution" if match.group(2) == "solution" else "start"), match.group(1)
            return False
        if match and self.state == "gated" and match.group(2) == "solution-end":
            self.state, self.closer = "end", match.group(1)
            return False
        return self.state is None

    def finish(self, where: str):
        if self.state is not None:
            raise ValueError(f"{where}: a solution block is not closed (state {self.state!r})")


HIDDEN_TAGS = {"remove-cell", "remove-input"}
_CODE_CELL = re.compile(r"^(`{3,})\{code-cell\}")
_TAGS = re.compile(r"^:tags:\s*\[([^\]]*)\]")


def strip_hidden_text(text: str) -> str:
    """Return MyST text without its hidden code cells (a ``:tags:`` line naming a hidden tag)."""
    lines, kept, i = text.splitlines(keepends=True), [], 0
    while i < len(lines):
        opening = _CODE_CELL.match(lines[i])
        if opening:
            fence = opening.group(1)
            end = next((j for j in range(i + 1, len(lines)) if lines[j].rstrip() == fence), len(lines) - 1)
            header = [ln.strip() for ln in lines[i + 1:end] if ln.startswith(":")]
            tags = {t.strip() for h in header if (m := _TAGS.match(h)) for t in m.group(1).split(",")}
            if tags & HIDDEN_TAGS:
                i = end + 1
                while i < len(lines) and not lines[i].strip() and kept and not kept[-1].strip():
                    i += 1  # no run of blank lines where the cell was
                continue
        kept.append(lines[i])
        i += 1
    return "".join(kept)


def strip_hidden_notebook(notebook: dict) -> dict:
    """Return a notebook (nbformat 4 as a dict) without its hidden code cells."""
    cells = [c for c in notebook["cells"]
             if not (c["cell_type"] == "code" and HIDDEN_TAGS & set(c.get("metadata", {}).get("tags", [])))]
    return {**notebook, "cells": cells}


def strip_solutions_text(text: str, where: str = "text") -> str:
    """Return MyST text (a chapter's ``.md``) without its ``{solution}`` and gated solution blocks.

    Raises
    ------
    ValueError
        If a solution block is left open at the end of the text.
    """
    stripper = _Stripper()
    kept = [line for line in text.splitlines(keepends=True) if stripper.keep(line)]
    stripper.finish(where)
    return "".join(kept)


def strip_solutions_notebook(notebook: dict, where: str = "notebook") -> dict:
    """Return a notebook (nbformat 4 as a dict) without its solutions.

    Markdown cells lose their solution blocks (a cell left empty is dropped); every cell between a
    ``{solution-start}`` and its ``{solution-end}`` (code cells included) is dropped.
    """
    stripper = _Stripper()
    cells = []
    for cell in notebook["cells"]:
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            kept = "".join(line for line in source.splitlines(keepends=True) if stripper.keep(line))
            if kept.strip():
                cells.append({**cell, "source": kept})
        elif not stripper.dropping:
            cells.append(cell)
    stripper.finish(where)
    return {**notebook, "cells": cells}


@functools.cache
def _lessons_tool():
    """``tools/lessons.py``, whose static check finds visible cells that read names only hidden cells bind."""
    spec = importlib.util.spec_from_file_location("lessons", Path(__file__).resolve().parents[2] / "tools/lessons.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def needs_hidden_cells(cells) -> bool:
    """Whether a visible code cell reads a name that only a hidden cell binds (nbformat-4 cells)."""
    return any(why == "bound only in a hidden cell" for _, _, why in _lessons_tool().names_from_hidden_cells_in(cells))


def strip_sources(outdir: Path) -> int:
    """Strip the solutions and hidden cells from every ``.md`` and ``.ipynb`` under ``outdir/_sources``.

    A page whose visible cells read a name that only its hidden cells bind keeps its hidden cells
    (its download would otherwise stop at a NameError); its solutions go all the same.
    """
    import jupytext

    count = 0
    for path in sorted((Path(outdir) / "_sources").rglob("*")):
        if path.suffix == ".md":
            text = strip_solutions_text(path.read_text(encoding="utf8"), str(path))
            cells = jupytext.reads(text, fmt="md:myst").cells
            path.write_text(text if needs_hidden_cells(cells) else strip_hidden_text(text), encoding="utf8")
            count += 1
        elif path.suffix == ".ipynb":
            notebook = strip_solutions_notebook(json.loads(path.read_text(encoding="utf8")), str(path))
            if not needs_hidden_cells(notebook["cells"]):
                notebook = strip_hidden_notebook(notebook)
            path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf8")
            count += 1
    return count


def _strip_downloads(app, exception):
    if exception is not None or not app.config.hide_solutions or app.builder.format != "html":
        return
    count = strip_sources(Path(app.outdir))
    LOGGER.info(f"student edition: solutions removed from {count} downloadable sources")


def _offer_notebook_download(app, pagename, templatename, context, doctree):
    """Copy the executed notebook to ``_sources`` and offer it in the download menu, as the theme does.

    sphinx-book-theme does this only while a launch button (Binder, JupyterHub, ...) is configured, and the
    student edition turns those off (they open the repository, solutions included). Runs before the theme's
    handlers (priority 500 < 501); ``_strip_downloads`` then removes the solutions from the copy.
    """
    if not app.config.hide_solutions or app.builder.format != "html":
        return
    from sphinx_book_theme.header_buttons.launch import _is_notebook

    if not _is_notebook(app, context) or not context.get("sourcename", "").endswith((".md", ".md.txt")):
        return
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if executed.exists():
        target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(executed, target)
        context["ipynb_source"] = f"{pagename}.ipynb"


def setup(app):
    app.setup_extension("sphinx_exercise")
    app.add_node(hidden_solution_gate, html=(_skip, None), latex=(_skip, None), text=(_skip, None))
    app.add_directive("solution-start", _gated_start_directive(), override=True)
    app.add_transform(HideGatedSolutions)
    app.connect("html-page-context", _offer_notebook_download, priority=500)
    app.connect("build-finished", _strip_downloads)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

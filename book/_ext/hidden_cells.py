"""Run the chapters' hidden cells under inline execution (loaded by ``_config.yml``, ``sphinx.local_extensions``).

The chapters hide their claim-checking and number-formatting cells with the usual Jupyter Book tag
``remove-cell``. The book executes inline (``execute_notebooks: inline``), so that the prose's
``{eval}`txt.name``` roles can read the kernel; but MyST-NB's inline executor runs a cell only when
it renders it, and drops ``remove-cell`` cells before rendering: their asserts would silently never
run and the numbers they set would be missing. So, as each page is read, this extension turns
``remove-cell`` in a code cell's ``:tags:`` into ``remove-input, remove-output``: the cell runs in
order and nothing of it reaches the page, exactly what ``remove-cell`` means under the other
execution modes. The .md files keep the standard tag; nothing changes in JupyterLab, where every
cell runs anyway.
"""

from __future__ import annotations

import re

# a code cell's tag option line, e.g. ":tags: [remove-cell]" or ":tags: [remove-cell, full-width]"
TAGS_LINE = re.compile(r"^(:tags:[ \t]*\[)([^\]\n]*)(\][ \t]*)$", re.M)


def run_hidden_cells(text: str) -> str:
    """The page's source with each ``remove-cell`` tag replaced by ``remove-input, remove-output``."""

    def replace(match: re.Match) -> str:
        tags = [tag.strip() for tag in match.group(2).split(",") if tag.strip()]
        if "remove-cell" not in tags:
            return match.group(0)
        kept = [tag for tag in tags if tag not in ("remove-cell", "remove-input", "remove-output")]
        return f"{match.group(1)}{', '.join(['remove-input', 'remove-output', *kept])}{match.group(3)}"

    return TAGS_LINE.sub(replace, text)


def _on_source_read(app, docname, source):
    if app.config.nb_execution_mode == "inline":
        source[0] = run_hidden_cells(source[0])


def setup(app):
    app.connect("source-read", _on_source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""A small Sphinx extension for the book's static pages (loaded by ``_config.yml``, ``sphinx.local_extensions``).

Two fixes for the console errors of the rendered pages (``tools/check_static_pages.py`` checks them):

* **No ipywidgets embedding.** The explorers need a kernel; on a static page their
  sliders moved and changed nothing, and the widget embedder (``embed-amd.js``
  from ``@jupyter-widgets/html-manager``, loaded with require.js) called the
  MathJax 2 API under the book's MathJax 3 ("Cannot read properties of undefined
  (reading 'Queue')") and asked for six icon fonts at a path that does not exist
  (six 404s). The book shows each explorer's HTML note instead
  (``nb_mime_priority_overrides`` in ``_config.yml`` drops the widget view), so
  the embedder, require.js and the widget-state JSON are removed from every page
  here: they would load ~1 MB of JavaScript for nothing.
* **No script twice.** sphinx-thebe registers its inline configuration
  (``const THEBE_JS_URL = ...``) once with the builder and once with the
  registry, so pages declared the constant twice ("Identifier 'THEBE_JS_URL'
  has already been declared"). Identical scripts are kept once.

It also adds the book's stylesheet, ``book/_static/recourselab.css`` (table cell padding, tables and
outputs that scroll in their own box on a phone, figures that scale to the column), to every page.

The kernel-free twins (``recourselab.viz.twin_chart``) load Vega from the CDN
themselves and need nothing from here.
"""

from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "_static"
STYLESHEET = "recourselab.css"

WIDGET_SCRIPTS = ("require.min.js", "require.js", "@jupyter-widgets/html-manager")
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def _is_widget_script(script) -> bool:
    filename = getattr(script, "filename", None) or ""
    attributes = getattr(script, "attributes", {}) or {}
    return attributes.get("type") == WIDGET_STATE or any(part in filename for part in WIDGET_SCRIPTS)


def clean_page_scripts(app, pagename, templatename, context, doctree):
    """Drop the widget embedder and repeated scripts from one page's script list."""
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    seen, kept = set(), []
    for script in scripts:
        if _is_widget_script(script):
            continue
        attributes = getattr(script, "attributes", {}) or {}
        # the registry stores an inline script's filename as '' and the builder as None: the same script
        key = (getattr(script, "filename", None) or None, attributes.get("body"), tuple(sorted(
            (k, str(v)) for k, v in attributes.items() if k != "body")))
        if key in seen:
            continue
        seen.add(key)
        kept.append(script)
    context["script_files"] = kept


def add_static_path(app):
    """The book's ``_static`` folder, wherever Sphinx's source folder is (the book, or one page's folder)."""
    if str(STATIC) not in map(str, app.config.html_static_path):
        app.config.html_static_path.append(str(STATIC))


def setup(app):
    app.connect("builder-inited", add_static_path)
    app.add_css_file(STYLESHEET)
    # after myst-nb (priority 500) has added the page's notebook scripts
    app.connect("html-page-context", clean_page_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1.0"}

"""Check a built book: each chapter's .ipynb download, and (student edition) that no solution is left.

Usage:
    .venv/bin/python tools/check_html.py _build/html                       # downloads only
    .venv/bin/python tools/check_html.py --student _build/student/html     # downloads and no solutions
    .venv/bin/python tools/check_html.py --student _build/student/html --full _build/html
        (also checks that every solution phrase the check looks for IS in the full book, so that
        the check can see each solution; pass it only when the full build is as new as the sources)

Exits non-zero and lists the problems if any check fails. `make book-student` runs the second form.

Checks
------
* No page's prose (outside code and outputs) shows a numpy repr such as ``np.int64(2)`` (an ``{eval}``
  value left a numpy scalar).
* Every chapter with code cells has the download menu's ".ipynb" entry, pointing to
  ``_sources/<chapter>.ipynb``, a valid notebook that carries the executed outputs.
* Student edition: no HTML element of class ``solution``; no ``{solution`` directive in any
  downloadable source (``_sources/*.md``, ``*.ipynb``); and for each solution in the chapters'
  sources, a phrase of its prose (six consecutive words of a line, outside markup) appears neither in the
  chapter's page nor in its downloadable sources; and no instructors' page
  (``tools/student_config.INSTRUCTOR_ONLY``: the teaching page, which names the answers) is built.
"""

from __future__ import annotations

import argparse
import html
import re
import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from student_edition import FENCE_OPEN, _Stripper, needs_hidden_cells  # noqa: E402

sys.path.insert(0, str(ROOT / "tools"))
from student_config import INSTRUCTOR_ONLY  # noqa: E402

WORD = re.compile(r"[A-Za-z]+")
# markup that does not render as its own words: roles ({eval}`x`, {cite:p}`x`), inline code, math
MARKUP = re.compile(r"\{[\w:-]+\}`[^`]*`|`[^`]*`|\$[^$]*\$|[{}<>]")
PHRASE_WORDS = 6


def toc_files(root: Path = ROOT) -> list[str]:
    """Every file of ``_toc.yml`` (the root first), without suffix, e.g. ``book/fair_ranking``."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf8"))
    files = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("sections"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return files


def notebook_pages(root: Path = ROOT) -> list[str]:
    """The pages of the table of contents that are notebooks (have code cells)."""
    return [f for f in toc_files(root) if "{code-cell}" in (root / f"{f}.md").read_text(encoding="utf8")]


def words(text: str) -> str:
    """Lower-case words joined by single spaces, padded (for whole-word phrase search)."""
    return " " + " ".join(WORD.findall(text.lower())) + " "


def page_text(path: Path) -> str:
    raw = path.read_text(encoding="utf8")
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S | re.I)
    return html.unescape(re.sub(r"<[^>]+>", " ", raw))


def solution_phrases(text: str) -> list[str]:
    """One phrase per solution block of a chapter's MyST source: words of its first line of plain prose."""
    stripper, blocks = _Stripper(), []
    for line in text.splitlines():
        was_dropping = stripper.dropping
        if not stripper.keep(line):
            if not was_dropping:
                blocks.append([])  # a solution starts
            blocks[-1].append(line)
    phrases = []
    for block in blocks:
        fence = None  # inside a code cell or code block of the solution, its fence
        for line in block[1:]:
            stripped = line.strip()
            if FENCE_OPEN.match(line) or (fence is None and re.fullmatch(r"`{3,}|~{3,}|:{3,}", stripped)):
                continue  # the solution's own directive lines
            if fence is None and re.match(r"^(`{3,}|~{3,})[^`~\s]", stripped):
                fence = re.match(r"^(`{3,}|~{3,})", stripped).group(1)
                continue
            if fence is not None:
                fence = None if stripped == fence else fence
                continue
            if stripped.startswith((":", "#", "%", "|")):
                continue  # directive options, headings, comments, tables
            plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", line)  # a link's text stays
            plain = MARKUP.sub("|", plain.replace("*", ""))  # roles, code, math split the line
            segment = next((WORD.findall(s.lower()) for s in plain.split("|")
                            if len(WORD.findall(s)) >= PHRASE_WORDS), None)
            if segment:
                phrases.append(" " + " ".join(segment[:PHRASE_WORDS]) + " ")
                break
    return phrases


def check_downloads(html_dir: Path, root: Path = ROOT) -> list[str]:
    problems = []
    for page in notebook_pages(root):
        page_html = html_dir / f"{page}.html"
        if not page_html.exists():
            problems.append(f"{page}: no page {page_html}")
            continue
        raw = page_html.read_text(encoding="utf8")
        target = f"_sources/{page}.ipynb"
        if "download-notebook-button" not in raw or not re.search(re.escape(target.split("/", 1)[1]), raw):
            problems.append(f"{page}: the download menu has no .ipynb entry for {target}")
            continue
        notebook_path = html_dir / target
        if not notebook_path.exists():
            problems.append(f"{page}: the .ipynb download {notebook_path} does not exist")
            continue
        notebook = nbformat.read(notebook_path, as_version=4)
        nbformat.validate(notebook)
        executed = sum(1 for c in notebook.cells if c.cell_type == "code" and c.get("outputs"))
        if executed == 0:
            problems.append(f"{page}: the .ipynb download has no outputs")
    return problems


def _cells(path: Path) -> list:
    """The cells of a downloadable source, ``.ipynb`` or MyST ``.md``."""
    import jupytext

    text = path.read_text(encoding="utf8")
    if path.suffix == ".ipynb":
        return nbformat.reads(text, as_version=4).cells
    return jupytext.reads(text, fmt="md:myst").cells


def check_no_solutions(html_dir: Path, full_dir: Path | None = None, root: Path = ROOT) -> tuple[list[str], int]:
    problems, looked_for = [], 0
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf8"))
    buttons = (config.get("launch_buttons", {}).get("binderhub_url"), config.get("repository", {}).get("url"))
    sources = [u for u in buttons if u]
    for path in html_dir.rglob("*.html"):
        text = path.read_text(encoding="utf8")
        for url in sources:  # a button that opens the sources would hand students the solutions
            if url.rstrip("/") in text:
                problems.append(f"{path.relative_to(html_dir)}: a link to {url}, whose sources hold the solutions")
                break
    for page in INSTRUCTOR_ONLY:
        for built in (html_dir / f"{page}.html", *(html_dir / "_sources" / f"{page}{s}" for s in (".md", ".ipynb"))):
            if built.exists():
                problems.append(f"{built.relative_to(html_dir)}: an instructors' page in the student edition")
    for path in html_dir.rglob("*.html"):
        if re.search(r'class="[^"]*\bsolution\b', path.read_text(encoding="utf8")):
            problems.append(f"{path.relative_to(html_dir)}: an element of class 'solution'")
    for path in (html_dir / "_sources").rglob("*"):
        if path.suffix in (".md", ".ipynb") and "{solution" in path.read_text(encoding="utf8"):
            problems.append(f"{path.relative_to(html_dir)}: a solution directive in a downloadable source")
        hidden_tag = r':tags:\s*\[[^\]]*remove-(cell|input)|"remove-(cell|input)"'  # a cell's tag in .md or .ipynb
        if path.suffix in (".md", ".ipynb") and re.search(hidden_tag, path.read_text(encoding="utf8")):
            if not needs_hidden_cells(_cells(path)):  # a page whose visible cells need them keeps them
                problems.append(f"{path.relative_to(html_dir)}: a hidden cell (it may compute an answer) in a download")
    for page in (p for p in toc_files(root) if p not in INSTRUCTOR_ONLY):
        phrases = solution_phrases((root / f"{page}.md").read_text(encoding="utf8"))
        looked_for += len(phrases)
        targets = [html_dir / f"{page}.html"] + [html_dir / "_sources" / f"{page}{s}" for s in (".md", ".ipynb")]
        texts = {t: words(page_text(t) if t.suffix == ".html" else t.read_text(encoding="utf8"))
                 for t in targets if t.exists()}
        full_text = None
        if full_dir is not None and (full_dir / f"{page}.html").exists():
            full_text = words(page_text(full_dir / f"{page}.html"))
        for phrase in phrases:
            for target, text in texts.items():
                if phrase in text:
                    problems.append(f"{target.relative_to(html_dir)}: a solution's text '{phrase.strip()}'")
            if full_text is not None and phrase not in full_text:
                problems.append(f"{page}: the phrase '{phrase.strip()}' is not in the full book either, "
                                "so this check cannot see that solution")
    return problems, looked_for


NUMPY_REPR = re.compile(r"\bnp\.(?:int|uint|float|bool|str)\w*\(|\bnp\.(?:True|False)_\b|\barray\(\[")


def check_numpy_reprs(html_dir: Path) -> list[str]:
    """Pages whose prose shows a numpy repr ("np.int64(2)"): an {eval} value stored as a numpy scalar."""
    problems = []
    for page in sorted(html_dir.rglob("*.html")):
        if "_static" in page.parts or "_sources" in page.parts:
            continue
        raw = page.read_text(encoding="utf8")
        raw = re.sub(r"<(pre|script|style)\b.*?</\1>", " ", raw, flags=re.S | re.I)  # not code, outputs or scripts
        prose = html.unescape(re.sub(r"<[^>]+>", " ", raw))
        for match in NUMPY_REPR.finditer(prose):
            problems.append(f"{page.relative_to(html_dir)}: shows a numpy repr {match.group(0)!r}; store the "
                            "{eval} value as a str or a Python number")
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html_dir", type=Path)
    parser.add_argument("--student", action="store_true", help="also check that no solution is in the output")
    parser.add_argument("--full", type=Path, help="the full book's HTML, to check that every phrase is found there")
    args = parser.parse_args(argv)
    problems = check_downloads(args.html_dir) + check_numpy_reprs(args.html_dir)
    pages = notebook_pages()
    summary = [f"{len(pages)} chapters offer an executed .ipynb download", "no numpy repr in the prose"]
    if args.student:
        found, looked_for = check_no_solutions(args.html_dir, args.full)
        problems += found
        summary.append(f"no solution in the output ({looked_for} solution phrases looked for"
                       + (", each found in the full book)" if args.full else ")"))
    if problems:
        print(f"{args.html_dir}: {len(problems)} problem(s)")
        print("\n".join(problems))
        return 1
    print(f"{args.html_dir}: " + "; ".join(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

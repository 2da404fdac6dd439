"""The book's lessons standard, checked on the chapters' sources (the build checks the numbers themselves).

For every method chapter that has been brought to the standard (README, "Add a chapter"):

* a "What to conclude" box and a "Limits and when to use" box;
* hidden cells (tag ``remove-cell``) that assert the chapter's claims;
* no result typed into the prose: a decimal number or a percentage in a
  paragraph must be an inline expression ``{eval}`txt.name```, set in a code cell
  above it (it renders in the book and, with jupyterlab-myst, in JupyterLab). Exempt are figures quoted from a paper (in
  a paragraph that cites or names it), a parameter the chapter sets
  (``τ = 0.1``, ``k = 15``), and a paragraph that declares its numbers to be
  definitions with a MyST comment line ``% constants: <why>`` (e.g. the
  equations of a simulated world).
"""

import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parent.parent / "book"
# chapters brought to the lessons standard (issues 13 and 14)
CHAPTERS = ["intro", "recourse_basics", "group_counterfactuals", "situation_testing", "explanation_consistency",
            "fair_ranking", "robust_allocation", "five_lenses", "audit_your_own_model"]

FENCE = re.compile(r"^(`{3,}|~{3,})")
NUMBER = re.compile(r"(?<![\w.$\\-])(\d+\.\d+|\d+(?:\.\d+)?\s?%)")
# a parameter the chapter sets: "τ = 0.1", "k = 15", "ε = 0.5" (results such as ρ must be {eval} roles)
PARAMETER = re.compile(r"(?:\b[kcdtnhT]|[τεαβλ])\s*=\s*\d+(?:\.\d+)?")


def _cells(text: str):
    """(kind, body) blocks: 'code' for fenced blocks (with their directive line), 'text' for the rest."""
    if text.startswith("---"):  # jupytext front matter
        text = text.split("\n---", 1)[1] if "\n---" in text[3:] else text
    blocks, current, kind, fence = [], [], "text", None
    for line in text.splitlines():
        match = FENCE.match(line.strip())
        if fence is None and match:
            if current:
                blocks.append((kind, "\n".join(current)))
            current, kind, fence = [line], "code", match.group(1)
        elif fence is not None and line.strip() == fence:
            current.append(line)
            blocks.append((kind, "\n".join(current)))
            current, kind, fence = [], "text", None
        else:
            current.append(line)
    if current:
        blocks.append((kind, "\n".join(current)))
    return blocks


def _prose_paragraphs(text: str):
    prose = []
    for kind, body in _cells(text):
        head = body.splitlines()[0] if body else ""
        if kind == "code" and not re.search(r"\{(admonition|exercise|solution|note|tip|warning|important)", head):
            continue  # code, math and figure blocks; admonitions hold prose
        prose.append(body if kind == "text" else "\n".join(body.splitlines()[1:-1]))
    for block in prose:
        for paragraph in re.split(r"\n\s*\n", block):
            clean = re.sub(r"\$\$.*?\$\$|\$[^$]*\$", " ", paragraph, flags=re.S)  # math
            clean = re.sub(r"\{[\w:-]+\}`[^`]*`", " ", clean)  # roles: {eval}`txt.x`, {cite:p}`x`, {doc}`x`
            clean = re.sub(r"`[^`]*`", " ", clean)  # inline code
            clean = re.sub(r"^:\w[\w-]*:.*$", " ", clean, flags=re.M)  # directive options
            clean = PARAMETER.sub(" ", clean)
            yield paragraph, clean


def _source(name: str) -> str:
    return (BOOK / f"{name}.md").read_text()


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_has_a_conclusion_and_a_limits_box(name):
    text = _source(name)
    assert re.search(r"\{admonition\}\s*What to conclude", text), f"{name}: no 'What to conclude' box"
    assert re.search(r"\{admonition\}\s*Limits and when to use", text), f"{name}: no 'Limits and when to use' box"


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_asserts_its_claims_in_hidden_cells(name):
    cells = [body for kind, body in _cells(_source(name)) if kind == "code" and "{code-cell}" in body]
    hidden = [c for c in cells
              if re.search(r":tags:.*remove-cell", c) and re.search(r"^\s*assert\b", c, re.M)]
    least = 2 if name == "intro" else 3  # the introduction has one figure to check, a method chapter many claims
    assert len(hidden) >= least, f"{name}: only {len(hidden)} hidden cells assert claims"


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_result_is_typed_into_the_prose(name):
    typed = []
    for paragraph, clean in _prose_paragraphs(_source(name)):
        if "{cite" in paragraph or re.search(r"\bpaper\b|\bauthors\b|\bpublished\b", paragraph):
            continue  # figures quoted from a paper, with the citation (or the paper named) in the paragraph
        if re.search(r"^%\s*constants:", paragraph, re.M):
            continue  # declared definitions, not results
        typed += [(m.group(0), paragraph.strip()[:80]) for m in NUMBER.finditer(clean)]
    assert not typed, f"{name}: numbers typed into prose (make them {eval} roles): {typed[:5]}"


def test_the_prose_check_finds_typed_numbers_and_spares_evaluated_ones():
    text = ("---\njupytext: 1.13\n---\nWomen pay 4.10 on average.\n\nMen pay {eval}`txt.cost_men`, $p = 0.5$, "
            "`k=0.3`, with τ = 0.1.\n\n% constants: the world's equations\nnoise 0.3 times the salary\n")
    found = [m.group(0) for _, clean in _prose_paragraphs(text) for m in NUMBER.finditer(clean)]
    assert found == ["4.10", "0.3"]  # the last paragraph is exempted by the test itself, not by the scanner
    assert [m.group(0) for m in NUMBER.finditer("a share of 58% and 45 %")] == ["58%", "45 %"]


EVAL_ROLE = re.compile(r"\{eval\}`([^`]*)`")
NAMESPACED = re.compile(r"txt\.[A-Za-z_][A-Za-z0-9_]*")


def _pages():
    return sorted(BOOK.glob("*.md")) + sorted(BOOK.glob("appendix/*.md")) + sorted(BOOK.glob("reports/*.md"))


def _hidden_cells_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("hidden_cells", BOOK / "_ext" / "hidden_cells.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HIDDEN = _hidden_cells_module()  # book/_ext/hidden_cells.py, which the book build loads


def test_hidden_cells_run_under_inline_execution():
    """MyST-NB's inline executor never runs a remove-cell cell; the extension makes them run, hidden."""
    text = ("```{code-cell} ipython3\n:tags: [remove-cell]\n\nassert x\n```\n\n"
            "```{code-cell} ipython3\n:tags: [full-width, remove-cell]\n\ny = 1\n```\n\n"
            "```{code-cell} ipython3\n:tags: [hide-input]\n\nz = 2\n```\n\nProse with :tags: [remove-cell] in it.\n")
    out = HIDDEN.run_hidden_cells(text)
    assert out.count(":tags: [remove-input, remove-output]\n") == 1
    assert ":tags: [remove-input, remove-output, full-width]\n" in out
    assert ":tags: [hide-input]\n" in out and "Prose with :tags: [remove-cell] in it." in out


@pytest.mark.parametrize("path", _pages(), ids=lambda p: p.stem)
def test_no_hidden_cell_is_left_for_inline_execution_to_skip(path):
    """After the extension, no code cell of any page keeps remove-cell (a tag spelling it misses would fail here)."""
    cells = [body for kind, body in _cells(HIDDEN.run_hidden_cells(path.read_text()))
             if kind == "code" and "{code-cell}" in body]
    skipped = [c.splitlines()[1] for c in cells if re.search(r"remove-cell", "\n".join(c.splitlines()[:4]))]
    assert not skipped, f"{path.name}: cells the book would not run: {skipped[:3]}"


@pytest.mark.parametrize("path", _pages(), ids=lambda p: p.stem)
def test_every_number_in_the_prose_is_computed_above_it(path):
    """Each {eval}`txt.name` names an attribute that a code cell above the role sets.

    Names set with ``setattr(txt, f"...", ...)`` (in a loop) are checked by executing the
    chapter (``make chapter``, the book build) instead; here they only need a setattr above.
    """
    assert "{glue" not in path.read_text(), f"{path.name}: glue roles do not render in JupyterLab; use {{eval}}"
    defined, dynamic, missing = set(), False, []
    for kind, body in _cells(path.read_text()):
        if kind == "code" and "{code-cell}" in body:
            defined |= set(re.findall(r"^\s*txt\.([A-Za-z_][A-Za-z0-9_]*)\s*=", body, re.M))
            dynamic |= "setattr(txt," in body
            continue
        for expression in EVAL_ROLE.findall(body):
            assert NAMESPACED.fullmatch(expression), f"{path.name}: {{eval}}`{expression}` is not of the form txt.name"
            if expression[4:] not in defined and not dynamic:
                missing.append(expression)
    assert not missing, f"{path.name}: shown before any cell computes it: {missing[:5]}"


def _normalize_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("normalize_chapters", BOOK.parent / "tools" / "normalize_chapters.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NORMALIZE = _normalize_module()  # tools/normalize_chapters.py, the one definition of "as jupytext writes it"


@pytest.mark.parametrize("path", NORMALIZE.notebooks(), ids=lambda p: p.stem)
def test_chapter_is_stored_as_jupytext_writes_it(path):
    """Opening and saving a chapter in JupyterLab (jupytext) must change no byte (issue 15, item 3)."""
    text = path.read_text()
    assert NORMALIZE.normalized(text) == text, (
        f"{path.name} is not in the form jupytext writes; run `.venv/bin/python tools/normalize_chapters.py`")


# an asterisk between two letters ("FA*IR") opens an emphasis in Markdown: runs of stray italics on the page
STRAY_EMPHASIS = re.compile(r"(?<=\w)(?<!\\)\*(?=\w)")


@pytest.mark.parametrize("path", _pages(), ids=lambda p: p.relative_to(BOOK).as_posix())
def test_no_asterisk_inside_a_word_in_the_prose(path):
    stray = [paragraph.strip()[:80] for paragraph, clean in _prose_paragraphs(path.read_text())
             if STRAY_EMPHASIS.search(clean)]
    assert not stray, f"write FA\\*IR (an escaped asterisk) in the prose of {path.name}: {stray}"


def test_the_stray_emphasis_check_finds_fair_and_spares_the_escaped_name():
    assert STRAY_EMPHASIS.search("ranking FA*IR and") and not STRAY_EMPHASIS.search(r"ranking FA\*IR and")
    assert not STRAY_EMPHASIS.search("**bold** and *italic* text")


def test_a_ref_to_a_label_on_a_paragraph_gives_its_own_title():
    """Sphinx finds no title for a label set before a paragraph (not a heading): {ref}`label` there is a build
    warning, which fails the strict build ten minutes in; {ref}`text <label>` is needed. Checked here in a second."""
    paragraph_labels = set()
    texts = {path: path.read_text() for path in _pages()}
    for text in texts.values():
        for match in re.finditer(r"^\(([\w-]+)\)=\n+(.*)$", text, re.M):
            if not match.group(2).startswith(("#", "```{figure", ":::{figure", "```{table")):
                paragraph_labels.add(match.group(1))
    bare = [(path.name, label) for path, text in texts.items()
            for label in re.findall(r"\{ref\}`([\w-]+)`", text) if label in paragraph_labels]
    assert not bare, f"{{ref}} to a paragraph label without a title (write {{ref}}`text <label>`): {bare[:5]}"


ASSIGNED = re.compile(r"^\s*((?:txt\.\w+\s*,\s*)*txt\.\w+)\s*=(?!=)", re.M)  # txt.a = ... / txt.a, txt.b = ...


@pytest.mark.parametrize("name", CHAPTERS + ["reports/raguel", "reports/allocation", "teaching"])
def test_every_eval_role_is_set_in_a_cell_above_it(name):
    """An {eval} role reads the kernel when the build reaches it: a name set only in a later cell renders nothing
    (the build warns and fails). Names set indirectly (setattr) are not seen here and are left to the build."""
    path = BOOK / f"{name}.md"
    if not path.exists():
        pytest.skip(f"{name} has no source")
    blocks = _cells(path.read_text())
    later = {}  # name -> index of the first code block that assigns it
    for i, (kind, body) in enumerate(blocks):
        if kind == "code" and "{code-cell}" in body.splitlines()[0]:
            for group in ASSIGNED.findall(body):
                for n_ in re.findall(r"txt\.(\w+)", group):
                    later.setdefault(n_, i)
    early = [(n_, i) for i, (kind, body) in enumerate(blocks)
             if not (kind == "code" and "{code-cell}" in body.splitlines()[0])
             for n_ in re.findall(r"\{eval\}`txt\.(\w+)`", body) if n_ in later and later[n_] > i]
    assert not early, f"{name}: {{eval}} roles read before the cell that sets them: {early[:5]}"

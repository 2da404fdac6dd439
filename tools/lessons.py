"""The lesson budget and the "visible code runs alone" rule, measured on a page's source (DESIGN section 4).

A lesson is one 90-minute class: at most ~3,500 words of prose on the rendered page (code, outputs,
tables and maths not counted) and at most ~150 lines of visible code. A student who copies the visible
cells in order into a fresh notebook gets the same outputs, so a hidden cell (tag ``remove-cell``) may
only assert claims and format numbers: it defines nothing a visible cell uses.

Usage: ``.venv/bin/python tools/lessons.py [book/page.md ...]`` prints words, visible code lines and
names that the visible cells use without defining them, for every lesson of ``_toc.yml`` (default) or
the pages given. ``tests/test_lessons.py`` holds the lessons to the budget.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
from pathlib import Path

import jupytext
import yaml

ROOT = Path(__file__).resolve().parent.parent
WORD_BUDGET = 3500
CODE_BUDGET = 150
HIDDEN_TAGS = {"remove-cell", "remove-input"}
# Issues 23-25 rebuild these pages as lessons; each leaves the lists with its rebuild
# (tests/test_lessons.py strict-xfails them meanwhile; tools/run_alone.py skips them).
NOT_YET_WITHIN_BUDGET: set[str] = set()
NOT_YET_RUNNING_ALONE = NOT_YET_WITHIN_BUDGET

# fenced blocks whose body is prose a reader reads (their option lines are dropped)
PROSE_DIRECTIVES = re.compile(r"\{(admonition|exercise|solution|note|tip|warning|important|caution|attention|"
                              r"seealso|dropdown|hint|figure|prf:\w+|epigraph|margin|sidebar)\}")
FENCE = re.compile(r"^(`{3,}|:{3,}|~{3,})(.*)$")
WORD = re.compile(r"[^\W_](?:[\w'’.-]*[^\W_])?")
# IPython builtins that a notebook may use without defining them
NOTEBOOK_NAMES = {"display", "get_ipython", "In", "Out", "__name__", "__file__"}


def lesson_pages(toc: Path = ROOT / "_toc.yml") -> list[Path]:
    """The root page and every page of the ToC part captioned "Lessons"."""
    spec = yaml.safe_load(toc.read_text())
    pages = [spec["root"]]
    for part in spec.get("parts", []):
        if part.get("caption", "").strip().lower() == "lessons":
            pages += [chapter["file"] for chapter in part.get("chapters", [])]
    return [ROOT / f"{page}.md" for page in pages]


def rebuilt_lessons() -> list[Path]:
    """The lessons already rebuilt to the budget (their visible code must run alone)."""
    return [p for p in lesson_pages() if p.stem not in NOT_YET_RUNNING_ALONE]


def notebook(path: Path):
    return jupytext.read(path, fmt="md:myst")


def _hidden(cell) -> bool:
    return bool(HIDDEN_TAGS & set(cell.metadata.get("tags", [])))


def _strip_inline(text: str) -> str:
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)  # display maths
    text = re.sub(r"(?<!\\)\$[^$\n]+\$", " ", text)  # inline maths
    text = re.sub(r"\{eval\}`[^`]*`", " N ", text)  # a computed number is one word
    text = re.sub(r"\{cite:\w+\}`[^`]*`", " Cite ", text)  # a citation renders as a name and a year
    text = re.sub(r"\{(?:doc|ref|numref|eq|term|download)\}`([^`<]*)(?:<[^`]*>)?`", r" \1 ", text)
    text = re.sub(r"\{py:\w+\}`~?([^`]*)`", lambda m: " " + m.group(1).split(".")[-1] + " ", text)
    text = re.sub(r"`[^`]*`", " code ", text)  # inline code is one word
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    return text


def _prose_lines(source: str) -> list[str]:
    """The lines of a markdown cell a reader reads as prose (code, maths and tables removed)."""
    out, stack = [], []  # stack: for each open fence, whether its body is prose
    for line in source.splitlines():
        stripped = line.strip()
        match = FENCE.match(stripped)
        if match and stack and stripped == match.group(1) and match.group(2) == "" and \
                len(match.group(1)) >= 3 and stack[-1][0] == match.group(1)[0]:
            stack.pop()  # a closing fence
            continue
        if match and match.group(2):
            prose = bool(PROSE_DIRECTIVES.search(match.group(2)))
            stack.append((match.group(1)[0], prose and all(p for _, p in stack)))
            if prose:  # an admonition's title is prose
                out.append(re.sub(r"^\S*\{[^}]*\}", "", stripped))
            continue
        if stack and not stack[-1][1]:
            continue  # inside code, maths or another non-prose block
        if re.match(r"^\s*(:[\w-]+:|%|\(\S+\)=$|\|)", line) or stripped.startswith("<"):
            continue  # directive options, MyST comments, labels, tables, raw html
        out.append(line)
    return out


def prose_words(path: Path) -> int:
    """Words of prose the rendered page shows (headings, paragraphs, lists, admonitions, exercises, captions)."""
    words = 0
    for cell in notebook(path).cells:
        if cell.cell_type == "markdown":
            text = _strip_inline("\n".join(_prose_lines(cell.source)))
            words += len(WORD.findall(text))
    return words


def visible_code_lines(path: Path) -> int:
    """Non-blank lines of the code cells a reader sees (everything but cells tagged remove-cell/remove-input)."""
    return sum(len([line for line in cell.source.splitlines() if line.strip()])
               for cell in notebook(path).cells if cell.cell_type == "code" and not _hidden(cell))


def _python(source: str) -> str:
    # IPython magics and shell escapes are not Python; a line magic binds nothing a later cell reads
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def _bound_and_used(source: str) -> tuple[set, set]:
    """Every name a cell binds (in any scope) and every name it reads."""
    tree = ast.parse(_python(source))
    bound, used = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, (ast.Store, ast.Del)) else used).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound |= set(node.names)
    return bound, used


def names_from_hidden_cells(path: Path) -> list[tuple[int, str, str]]:
    """(cell number, name, why) for each name a visible cell reads that no earlier visible cell binds.

    ``why`` is "bound only in a hidden cell" or "never bound". A static check: it finds the NameErrors
    a student copying the visible cells would meet, without running them.
    """
    return names_from_hidden_cells_in(notebook(path).cells)


def names_from_hidden_cells_in(cells) -> list[tuple[int, str, str]]:
    """``names_from_hidden_cells`` for notebook cells (nbformat nodes or nbformat-4 dicts)."""
    known = set(dir(builtins)) | NOTEBOOK_NAMES
    visible_bound, hidden_bound, problems = set(), set(), []
    for number, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        try:
            bound, used = _bound_and_used(source)
        except SyntaxError:  # not Python (a cell of another language, a fenced example): binds nothing we can see
            continue
        if HIDDEN_TAGS & set(cell.get("metadata", {}).get("tags", [])):
            hidden_bound |= bound
            continue
        for name in sorted(used - bound - visible_bound - known):
            problems.append((number, name, "bound only in a hidden cell" if name in hidden_bound else "never bound"))
        visible_bound |= bound
    return problems


def report(paths: list[Path]) -> None:
    for path in paths:
        words, code = prose_words(path), visible_code_lines(path)
        missing = names_from_hidden_cells(path)
        flag = lambda ok: "ok" if ok else "OVER"  # noqa: E731
        print(f"{path.relative_to(ROOT)}: {words} words ({flag(words <= WORD_BUDGET)}), {code} lines of visible "
              f"code ({flag(code <= CODE_BUDGET)}), {len(missing)} names from hidden cells"
              + (f": {sorted({name for _, name, _ in missing})[:12]}" if missing else ""))


if __name__ == "__main__":
    report([Path(p).resolve() for p in sys.argv[1:]] or lesson_pages())
